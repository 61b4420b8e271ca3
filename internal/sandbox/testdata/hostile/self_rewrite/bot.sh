#!/bin/sh
# Rewriting its own folder (for its next turn) is allowed; the system is not.
bot=$(dirname "$0")
echo "# turn seen" >> "$bot/bot.sh" && echo rewritten > "$bot/rewritten.txt"
echo x >> /usr/bin/env 2>/dev/null && echo "PWNED wrote /usr/bin/env" >> "$2/loot.txt"
echo x > /bin/broadside-planted 2>/dev/null && echo "PWNED wrote /bin" >> "$2/loot.txt"
printf '1,0,0' > "$2/command.txt"
