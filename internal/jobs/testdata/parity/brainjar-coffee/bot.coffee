# A BrainJar bot in CoffeeScript, run as the original template ran it.
req = JSON.parse process.argv[2]
if req.cmd is 'init'
  out = {}
  for size, point of {2: '50', 3: '41', 4: '01', 5: '00'}
    out[size] = point: point, orientation: 'horizontal'
else
  done = new Set(req.hit.concat req.missed)
  cells = []
  for y in [0..7]
    for x in [0..7]
      cells.push "#{x}#{y}"
  out = move: (c for c in cells when not done.has c)[0]
console.log JSON.stringify out
