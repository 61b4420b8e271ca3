#!/bin/sh
# Plays as sweep.sh, but first prints what its round folder holds, then
# leaves litter there: a note, a folder with a file, a symbolic link.
# Every round its folder must hold only what the engine wrote.
dir=$2
printf 'seen:'
for f in "$dir"/* "$dir"/.[!.]*; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	printf ' %s' "${f##*/}"
done
echo
sh "$(dirname "$0")/sweep.sh" "$@" || exit
echo note >"$dir/note.txt"
mkdir "$dir/junk" && echo x >"$dir/junk/file"
ln -s /etc/passwd "$dir/link"
