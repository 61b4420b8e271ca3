#!/bin/sh
# The sweep bot that, in its first turn, first writes 100 KiB to stdout,
# over the 64 KiB kept.
if [ ! -e counter ]; then
	i=0
	while [ $i -lt 1600 ]; do
		echo "flood line $i of sixty-four characters, padding padding padding"
		i=$((i + 1))
	done
fi
exec sh "$(dirname "$0")/sweep.sh" "$@"
