#!/bin/sh
# Writes files the engine cannot parse.
echo "Battleship here please" >"$2/place.txt"
echo "fire!" >"$2/command.txt"
