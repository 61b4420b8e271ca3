#!/bin/sh
# Places a valid fleet, then keeps firing a double shot it cannot afford:
# every phase-2 command fails.
IFS= read -r state <"$2/state.json"
case "$state" in
*'"Phase":1'*)
	printf 'Battleship 0 0 North\nCarrier 1 0 East\nCruiser 2 2 East\nDestroyer 6 5 North\nSubmarine 4 4 North\n' >"$2/place.txt"
	exit 0
	;;
esac
echo "2,3,3" >"$2/command.txt"
