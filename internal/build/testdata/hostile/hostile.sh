#!/bin/sh
# Started by a build tool that was tricked into it: says where it ran and
# whether the network was there, then hands on to what was asked for (a
# rustc wrapper gets rustc and its arguments).
if [ -n "$HTTPS_PROXY$https_proxy" ]; then net=network; else net=offline; fi
echo "$net" >> hostile-ran.txt
echo "hostile code ran ($net) in $(pwd)" >&2
if [ $# -gt 0 ]; then exec "$@"; fi
