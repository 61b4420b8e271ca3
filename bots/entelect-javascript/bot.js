// Starter bot for Entelect Challenge 2017 Battleships (Node.js, no packages).
//
// The engine runs `node bot.js <player key> <round folder>` once per round.
// The bot reads state.json from the round folder and writes place.txt
// (phase 1) or command.txt (phase 2) there. Replace chooseShot with your own
// strategy.
'use strict';
const fs = require('fs');
const path = require('path');

const SHIPS = [['Battleship', 4], ['Carrier', 5], ['Cruiser', 3], ['Destroyer', 2], ['Submarine', 3]];
const DIRECTIONS = { East: [1, 0], North: [0, 1], South: [0, -1], West: [-1, 0] };

// A small seeded generator (mulberry32), so the same match plays the same way again.
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  }
  return h >>> 0;
}

function placeShips(n, rand) {
  const taken = new Set();
  const lines = [];
  const names = Object.keys(DIRECTIONS);
  for (const [name, length] of SHIPS) {
    for (;;) {
      const x = Math.floor(rand() * n);
      const y = Math.floor(rand() * n);
      const dir = names[Math.floor(rand() * names.length)];
      const [dx, dy] = DIRECTIONS[dir];
      const cells = [];
      for (let i = 0; i < length; i++) cells.push([x + i * dx, y + i * dy]);
      if (cells.every(([cx, cy]) => cx >= 0 && cy >= 0 && cx < n && cy < n && !taken.has(cx + ',' + cy))) {
        cells.forEach(([cx, cy]) => taken.add(cx + ',' + cy));
        lines.push(`${name} ${x} ${y} ${dir}`);
        break;
      }
    }
  }
  return lines.join('\n') + '\n';
}

// chooseShot fires a single shot (code 1) at a random cell not shot before.
function chooseShot(state, rand) {
  const unknown = state.OpponentMap.Cells.filter((c) => !c.Damaged && !c.Missed);
  if (unknown.length === 0) return [0, 0, 0];
  const cell = unknown[Math.floor(rand() * unknown.length)];
  return [1, cell.X, cell.Y];
}

function main() {
  if (process.argv.length < 4) {
    console.error('usage: node bot.js <player key> <round folder>');
    process.exit(2);
  }
  const key = process.argv[2];
  const folder = process.argv[3];
  const raw = fs.readFileSync(path.join(folder, 'state.json'), 'utf8');
  const state = JSON.parse(raw);
  const rand = seededRandom(hash(key + raw));
  if (state.Phase === 1) {
    fs.writeFileSync(path.join(folder, 'place.txt'), placeShips(state.MapDimension, rand));
    return;
  }
  const [code, x, y] = chooseShot(state, rand);
  fs.writeFileSync(path.join(folder, 'command.txt'), `${code},${x},${y}\n`);
}

main();
