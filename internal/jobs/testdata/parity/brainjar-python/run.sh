#!/bin/sh
# As the BrainJar template: the bare "python".
python bot.py $1
