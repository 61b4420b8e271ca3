#!/bin/sh
exec python3 ../scripted.py debugtext "$1"
