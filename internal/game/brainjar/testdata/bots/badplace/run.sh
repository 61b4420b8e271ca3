#!/bin/sh
exec python3 ../scripted.py badplace "$1"
