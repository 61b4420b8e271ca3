#!/bin/sh
# Plays as sweep.sh, but first prints what its round folder holds and the
# size of its state.json, then leaves litter there: a note, a folder with
# a file, a symbolic link, a line added to state.json and map.txt made a
# link. Every round its folder must hold only what the engine wrote.
dir=$2
printf 'seen:'
for f in "$dir"/* "$dir"/.[!.]*; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	printf ' %s' "${f##*/}"
	[ -L "$f" ] && printf '(link)'
done
echo
echo "state.json: $(wc -c <"$dir/state.json") bytes"
sh "$(dirname "$0")/sweep.sh" "$@" || exit
echo note >"$dir/note.txt"
mkdir "$dir/junk" && echo x >"$dir/junk/file"
ln -s /etc/passwd "$dir/link"
echo junk >>"$dir/state.json"
rm "$dir/map.txt" && ln -s /etc/passwd "$dir/map.txt"
