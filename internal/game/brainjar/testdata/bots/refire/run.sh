#!/bin/sh
exec python3 ../scripted.py refire "$1"
