#!/bin/sh
# Writes a valid placement, then burns 2.2 s of CPU in round 0: over the
# 2 s budget, under the 4 s wall-time kill.
IFS= read -r state <"$2/state.json"
case "$state" in *'"Round":0,'*)
	printf 'Battleship 0 0 North\nCarrier 1 0 East\nCruiser 2 2 East\nDestroyer 6 5 North\nSubmarine 4 4 North\n' >"$2/place.txt"
	exec python3 -c 'import time
end = time.process_time() + 2.2
while time.process_time() < end:
    pass'
	;;
esac
exec sh "${0%/*}/sweep.sh" "$@"
