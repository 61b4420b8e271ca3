# A BrainJar bot in Ruby, started by a run.sh without its executable bit.
require 'json'
req = JSON.parse(ARGV[0])
out = {}
if req['cmd'] == 'init'
  { '2' => '50', '3' => '41', '4' => '01', '5' => '00' }.each { |s, p| out[s] = { 'point' => p, 'orientation' => 'horizontal' } }
else
  done = req['hit'] + req['missed']
  cells = (0..7).flat_map { |y| (0..7).map { |x| "#{x}#{y}" } }
  out = { 'move' => cells.find { |c| !done.include?(c) } }
end
puts JSON.generate(out)
