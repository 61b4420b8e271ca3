#!/bin/sh
# Tries to leave files outside its folders; the names come from its folder.
name=$(cat "$2/marker_name.txt" 2>/dev/null || cat marker_name.txt)
for d in /tmp /work /root / /usr /etc /var/tmp /dev/shm "$(cat "$2/opponent_path.txt" 2>/dev/null || cat opponent_path.txt)"; do
	echo x > "$d/$name" 2>/dev/null && echo "wrote $d/$name" >> "$2/loot.txt"
done
printf '1,0,0' > "$2/command.txt"
