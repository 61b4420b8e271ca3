"""A hostile Entelect bot: every turn it fills its round folder with files
meant to bloat the replay, then plays a legal move that never sinks
anything, so that a match against itself lasts to the round cap.

Per turn, in name order: a.bin 200 KiB, b.bin 100 KiB, big.bin 300 KiB
(larger than a round's cap on its own), c.bin 40 KiB, and 100 empty files
n000 to n099. The data is random so that zipping the replay cannot hide
what was kept."""
import json
import os
import sys

SHIPS = [("Carrier", 5), ("Battleship", 4), ("Cruiser", 3), ("Submarine", 3), ("Destroyer", 2)]

key, folder = sys.argv[1], sys.argv[2]
for name, size in [("a.bin", 200), ("b.bin", 100), ("big.bin", 300), ("c.bin", 40)]:
    with open(os.path.join(folder, name), "wb") as f:
        f.write(os.urandom(size << 10))
for i in range(100):
    open(os.path.join(folder, "n%03d" % i), "wb").close()
with open(os.path.join(folder, "state.json"), "rb") as f:
    state = json.loads(f.read().decode("utf-8-sig"))
if state["Phase"] == 1:
    with open(os.path.join(folder, "place.txt"), "w") as f:
        for y, (name, _) in enumerate(SHIPS):
            f.write("%s 0 %d East\n" % (name, y))
    sys.exit(0)
# The far corner holds no ship (they lie in rows 0 to 4 from x = 0): a shot
# there again and again is a legal move that hits nothing.
n = state["MapDimension"]
with open(os.path.join(folder, "command.txt"), "w") as f:
    f.write("1,%d,%d\n" % (n - 1, n - 1))
