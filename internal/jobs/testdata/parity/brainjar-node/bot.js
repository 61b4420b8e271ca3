// A BrainJar bot in JavaScript for Node.
const req = JSON.parse(process.argv[2]);
let out = {};
if (req.cmd === 'init') {
  const places = { 2: '50', 3: '41', 4: '01', 5: '00' };
  for (const size of Object.keys(places)) out[size] = { point: places[size], orientation: 'horizontal' };
} else {
  const done = new Set(req.hit.concat(req.missed));
  search: for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) {
      if (!done.has(`${x}${y}`)) { out = { move: `${x}${y}` }; break search; }
    }
  }
}
console.log(JSON.stringify(out));
