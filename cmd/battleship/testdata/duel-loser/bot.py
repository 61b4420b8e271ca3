"""A bot that always loses: it places its fleet in the first five columns,
then fires at the same cell every round, so it never sinks a fleet."""
import json
import os
import sys

folder = sys.argv[2]
with open(os.path.join(folder, "state.json")) as f:
    state = json.load(f)
if state["Phase"] == 1:
    ships = ["Battleship", "Carrier", "Cruiser", "Destroyer", "Submarine"]
    with open(os.path.join(folder, "place.txt"), "w") as f:
        for x, ship in enumerate(ships):
            f.write("%s %d 0 North\n" % (ship, x))
else:
    with open(os.path.join(folder, "command.txt"), "w") as f:
        f.write("1,0,0\n")
