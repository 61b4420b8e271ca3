#!/bin/sh
# Reads the opponent's folder, whose path it was given in its own folder.
opp=$(cat "$2/opponent_path.txt" 2>/dev/null || cat opponent_path.txt)
cat "$opp/state.json" >> "$2/loot.txt" 2>/dev/null && echo "PWNED read opponent state" >> "$2/loot.txt"
ls "$opp" >> "$2/loot.txt" 2>/dev/null && echo "PWNED listed opponent folder" >> "$2/loot.txt"
printf '1,0,0' > "$2/command.txt"
