#!/bin/sh
exec python3 ../scripted.py late "$1"
