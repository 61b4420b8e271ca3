"""Starter bot for Entelect Challenge 2017 Battleships (Python 3, standard library only).

The engine runs `python3 bot.py <player key> <round folder>` once per round.
The bot reads state.json from the round folder and writes place.txt (phase 1)
or command.txt (phase 2) there. Replace choose_shot with your own strategy.
"""
import json
import os
import random
import sys
import zlib

SHIPS = [("Battleship", 4), ("Carrier", 5), ("Cruiser", 3), ("Destroyer", 2), ("Submarine", 3)]
DIRECTIONS = {"North": (0, 1), "East": (1, 0), "South": (0, -1), "West": (-1, 0)}


def place_ships(n, rng):
    """Place every ship at a random legal start and direction."""
    taken = set()
    lines = []
    for name, length in SHIPS:
        while True:
            x, y = rng.randrange(n), rng.randrange(n)
            direction = rng.choice(sorted(DIRECTIONS))
            dx, dy = DIRECTIONS[direction]
            cells = [(x + i * dx, y + i * dy) for i in range(length)]
            if all(0 <= cx < n and 0 <= cy < n and (cx, cy) not in taken for cx, cy in cells):
                taken.update(cells)
                lines.append("%s %d %d %s" % (name, x, y, direction))
                break
    return "\n".join(lines) + "\n"


def choose_shot(state, rng):
    """Fire a single shot (code 1) at a random cell not shot before."""
    unknown = [c for c in state["OpponentMap"]["Cells"] if not c["Damaged"] and not c["Missed"]]
    if not unknown:
        return 0, 0, 0
    cell = rng.choice(unknown)
    return 1, cell["X"], cell["Y"]


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: bot.py <player key> <round folder>")
    key, folder = sys.argv[1], sys.argv[2]
    with open(os.path.join(folder, "state.json"), "rb") as f:
        raw = f.read()
    state = json.loads(raw.decode("utf-8"))
    # Seeded from the state, so the same match plays the same way again.
    rng = random.Random(zlib.crc32(key.encode() + raw))
    if state["Phase"] == 1:
        with open(os.path.join(folder, "place.txt"), "w") as f:
            f.write(place_ships(state["MapDimension"], rng))
        return
    code, x, y = choose_shot(state, rng)
    with open(os.path.join(folder, "command.txt"), "w") as f:
        f.write("%d,%d,%d\n" % (code, x, y))


if __name__ == "__main__":
    main()
