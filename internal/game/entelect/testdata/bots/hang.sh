#!/bin/sh
# Writes a valid placement but never exits in its first round (it must be
# killed and its placement ignored), then plays like sweep.
IFS= read -r state <"$2/state.json"
case "$state" in *'"Round":0,'*)
	printf 'Battleship 0 0 North\nCarrier 1 0 East\nCruiser 2 2 East\nDestroyer 6 5 North\nSubmarine 4 4 North\n' >"$2/place.txt"
	exec sleep 1000
	;;
esac
exec sh "${0%/*}/sweep.sh" "$@"
