#!/usr/bin/env python3
"""Scripted BrainJar bots for protocol tests: scripted.py MODE JSON."""
import json
import sys
import time

PLACEMENT = {"2": {"point": "00", "orientation": "vertical"},
             "3": {"point": "22", "orientation": "vertical"},
             "4": {"point": "42", "orientation": "vertical"},
             "5": {"point": "37", "orientation": "horizontal"}}

mode, req = sys.argv[1], json.loads(sys.argv[2])
if req["cmd"] == "init":
    if mode == "badplace":
        PLACEMENT["3"]["point"] = "01"
        PLACEMENT["3"]["orientation"] = "horizontal"
    print(json.dumps(PLACEMENT, separators=(",", ":")))
    sys.exit(0)
fired = set(req["hit"]) | set(req["missed"])
free = [f"{c}{r}" for r in range(8) for c in range(8) if f"{c}{r}" not in fired]
move = free[0]
if mode == "refire":
    move = "00"
elif mode == "late":
    time.sleep(3)
elif mode == "crash":
    raise SystemExit("boom")
elif mode == "debugtext":
    print("thinking about", move)
elif mode == "stderr":
    print("a log line", file=sys.stderr)
print(json.dumps({"move": move}, separators=(",", ":")))
