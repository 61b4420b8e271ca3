#!/bin/sh
perl bot.pl $1
