package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Reading a match's costs back from its replay: round and turn times.

// roundCosts are per-round and per-turn times read from replays.
type roundCosts struct {
	wall, botWall, botCPU, overhead []time.Duration
	// total counts every round played; botCPUSum adds up the bots' CPU.
	total     int
	botCPUSum time.Duration
}

func (c *roundCosts) sort() {
	for _, d := range [][]time.Duration{c.wall, c.botWall, c.botCPU, c.overhead} {
		slices.Sort(d)
	}
}

// add reads one replay: the engine's end of each round (engine.log) and
// each bot turn's start, end, wall and CPU time (log.txt).
func (c *roundCosts) add(replay string) error {
	entries, err := os.ReadDir(replay)
	if err != nil {
		return err
	}
	type round struct {
		phase, n int
		dir      string
	}
	var rounds []round
	for _, e := range entries {
		var r round
		if _, err := fmt.Sscanf(e.Name(), "Phase %d - Round %d", &r.phase, &r.n); err == nil {
			r.dir = filepath.Join(replay, e.Name())
			rounds = append(rounds, r)
		}
	}
	slices.SortFunc(rounds, func(a, b round) int { return (a.phase*10000 + a.n) - (b.phase*10000 + b.n) })
	var prev time.Time
	for _, r := range rounds {
		end, ok := lastStamp(filepath.Join(r.dir, "engine.log"), "Round processing complete")
		if !ok {
			continue
		}
		if !prev.IsZero() {
			c.wall = append(c.wall, end.Sub(prev))
		}
		prev = end
		var wall, cpu time.Duration
		for _, seat := range []string{"A", "B"} {
			t, ok := readTurn(filepath.Join(r.dir, seat, "log.txt"))
			if !ok {
				continue
			}
			wall, cpu = wall+t.wall, cpu+t.cpu
			c.overhead = append(c.overhead, t.end.Sub(t.start)-t.wall)
		}
		c.botWall, c.botCPU = append(c.botWall, wall), append(c.botCPU, cpu)
		c.total++
		c.botCPUSum += cpu
	}
	return nil
}

// stamp reads the time at the start of a log line:
// "22-11-2026 10:37:02:657 - I: ...".
func stamp(line string) (time.Time, bool) {
	if len(line) < 23 {
		return time.Time{}, false
	}
	t, err := time.Parse("02-01-2006 15:04:05.000", line[:19]+"."+line[20:23])
	return t, err == nil
}

func lastStamp(path, marker string) (time.Time, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, false
	}
	var t time.Time
	var ok bool
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, marker) {
			t, ok = stamp(l)
		}
	}
	return t, ok
}

type turn struct {
	start, end time.Time
	wall, cpu  time.Duration
}

// readTurn reads one bot turn's log.txt.
func readTurn(path string) (turn, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return turn{}, false
	}
	var t turn
	var started, ended bool
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.Contains(l, "Executing process"):
			t.start, started = stamp(l)
		case strings.Contains(l, "Your bots total execution time was"):
			var wall, cpu string
			i := strings.Index(l, "was ")
			if _, err := fmt.Sscanf(l[i+4:], "%s (CPU %s", &wall, &cpu); err != nil {
				return turn{}, false
			}
			t.wall, t.cpu = netTime(wall), netTime(strings.TrimSuffix(cpu, ")"))
			t.end, ended = stamp(l)
		}
	}
	return t, started && ended
}

// netTime parses .NET's "hh:mm:ss.fffffff".
func netTime(s string) time.Duration {
	var h, m, sec, ticks int64
	fmt.Sscanf(s, "%d:%d:%d.%d", &h, &m, &sec, &ticks)
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second + time.Duration(ticks)*100
}

func perRound(n int64, rounds int) string {
	if n < 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(n)/float64(max(1, rounds)))
}
