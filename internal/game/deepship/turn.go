package deepship

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// penaltyFor is the lateness penalty of an answer after elapsed with an
// allowance of limit: one point per started second past the allowance.
func penaltyFor(elapsed, limit time.Duration) int {
	if elapsed <= limit {
		return 0
	}
	return int((elapsed - limit + time.Second - 1) / time.Second)
}

// placement asks both players for their ships at once, each within its own
// window, and reports who placed.
func (m *round) placement(ctx context.Context, rg *ReplayGame) ([2]bool, error) {
	var placed [2]bool
	var events [2][]ReplayEvent
	var wg sync.WaitGroup
	for i, p := range m.players {
		p.board = nil
		wg.Add(1)
		go func() {
			defer wg.Done()
			placed[i], events[i] = p.place(ctx, m.opts.NoLimit)
		}()
	}
	wg.Wait()
	rg.Events = append(append(rg.Events, events[0]...), events[1]...)
	return placed, ctx.Err()
}

// place waits for one player's valid placement and returns the events of
// its placement for the replay. It touches only p.
func (p *player) place(ctx context.Context, noLimit bool) (bool, []ReplayEvent) {
	var events []ReplayEvent
	var start, cutoff time.Time
	var limit time.Duration
	// ask starts the game for the bot and its placement window.
	ask := func() {
		// The clock starts before the request is written: taken after,
		// a fast answer stamped by the reader could come "before" it.
		start, limit = time.Now(), PlaceTime
		p.send("game-start")
		p.send("place-ships")
		if p.fresh {
			limit += p.bot.Calibration
			p.fresh = false
		}
		if !noLimit {
			cutoff = start.Add(limit + grace)
		}
	}
	ask()
	for {
		l, st := p.conn.next(ctx, cutoff)
		switch st {
		case cancelled:
			return false, events
		case gone:
			p.failure = "the program ended"
			p.log.Printf("%s: %s before placing its ships\n", p.clock(), p.failure)
			if p.restarts == 0 && ctx.Err() == nil {
				// Nothing of the game has happened yet: the restarted
				// program places in a window of its own.
				events = append(events, ReplayEvent{Player: p.idx, Kind: "restart", Note: p.failure})
				p.fail()
				if p.start(ctx); p.conn != nil {
					ask()
					continue
				}
			}
			return false, append(events, ReplayEvent{Player: p.idx, Kind: "failure", Note: "the program ended"})
		case timedOut:
			p.penalize(SkipPenalty, "no placement within %s", limit+grace)
			p.failure = "did not place its ships in time"
			return false, append(events, ReplayEvent{Player: p.idx, Kind: "failure", Penalty: SkipPenalty, Note: p.failure})
		}
		if !p.heard(l) || !strings.HasPrefix(l.text, "place-ships;") {
			continue
		}
		ships, err := ParsePlacement(l.text)
		if err != nil {
			p.penalize(InvalidPenalty, "invalid placement: %v", err)
			events = append(events, ReplayEvent{Player: p.idx, Kind: "invalid", Note: "invalid placement", Penalty: InvalidPenalty})
			p.send("place-ships")
			continue
		}
		p.log.Printf("%s: placed in %s of the %s allowed\n", p.clock(), l.at.Sub(start).Round(time.Millisecond), limit)
		if !noLimit {
			if n := penaltyFor(l.at.Sub(start), limit); n > 0 {
				p.penalize(n, "placed %s late", (l.at.Sub(start) - limit).Round(time.Millisecond))
				events = append(events, ReplayEvent{Player: p.idx, Kind: "late", Penalty: n})
			}
		}
		p.board = NewBoard(ships)
		return true, events
	}
}

// takeTurn asks p for one shot. ok is false when the turn was skipped or p
// failed (p.failure is then set). err is set only when ctx ended.
func (m *round) takeTurn(ctx context.Context, p *player, rg *ReplayGame) (Coord, bool, error) {
	if p.conn.stuck {
		p.failure = "stopped reading its input"
		return Coord{}, false, nil
	}
	p.discardStale("before the request")
	// The clock starts before the request is written (see place).
	start := time.Now()
	p.send("take-turn")
	var cutoff time.Time
	if !m.opts.NoLimit {
		cutoff = start.Add(MoveTime + grace)
	}
	for {
		l, st := p.conn.next(ctx, cutoff)
		switch st {
		case cancelled:
			return Coord{}, false, ctx.Err()
		case gone:
			p.failure = "the program ended"
			p.log.Printf("%s: %s\n", p.clock(), p.failure)
			rg.Events = append(rg.Events, ReplayEvent{Player: p.idx, Kind: "failure", Note: p.failure})
			return Coord{}, false, nil
		case timedOut:
			// The bot still owes this answer: when it comes, it is
			// discarded rather than taken for the next request.
			p.owed++
			p.skips++
			p.penalize(SkipPenalty, "no shot within %s: turn skipped", MoveTime+grace)
			rg.Events = append(rg.Events, ReplayEvent{Player: p.idx, Kind: "skip", Penalty: SkipPenalty})
			if p.skips >= maxSkips {
				p.failure = fmt.Sprintf("unresponsive: %d turns skipped in a row", p.skips)
				rg.Events = append(rg.Events, ReplayEvent{Player: p.idx, Kind: "failure", Note: p.failure})
			}
			return Coord{}, false, nil
		}
		if !p.heard(l) || !strings.HasPrefix(l.text, "take-turn;") {
			continue
		}
		if p.owed > 0 {
			p.owed--
			p.log.Printf("%s: discarded: the late answer to a skipped turn\n", p.clock())
			continue
		}
		c, err := ParseCoord(strings.TrimPrefix(l.text, "take-turn;"))
		if err != nil {
			p.penalize(InvalidPenalty, "invalid shot: %v", err)
			rg.Events = append(rg.Events, ReplayEvent{Player: p.idx, Kind: "invalid", Note: "malformed shot", Penalty: InvalidPenalty})
			p.send("take-turn")
			continue
		}
		if !c.OnBoard() {
			p.penalize(InvalidPenalty, "invalid shot: %s is off the board (A-I, 0-10)", c)
			rg.Events = append(rg.Events, ReplayEvent{Player: p.idx, Kind: "invalid", Coord: c.String(), Note: "off the board", Penalty: InvalidPenalty})
			p.send("take-turn")
			continue
		}
		p.skips = 0
		p.log.Printf("%s: answered in %s of the %s allowed\n", p.clock(), l.at.Sub(start).Round(time.Millisecond), MoveTime)
		if !m.opts.NoLimit {
			if n := penaltyFor(l.at.Sub(start), MoveTime); n > 0 {
				p.penalize(n, "shot %s late", (l.at.Sub(start) - MoveTime).Round(time.Millisecond))
				rg.Events = append(rg.Events, ReplayEvent{Player: p.idx, Kind: "late", Penalty: n})
			}
		}
		return c, true, nil
	}
}

// discardStale drops what the bot wrote when no answer was awaited: a late
// answer must not count for the next request.
func (p *player) discardStale(when string) {
	for _, l := range p.conn.drain() {
		if strings.HasPrefix(l.text, "take-turn;") && p.owed > 0 {
			p.owed--
		}
		p.logLine(l, "discarded: arrived "+when)
	}
}

// heard logs a line from the bot and reports whether it can be an answer:
// overlong lines and the optional replies to round-start and game-start are
// not.
func (p *player) heard(l line) bool {
	switch {
	case l.tooLong:
		p.logLine(l, fmt.Sprintf("ignored: a line of %d bytes or more", maxLine))
		return false
	case l.text == "round-start" || l.text == "game-start":
		p.logLine(l, "")
		return false
	case strings.HasPrefix(l.text, "take-turn;") || strings.HasPrefix(l.text, "place-ships;"):
		p.logLine(l, "")
		return true
	}
	p.logLine(l, "ignored: not a message")
	return false
}

func (p *player) logLine(l line, note string) {
	at := "-"
	if p.conn != nil {
		at = l.at.Sub(p.conn.started).Round(time.Millisecond).String()
	}
	if note != "" {
		note = "  (" + note + ")"
	}
	p.log.Printf("%s -> %s%s\n", at, l.text, note)
}

func (p *player) penalize(points int, format string, args ...any) {
	p.score.Penalties += points
	p.log.Printf("%s: penalty %d: %s\n", p.clock(), points, fmt.Sprintf(format, args...))
}
