package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/broadside/broadside/internal/duel"
)

// progress is the duel's progress line on standard error: redrawn in place
// on a terminal, else one line every few seconds (a log, a CI job).
type progress struct {
	w       io.Writer
	tty     bool
	total   int
	started time.Time

	mu    sync.Mutex
	score duel.Score
	drawn bool // a line is on the terminal, to be cleared at the end
}

// progressEvery is how often a line is printed where stderr is no terminal.
const progressEvery = 5 * time.Second

func newProgress(w io.Writer, total int, started time.Time) *progress {
	f, ok := w.(*os.File)
	tty := false
	if ok {
		st, err := f.Stat()
		tty = err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return &progress{w: w, tty: tty, total: total, started: started}
}

// update takes the duel's tally after a counted game.
func (p *progress) update(r duel.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.score = r.Score
	if p.tty {
		p.draw()
	}
}

// draw writes the line; the caller holds mu.
func (p *progress) draw() {
	// Short enough for an 80-column terminal, where a wrapped line could
	// not be redrawn in place.
	s := p.score
	lo, hi := duel.Wilson95(s)
	line := fmt.Sprintf("duel: %d/%d games, A %d B %d draws %d, A's rate %.1f%% [%.1f, %.1f], %s", s.Games(), p.total,
		s.WinsA, s.WinsB, s.Draws, 100*s.Rate(), 100*lo, 100*hi, time.Since(p.started).Round(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// start redraws the line every second on a terminal (for the clock), else
// prints one every progressEvery, until the returned stop is called, which
// also clears the terminal's line.
func (p *progress) start(ctx context.Context) (stop func()) {
	every := progressEvery
	if p.tty {
		every = time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	}()
	return func() {
		cancel()
		<-done
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.drawn {
			fmt.Fprint(p.w, "\r\x1b[K")
		}
	}
}
