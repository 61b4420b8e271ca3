#!/bin/sh
kill -9 -1
printf '1,0,0' > "$2/command.txt"
