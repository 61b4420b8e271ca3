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
	// A round's wall in three parts: before (the previous round's end to
	// its first turn's start), turns (to its last turn's end), after (to
	// the round's end); imbalance: the slower seat's bot wall less the
	// faster's.
	before, turns, after, imbalance []time.Duration
	// total counts every round played; botCPUSum adds up the bots' CPU.
	total     int
	botCPUSum time.Duration
	// matches are where each match's wall went, in replay order.
	matches []matchSpan
}

// matchSpan is one match's play as its replay shows it: the first bot
// turn's start and the last round's end.
type matchSpan struct {
	firstTurn, lastRound time.Time
}

func (c *roundCosts) sort() {
	for _, d := range [][]time.Duration{c.wall, c.botWall, c.botCPU, c.overhead, c.before, c.turns, c.after, c.imbalance} {
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
	var prev, before time.Time
	var span matchSpan
	defer func() { c.matches = append(c.matches, span) }()
	for _, r := range rounds {
		end, ok := lastStamp(filepath.Join(r.dir, "engine.log"), "Round processing complete")
		if !ok {
			continue
		}
		if !prev.IsZero() {
			c.wall = append(c.wall, end.Sub(prev))
		}
		prev = end
		span.lastRound = end
		var wall, cpu time.Duration
		var first, lastEnd time.Time
		var walls []time.Duration
		for _, seat := range []string{"A", "B"} {
			t, ok := readTurn(filepath.Join(r.dir, seat, "log.txt"))
			if !ok {
				continue
			}
			wall, cpu = wall+t.wall, cpu+t.cpu
			if span.firstTurn.IsZero() || t.start.Before(span.firstTurn) {
				span.firstTurn = t.start
			}
			c.overhead = append(c.overhead, t.end.Sub(t.start)-t.wall)
			if first.IsZero() || t.start.Before(first) {
				first = t.start
			}
			if t.end.After(lastEnd) {
				lastEnd = t.end
			}
			walls = append(walls, t.wall)
		}
		if len(walls) == 2 && !before.IsZero() {
			c.before = append(c.before, first.Sub(before))
			c.turns = append(c.turns, lastEnd.Sub(first))
			c.after = append(c.after, end.Sub(lastEnd))
			d := walls[0] - walls[1]
			if d < 0 {
				d = -d
			}
			c.imbalance = append(c.imbalance, d)
		}
		before = end
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
	t, err := time.ParseInLocation("02-01-2006 15:04:05.000", line[:19]+"."+line[20:23], time.Local)
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

// matchTime is where the workers' slots spent the bench's wall time, summed
// over matches: a slot is one match a worker can play at a time.
type matchTime struct {
	slots int
	// wall is the bench's span (the first match queued to the last
	// finished) times the slots.
	wall time.Duration
	// setup: from the match marked running to its first bot turn (the bots
	// fetched, the sandbox started); play: from there to the last round's
	// end; finish: from there to the result stored (the replay, the ratings);
	// idle: the rest, a slot with no match; idleQueued is the part of it
	// while a match waited in the queue (a worker slow to take it), the
	// rest is with nothing queued (the bench's start and its last
	// matches).
	setup, play, finish, idle, idleQueued time.Duration
	// setupP50 is the median match's setup: the first match of a worker
	// also starts its caches.
	setupP50 time.Duration
}

// spendOf adds up each match's parts; matches are each match's times as
// the database recorded them, spans the same matches' replays.
func spendOf(matches []queuedMatch, spans []matchSpan, slots int, span time.Duration) matchTime {
	t := matchTime{slots: slots, wall: time.Duration(slots) * span}
	var busy time.Duration
	var setups []time.Duration
	for i, m := range matches {
		busy += m.finished.Sub(m.started)
		if i >= len(spans) || spans[i].firstTurn.IsZero() {
			continue
		}
		s := spans[i]
		t.setup += s.firstTurn.Sub(m.started)
		setups = append(setups, s.firstTurn.Sub(m.started))
		t.play += s.lastRound.Sub(s.firstTurn)
		t.finish += m.finished.Sub(s.lastRound)
	}
	t.idle = t.wall - busy
	t.idleQueued = idleWhileQueued(matches, slots)
	slices.Sort(setups)
	t.setupP50 = quantile(setups, 0.5)
	return t
}

// queuedSpan is the bench's span less the slots' idle time with nothing
// queued: how long the matches would have taken a fleet that never ran out
// of work.
func (t matchTime) queuedSpan() time.Duration {
	return (t.wall - (t.idle - t.idleQueued)) / time.Duration(max(1, t.slots))
}

func (t matchTime) share(d time.Duration) string {
	if t.wall <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(d)/float64(t.wall))
}

// queuedMatch is one match's times as the database recorded them.
type queuedMatch struct {
	created, started, finished time.Time
}

// idleWhileQueued is the slot time with no match on it while a match
// waited in the queue: at each moment, the free slots while any match was
// queued and not yet started. A fleet that never ran out of work would
// still lose this time; the rest of the idle time it would not.
func idleWhileQueued(matches []queuedMatch, slots int) time.Duration {
	type event struct {
		at              time.Time
		queued, running int
	}
	var events []event
	for _, m := range matches {
		events = append(events, event{m.created, 1, 0}, event{m.started, -1, 1}, event{m.finished, 0, -1})
	}
	slices.SortStableFunc(events, func(a, b event) int { return a.at.Compare(b.at) })
	var idle time.Duration
	queued, running := 0, 0
	for i, e := range events {
		if i > 0 && queued > 0 {
			idle += time.Duration(max(0, slots-running)) * e.at.Sub(events[i-1].at)
		}
		queued += e.queued
		running += e.running
	}
	return idle
}
