#!/bin/sh
exec python3 ../scripted.py stderr "$1"
