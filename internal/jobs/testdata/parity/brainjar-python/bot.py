# A BrainJar bot in the subset Python 2.7 and 3 share: fixed ships, then the
# first cell not fired at, row by row.
import json
import sys

# Two ships fill row 0 but its last cell, two fill row 1 but its last.
PLACES = [("2", "50"), ("3", "41"), ("4", "01"), ("5", "00")]

req = json.loads(sys.argv[1])
if req["cmd"] == "init":
    out = {}
    for size, point in PLACES:
        out[size] = {"point": point, "orientation": "horizontal"}
else:
    done = set(req["hit"]) | set(req["missed"])
    cells = ["%d%d" % (x, y) for y in range(8) for x in range(8)]
    out = {"move": [c for c in cells if c not in done][0]}
sys.stdout.write(json.dumps(out) + "\n")
