#!/bin/sh
# A bot that fills its round folder every turn before playing as sweep.sh:
# notes.bin of 200 KiB (within a round's cap for the replay), over.bin of
# 300 KiB (over it on its own), a symbolic link and a folder.
dir=$2
dd if=/dev/zero of="$dir/notes.bin" bs=1024 count=200 2>/dev/null
dd if=/dev/zero of="$dir/over.bin" bs=1024 count=300 2>/dev/null
ln -s /etc/passwd "$dir/link"
mkdir "$dir/sub"
exec sh "$(dirname "$0")/sweep.sh" "$@"
