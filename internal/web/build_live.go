package web

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/broadside/broadside/internal/store"
)

// buildHub follows the build_events channel on one database connection and
// fans each event out to the bot pages watching that build: a log chunk is
// read once, however many pages watch it.
type buildHub struct {
	store  *store.Store
	logger *slog.Logger
	*fanout[*liveBuild]
}

// liveBuild is a build in progress with watchers: how much of its log was
// read.
type liveBuild struct{ next int }

func newBuildHub(st *store.Store, logger *slog.Logger) *buildHub {
	return &buildHub{store: st, logger: logger, fanout: newFanout[*liveBuild]()}
}

// run listens until ctx ends, reconnecting after a failure.
func (h *buildHub) run(ctx context.Context) {
	h.fanout.run(ctx, h.logger, "build events", func(ctx context.Context, ready func()) error {
		return h.store.BuildEventsListen(ctx, ready, func(ev store.BuildEvent) { h.dispatch(ctx, ev) })
	}, h.resync)
}

// resync brings the streams of build versionID up to date after the
// listener missed its events: the chunks written meanwhile, or the end.
func (h *buildHub) resync(ctx context.Context, versionID int64) {
	v, err := h.store.BotVersionGetByID(ctx, versionID)
	if err != nil {
		h.logger.WarnContext(ctx, "live: build status", "version_id", versionID, "err", err)
		return
	}
	if buildOver(v.BuildStatus) {
		h.dispatch(ctx, store.BuildEvent{Version: versionID, Status: v.BuildStatus})
		return
	}
	seq := 0 // any chunk number: the chunks are read from the last one read
	h.dispatch(ctx, store.BuildEvent{Version: versionID, Seq: &seq})
}

func (h *buildHub) watch(versionID int64) (chan sseEvent, func()) {
	return h.fanout.watch(versionID, func() *liveBuild { return &liveBuild{} })
}

func (h *buildHub) dispatch(ctx context.Context, ev store.BuildEvent) {
	h.deliver(ev.Version, func(lb **liveBuild) ([]sseEvent, bool) {
		switch {
		case ev.Seq != nil:
			chunks, err := h.store.BuildLogChunks(ctx, ev.Version, (*lb).next)
			if err != nil {
				h.logger.WarnContext(ctx, "live: build log", "version_id", ev.Version, "err", err)
				return nil, false
			}
			var out []sseEvent
			for _, c := range chunks {
				out = append(out, logEvent(c))
				(*lb).next = c.Seq + 1
			}
			return out, false
		case ev.Status == store.BuildQueued:
			return nil, false
		case ev.Status == store.BuildBuilding:
			// The build started, or another attempt did: its log
			// starts again.
			(*lb).next = 0
			return []sseEvent{{name: "restart", data: statusJSON(ev.Status)}}, false
		default:
			return []sseEvent{{name: "end", data: statusJSON(ev.Status)}}, true
		}
	})
}

// logEvent is a "log" event of one chunk; its id is the chunk's number.
func logEvent(c store.BuildLogChunk) sseEvent {
	data, _ := json.Marshal(map[string]any{"seq": c.Seq, "text": c.Text})
	return sseEvent{name: "log", data: data, id: strconv.Itoa(c.Seq), text: c.Text}
}

func buildOver(status string) bool { return status == store.BuildOK || status == store.BuildFailed }

// buildEvents is a bot version's build as a server-sent event stream:
// "status" on connecting, "restart" when the build (or another attempt of
// it) starts and its log starts again, "log" with each
// piece of the build log as the worker writes it (to the bot's owner only,
// from the start or after the Last-Event-ID a reconnecting client sends),
// and "end" when the build is over (at once for a build already over).
func (h *Handler) buildEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ownerID, ver, err := h.buildVersion(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	owner := h.base(r, "").UserID == ownerID
	release, ok := h.takeStream(w, r)
	if !ok {
		return
	}
	defer release()
	sse := startSSE(w)
	if buildOver(ver.BuildStatus) {
		sse.send(sseEvent{name: "end", data: statusJSON(ver.BuildStatus)})
		return
	}
	ch, stop := h.builds.watch(ver.ID)
	defer stop()
	// The build may have ended between reading it and watching it. Its
	// status and the owner's chunks are read in one snapshot: the end of
	// a build deletes its chunks in the transaction that records it, so a
	// build still running here has all its chunks here.
	var (
		now    *store.BotVersion
		chunks []store.BuildLogChunk
	)
	err = h.store.InSnapshot(ctx, func(st *store.Store) error {
		var err error
		if now, err = st.BotVersionGetByID(ctx, ver.ID); err != nil || buildOver(now.BuildStatus) || !owner {
			return err
		}
		chunks, err = st.BuildLogChunks(ctx, ver.ID, 0)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			h.logger.WarnContext(ctx, "live: build status", "version_id", ver.ID, "err", err)
		}
		return
	}
	if buildOver(now.BuildStatus) {
		sse.send(sseEvent{name: "end", data: statusJSON(now.BuildStatus)})
		return
	}
	if !sse.send(sseEvent{name: "status", data: statusJSON(now.BuildStatus)}) {
		return
	}
	// next is the first chunk this client has not had.
	next := 0
	if n, err := strconv.Atoi(r.Header.Get("Last-Event-ID")); err == nil && n >= 0 {
		next = n + 1
	}
	h.followBuild(ctx, sse, ch, ver.ID, owner, next, chunks)
}

// buildVersion is the bot version the request names, with its bot's owner.
func (h *Handler) buildVersion(r *http.Request) (ownerID int64, ver *store.BotVersionRow, err error) {
	ctx := r.Context()
	botID, err := pathID(r, "id")
	if err != nil {
		return 0, nil, err
	}
	number, err := strconv.Atoi(chi.URLParam(r, "n"))
	if err != nil {
		return 0, nil, refuse(http.StatusNotFound, "There is no such version.")
	}
	b, err := h.store.BotDetailGet(ctx, botID)
	if err != nil {
		return 0, nil, err
	}
	versions, err := h.store.BotVersionRows(ctx, botID)
	if err != nil {
		return 0, nil, err
	}
	for i := range versions {
		if versions[i].Number == number {
			ver = &versions[i]
		}
	}
	if ver == nil {
		return 0, nil, refuse(http.StatusNotFound, "There is no such version.")
	}
	return b.OwnerID, ver, nil
}

// followBuild streams a running build's events from ch until it ends: to
// its owner, the log from chunk next on (starting with chunks, the build's
// chunks when the stream began), read back from the database whenever
// the stream falls behind the fan-out, and at the end the part of the
// recorded log it still lacks.
func (h *Handler) followBuild(ctx context.Context, sse *sseStream, ch <-chan sseEvent, versionID int64, owner bool, next int, chunks []store.BuildLogChunk) {
	// The chunks go when the build ends, possibly before the fan-out has
	// read the last of them, so the stream keeps what it needs to finish
	// the log from the record: the chunks the client has (0 to next-1),
	// their length and a hash of their text. A reconnecting client's
	// earlier chunks are counted from chunks; known is false if some of
	// them were missing.
	had, sum := 0, fnv.New64a()
	add := func(text string) {
		had += len(text)
		sum.Write([]byte(text))
	}
	// take counts the chunks the client has and returns those it lacks.
	take := func(chunks []store.BuildLogChunk) []sseEvent {
		var out []sseEvent
		for _, c := range chunks {
			if c.Seq >= next {
				out = append(out, logEvent(c))
				next = c.Seq + 1
			}
			add(c.Text)
		}
		return out
	}
	earlier := 0
	for _, c := range chunks {
		if c.Seq < next {
			earlier++
		}
	}
	known := earlier == next
	// catchUp reads the chunks the client lacks from the database, after
	// the stream fell behind the fan-out.
	catchUp := func() []sseEvent {
		chunks, err := h.store.BuildLogChunks(ctx, versionID, next)
		if err != nil {
			h.logger.WarnContext(ctx, "live: build log", "version_id", versionID, "err", err)
			return nil
		}
		return take(chunks)
	}
	if owner {
		for _, ev := range take(chunks) {
			if !sse.send(ev) {
				return
			}
		}
	}
	sse.follow(ctx, ch, h.builds.done, func(ev sseEvent) []sseEvent {
		switch ev.name {
		case "log":
			seq, _ := strconv.Atoi(ev.id)
			switch {
			case !owner || seq < next:
				return nil
			case seq > next:
				return catchUp()
			}
			next = seq + 1
			add(ev.text)
		case "restart":
			next, had, known = 0, 0, true
			sum.Reset()
		case "end":
			// The end may overtake the last chunks, or replace them in a
			// stream that fell behind: the owner gets them first.
			if owner {
				out := catchUp()
				if rest, ok := h.logRest(ctx, versionID, had, sum.Sum64(), known); ok {
					out = append(out, logEvent(store.BuildLogChunk{Seq: next, Text: rest}))
				}
				return append(out, ev)
			}
		}
		return []sseEvent{ev}
	})
}

// logRest is the part of a finished build's recorded log after the first
// had bytes, when those bytes hash to sum (the client has them) and some
// are left; the end of a build deletes its chunks, possibly before the
// stream read the last of them.
func (h *Handler) logRest(ctx context.Context, versionID int64, had int, sum uint64, known bool) (string, bool) {
	if !known {
		return "", false
	}
	v, err := h.store.BotVersionGetByID(ctx, versionID)
	if err != nil {
		h.logger.WarnContext(ctx, "live: build log", "version_id", versionID, "err", err)
		return "", false
	}
	if !buildOver(v.BuildStatus) || len(v.BuildLog) <= had {
		return "", false
	}
	prefix := fnv.New64a()
	prefix.Write([]byte(v.BuildLog[:had]))
	if prefix.Sum64() != sum {
		return "", false // the record is not the log the client followed
	}
	return v.BuildLog[had:], true
}
