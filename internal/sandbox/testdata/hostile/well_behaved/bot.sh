#!/bin/sh
# Canary: a well-behaved bot. It must be able to write its command.
printf '1,0,0' > "$2/command.txt"
