package jobs

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// publishTimeout bounds one publication: a slow database must not hold
// the match up, and a lost batch only leaves the live view behind.
const publishTimeout = 5 * time.Second

// DefaultLiveEvery is how often a match's rounds are published at most. A round
// of two quick bots takes tens of milliseconds; one statement and one
// notification per round cost the worker and the database more than the
// viewer gains, so the rounds played since the last publication go
// together, in one statement with one notification. The viewer still
// gets every round, a quarter of a second late at most.
const DefaultLiveEvery = 250 * time.Millisecond

// livePublisher is the Progress hook of a match: it stores the rounds'
// public files and announces them on match_events, so every portal can
// show the match as it is played. Nothing is published until somebody
// follows the match (watch): most matches are played with nobody
// watching, and their rounds would cost the worker and the database a
// statement and a notification each for no one. From then on it
// publishes the rounds held at once, then at most once per every, off the
// match's own goroutine; Close publishes what is left. A failure is
// logged and the match goes on; the replay stored at the end is complete
// regardless.
type livePublisher struct {
	st      *store.Store
	matchID int64
	log     *slog.Logger
	every   time.Duration
	ctx     context.Context

	// flushing makes publications one at a time, in order.
	flushing sync.Mutex

	mu      sync.Mutex
	pending []store.LiveRound
	timer   *time.Timer // the next publication, when one is due
	last    time.Time   // the last publication's start
	watched bool        // somebody follows the match: publish
	closed  bool
}

func newLivePublisher(ctx context.Context, st *store.Store, matchID int64, log *slog.Logger, every time.Duration) *livePublisher {
	return &livePublisher{st: st, matchID: matchID, log: log, every: every, ctx: ctx}
}

// Progress takes one round; it never waits for the database.
func (p *livePublisher) Progress(_ context.Context, r game.RoundProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	// The rule set may reuse its map for the next round.
	p.pending = append(p.pending, store.LiveRound{Seq: r.Seq, Name: r.Name, Files: maps.Clone(r.Files)})
	p.schedule()
}

// watch starts the publications: somebody follows the match. The rounds
// held so far go at once.
func (p *livePublisher) watch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.watched || p.closed {
		return
	}
	p.watched = true
	p.schedule()
}

// schedule arranges the next publication when the match is watched and
// has rounds waiting; p.mu is held.
func (p *livePublisher) schedule() {
	if p.watched && p.timer == nil && len(p.pending) > 0 {
		p.timer = time.AfterFunc(max(0, p.every-time.Since(p.last)), p.flush)
	}
}

// flush publishes the rounds pending.
func (p *livePublisher) flush() {
	p.flushing.Lock()
	defer p.flushing.Unlock()
	p.mu.Lock()
	batch := p.pending
	p.pending, p.timer, p.last = nil, nil, time.Now()
	p.mu.Unlock()
	if len(batch) == 0 || p.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, publishTimeout)
	defer cancel()
	if err := p.st.MatchLiveRoundsAdd(ctx, p.matchID, batch); err != nil {
		p.log.Warn("match: publish rounds", "first", batch[0].Name, "rounds", len(batch), "err", err)
	}
}

// Close publishes the rounds not published yet, when the match is
// watched, and waits for it; rounds given after it are dropped. Call it
// once the match is played, before its result is recorded (which clears
// its live rounds).
func (p *livePublisher) Close() {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop() // a flush already running takes the flushing lock first
	}
	watched := p.watched
	p.mu.Unlock()
	if watched {
		p.flush()
	}
}

// watchFor is how long a match counts as followed after a portal said so;
// portals say it again every watchRenew (internal/web) while somebody
// follows it, so a notification lost to a reconnecting listener costs a
// few seconds of the live view at most.
const watchFor = 30 * time.Second

// liveWatch is which running matches somebody follows live, as the
// portals announce them on match_watch, and the publishers of this
// worker's matches. An announcement may come before the match starts
// here (a page opened on a queued match), so it is kept for watchFor.
type liveWatch struct {
	mu    sync.Mutex
	until map[int64]time.Time
	pubs  map[int64]*livePublisher
}

func newLiveWatch() *liveWatch {
	return &liveWatch{until: map[int64]time.Time{}, pubs: map[int64]*livePublisher{}}
}

// heard records that match id is followed.
func (lw *liveWatch) heard(id int64) {
	now := time.Now()
	lw.mu.Lock()
	for m, t := range lw.until {
		if now.After(t) {
			delete(lw.until, m)
		}
	}
	lw.until[id] = now.Add(watchFor)
	p := lw.pubs[id]
	lw.mu.Unlock()
	if p != nil {
		p.watch()
	}
}

// add registers the publisher of match id for its announcements; remove
// it once the match is played.
func (lw *liveWatch) add(id int64, p *livePublisher) (remove func()) {
	lw.mu.Lock()
	lw.pubs[id] = p
	watched := time.Now().Before(lw.until[id])
	lw.mu.Unlock()
	if watched {
		p.watch()
	}
	return func() {
		lw.mu.Lock()
		defer lw.mu.Unlock()
		if lw.pubs[id] == p {
			delete(lw.pubs, id)
		}
	}
}

// run listens on match_watch until ctx ends, again a second after each
// failure.
func (lw *liveWatch) run(ctx context.Context, st *store.Store, log *slog.Logger) {
	store.KeepListening(ctx, time.Second,
		func(ctx context.Context) error { return st.MatchWatchListen(ctx, lw.heard) },
		func(err error) { log.Warn("live: listen for watched matches", "err", err) })
}

// publishBuildLog is the progress hook of a build: it stores each chunk of
// the log as it is written and announces it on build_events, so the bot's
// page shows the build as it runs. A failure is logged and the build goes
// on; its whole log is recorded at the end regardless.
func publishBuildLog(st *store.Store, versionID int64, log *slog.Logger) func(context.Context, string) {
	seq := 0
	return func(ctx context.Context, chunk string) {
		ctx, cancel := context.WithTimeout(ctx, publishTimeout)
		defer cancel()
		if err := st.BuildLogAppend(ctx, versionID, store.BuildLogChunk{Seq: seq, Text: chunk}); err != nil {
			log.Warn("build: publish log", "version_id", versionID, "err", err)
		}
		seq++
	}
}
