#!/bin/sh
exec sleep 100000
