#!/bin/sh
python bot.py $1
