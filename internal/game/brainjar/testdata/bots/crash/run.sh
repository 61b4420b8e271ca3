#!/bin/sh
exec python3 ../scripted.py crash "$1"
