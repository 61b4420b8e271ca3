#!/bin/bash
node bot.js $1
