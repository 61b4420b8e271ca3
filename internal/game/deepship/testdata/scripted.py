#!/usr/bin/env python3
"""Scripted In Deep Ship bots for protocol tests: scripted.py MODE.

Every mode places the same fleet and fires at A0, A1, ... in order; the
mode changes one behaviour, mostly on the first turn of the first game.
"""
import sys
import time

mode = sys.argv[1]
PLACE = "place-ships;5;horizontal;A0;4;horizontal;B0;3;horizontal;C0;3;horizontal;D0;2;vertical;F7"
CELLS = ["%s%d" % ("ABCDEFGHI"[r], c) for r in range(9) for c in range(11)]
game = 0
turn = 0
placements = 0


def send(s, end="\n"):
    sys.stdout.write(s + end)
    sys.stdout.flush()


for raw in sys.stdin:
    msg = raw.rstrip("\n")
    print("got", msg, file=sys.stderr)
    if msg == "round-start" and mode == "echo":
        send("round-start")
    elif msg == "game-start":
        game += 1
        turn = 0
        if mode == "echo":
            send("game-start")
    elif msg == "place-ships":
        placements += 1
        if mode == "badplace" and placements == 1:
            send(PLACE + ";")
        elif mode == "lateplace" and game == 1:
            time.sleep(3.4)
            send(PLACE)
        elif mode == "neverplace":
            pass
        else:
            send(PLACE)
    elif msg in ("win", "lose") and mode == "onegame":
        sys.exit(0)
    elif msg == "take-turn":
        first = game == 1 and turn == 0
        if mode == "crash":
            sys.exit(3)
        if mode == "silent":
            continue
        if mode == "late" and first:
            time.sleep(1.3)
        if mode == "skip" and first:
            time.sleep(3.4)
        if mode == "offboard" and first:
            turn += 1
            send("take-turn;J5")
            continue
        if mode == "debugtext":
            send("thinking about " + CELLS[turn % 99])
        if mode == "long" and first:
            send("x" * 300)
        cell = "A0" if mode == "refire" else CELLS[turn % 99]
        turn += 1
        send("take-turn;" + cell, end="\r\n" if mode == "crlf" else "\n")
