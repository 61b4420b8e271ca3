#!/bin/sh
# The engine runs ./run.sh '<json>' from this folder, once per request.
exec python3 bot.py "$1"
