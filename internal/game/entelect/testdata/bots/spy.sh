#!/bin/sh
# Looks for the other player's files of the round and the root files.
other=A
[ "$1" = A ] && other=B
if [ -e "$2/../$other/state.json" ] || [ -e "$2/../$other/command.txt" ] || [ -e "$2/../$other/place.txt" ] || [ -e "$2/../state.json" ]; then
	echo "LEAK"
else
	echo "NOLEAK"
fi
exec sh "${0%/*}/sweep.sh" "$@"
