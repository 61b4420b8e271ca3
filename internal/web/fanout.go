package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// fanout hands the events of one database listener to the streams that
// watch each topic (a match, a build): whatever a topic's event needs from
// the database is read once, under the topic's state S, however many
// streams watch it.
type fanout[S any] struct {
	mu     sync.Mutex
	topics map[int64]*topic[S]
	// done closes when run returns: the streams end with it, so the
	// server can shut down.
	done chan struct{}
}

// topic is one watched thing: its streams and what was read of it so far.
type topic[S any] struct {
	watchers map[chan sseEvent]struct{}
	state    S
}

// sseEvent is one server-sent event. id, when not empty, is sent as the
// event's id, which a reconnecting EventSource sends back.
type sseEvent struct {
	name string
	data []byte
	id   string
	// text is a build log chunk's text, which its stream counts.
	text string
}

// watchBuffer is how many events a slow stream may fall behind before it
// misses some; each stream kind catches up in its own way.
const watchBuffer = 16

func newFanout[S any]() *fanout[S] {
	return &fanout[S]{topics: map[int64]*topic[S]{}, done: make(chan struct{})}
}

// run calls listen until ctx ends, again a second after each failure.
// Each time the listener is ready, resync is called for every topic
// watched: the events committed while nobody listened (before the first
// connection, or during a reconnection) were never announced, and a
// stream waiting for a build's or a match's end would wait forever.
func (f *fanout[S]) run(ctx context.Context, logger *slog.Logger, what string,
	listen func(ctx context.Context, ready func()) error, resync func(ctx context.Context, id int64)) {
	defer close(f.done)
	ready := func() {
		for _, id := range f.ids() {
			resync(ctx, id)
		}
	}
	store.KeepListening(ctx, time.Second,
		func(ctx context.Context) error { return listen(ctx, ready) },
		func(err error) { logger.WarnContext(ctx, "live: "+what, "err", err) })
}

// watch subscribes a stream to topic id; init makes the topic's state when
// it is the first stream.
func (f *fanout[S]) watch(id int64, init func() S) (chan sseEvent, func()) {
	ch := make(chan sseEvent, watchBuffer)
	f.mu.Lock()
	t := f.topics[id]
	if t == nil {
		t = &topic[S]{watchers: map[chan sseEvent]struct{}{}, state: init()}
		f.topics[id] = t
	}
	t.watchers[ch] = struct{}{}
	f.mu.Unlock()
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(t.watchers, ch)
		if len(t.watchers) == 0 && f.topics[id] == t {
			delete(f.topics, id)
		}
	}
}

// ids lists the topics that streams here watch.
func (f *fanout[S]) ids() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]int64, 0, len(f.topics))
	for id := range f.topics {
		out = append(out, id)
	}
	return out
}

// deliver calls next with topic id's state, when a stream here watches
// it, and sends the events it returns to every stream; over ends the
// topic. A stream that fell behind misses events rather than hold up the
// others, but never the events that end a topic: those take the place of
// the oldest events it has not read, since a page waiting for the end
// would otherwise wait forever.
func (f *fanout[S]) deliver(id int64, next func(state *S) (events []sseEvent, over bool)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.topics[id]
	if t == nil {
		return // nobody watches it here
	}
	events, over := next(&t.state)
	if over {
		delete(f.topics, id)
	}
	for _, ev := range events {
		for ch := range t.watchers {
			if over {
				sendEvicting(ch, ev)
				continue
			}
			select {
			case ch <- ev:
			default:
			}
		}
	}
}

// sendEvicting sends ev on ch, dropping the oldest unread events to make
// room. Only deliver sends on ch, under the fan-out's lock, so the room
// made is still there for ev.
func sendEvicting(ch chan sseEvent, ev sseEvent) {
	for {
		select {
		case ch <- ev:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// sseKeepAlive is how often an idle stream gets a comment, so proxies
// keep it open.
const sseKeepAlive = 15 * time.Second

// sseStream is one server-sent event response.
type sseStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startSSE answers r with an event stream.
func startSSE(w http.ResponseWriter) *sseStream {
	rc := http.NewResponseController(w)
	// The stream outlives the server's write timeout.
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sseStream{w: w, rc: rc}
}

// send writes and flushes one event; false means the client is gone.
func (s *sseStream) send(ev sseEvent) bool {
	if ev.id != "" {
		if _, err := fmt.Fprintf(s.w, "id: %s\n", ev.id); err != nil {
			return false
		}
	}
	_, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", ev.name, ev.data)
	return err == nil && s.rc.Flush() == nil
}

// follow sends the events of ch through pass (which may drop or expand
// them) until the client leaves, the fan-out stops, or an "end" event was
// sent; idle, it sends a keep-alive comment.
func (s *sseStream) follow(ctx context.Context, ch <-chan sseEvent, done <-chan struct{}, pass func(sseEvent) []sseEvent) {
	tick := time.NewTicker(sseKeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case ev := <-ch:
			out := []sseEvent{ev}
			if pass != nil {
				out = pass(ev)
			}
			for _, e := range out {
				if !s.send(e) || e.name == "end" {
					return
				}
			}
		case <-tick.C:
			if _, err := fmt.Fprint(s.w, ": keep-alive\n\n"); err != nil || s.rc.Flush() != nil {
				return
			}
		}
	}
}
