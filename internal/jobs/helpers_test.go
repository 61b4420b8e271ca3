package jobs_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
)

// zipDir zips a bot folder as a contestant would, with its files'
// permission bits (an executable script, a run.sh without its bit), plus
// extra files.
func zipDir(t testing.TB, dir string, extra map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := zip.FileInfoHeader(info)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Name, h.Method = filepath.ToSlash(rel), zip.Deflate
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range extra {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// env is one test's platform: a database of its own, a bucket, a client.
type env struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	st     *store.Store
	bucket *blob.Bucket
	client *jobs.Client
	owner  int64
	// worker is the worker this process runs, if any (runWorker): waits
	// follow its job events.
	worker *jobs.Worker
}

func newEnv(t *testing.T, pool *pgxpool.Pool, bucketDir string) *env {
	t.Helper()
	ctx := context.Background()
	b, err := blob.Open(ctx, bucketDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	c, err := jobs.NewClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{ctx: ctx, pool: pool, st: store.New(pool), bucket: b, client: c}
	if err := pool.QueryRow(ctx, `INSERT INTO users (username, password_hash) VALUES ('owner', 'x') RETURNING id`).Scan(&e.owner); err != nil {
		t.Fatal(err)
	}
	return e
}

// upload records a bot zip through the portal's own upload service:
// check the zip, store it, record the version and queue its build, all or
// nothing.
func (e *env) upload(t *testing.T, name string, data []byte) int64 {
	t.Helper()
	limits := botzip.DefaultLimits()
	svc := botupload.New(e.st, e.bucket, e.client, botupload.ZipInspector{Limits: limits},
		slog.New(slog.DiscardHandler), botupload.Limits{MaxBytes: limits.MaxZipBytes}, rulesets.Registry())
	res, err := svc.Save(e.ctx, botupload.Upload{OwnerID: e.owner, Name: name, Zip: bytes.NewReader(data), Size: int64(len(data))})
	if err != nil {
		t.Fatalf("upload %s: %v", name, err)
	}
	return res.VersionID
}

// waitBuilt waits for a version's build to end and returns it.
func (e *env) waitBuilt(t *testing.T, versionID int64, within time.Duration) *store.BotVersion {
	t.Helper()
	var v *store.BotVersion
	e.waitFor(t, within, fmt.Sprintf("build of version %d", versionID), func() bool {
		var err error
		v, err = e.st.BotVersionGetByID(e.ctx, versionID)
		return err == nil && (v.BuildStatus == store.BuildOK || v.BuildStatus == store.BuildFailed)
	})
	return v
}

// createMatch records a ranked Entelect match on the small map between
// bots' current versions and queues it, as the ladder does.
func (e *env) createMatch(t *testing.T, seed int64, botIDs ...int64) int64 {
	t.Helper()
	return e.createGameMatch(t, "entelect", 1, seed, botIDs...)
}

// createGameMatch records a ranked ladder match of the given game and map
// size (0: the game's default) between bots' current versions and queues it.
func (e *env) createGameMatch(t *testing.T, game string, mapSize int, seed int64, botIDs ...int64) int64 {
	t.Helper()
	return e.queueMatch(t, store.MatchCreateParams{Game: game, MapSize: mapSize, Seed: seed, Kind: "ladder", Ranked: true}, botIDs)
}

// queueMatch records p between bots' current versions and queues it.
func (e *env) queueMatch(t *testing.T, p store.MatchCreateParams, botIDs []int64) int64 {
	t.Helper()
	return e.queueMatchWith(t, p, botIDs, nil)
}

// queueMatchWith is queueMatch, with also done (when not nil) in the
// transaction that records and queues the match.
func (e *env) queueMatchWith(t *testing.T, p store.MatchCreateParams, botIDs []int64, also func(st *store.Store, id int64) error) int64 {
	t.Helper()
	for _, id := range botIDs {
		b, err := e.st.BotGetByID(e.ctx, id)
		if err != nil || b.CurrentVersionID == nil {
			t.Fatalf("bot %d not ready: %v", id, err)
		}
		p.Players = append(p.Players, store.MatchPlayerParams{BotID: id, BotVersionID: *b.CurrentVersionID})
	}
	var id int64
	err := e.st.InTx(e.ctx, func(tx pgx.Tx, st *store.Store) error {
		m, err := st.MatchCreate(e.ctx, p)
		if err != nil {
			return err
		}
		id = m.ID
		if also != nil {
			if err := also(st, m.ID); err != nil {
				return err
			}
		}
		_, err = e.client.EnqueueMatchTx(e.ctx, tx, m.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *env) waitMatch(t *testing.T, id int64, within time.Duration) *store.MatchRow {
	t.Helper()
	var m *store.MatchRow
	e.waitFor(t, within, fmt.Sprintf("match %d", id), func() bool {
		var err error
		m, err = e.st.MatchDetailGet(e.ctx, id)
		return err == nil && (m.Status == store.MatchFinished || m.Status == store.MatchFailed)
	})
	return m
}

// waitFor waits until done holds, for at most within. With a worker in
// this process, done is checked again each time one of its jobs ends
// (River's event subscription), the only moments its answer can change.
// A worker in another process announces nothing this process can
// subscribe to for builds, so there done is polled with a deadline: the
// one place a poll is acceptable, across processes.
func (e *env) waitFor(t *testing.T, within time.Duration, what string, done func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	var wake <-chan *river.Event
	var tick <-chan time.Time
	if e.worker != nil {
		// Subscribed before the first check, so no job's end is missed.
		events, stop := e.worker.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
			river.EventKindJobCancelled, river.EventKindJobSnoozed)
		defer stop()
		wake = events
	} else {
		ticker := time.NewTicker(100 * time.Millisecond)
		defer ticker.Stop()
		tick = ticker.C
	}
	for !done() {
		select {
		case <-wake:
		case <-tick:
		case <-deadline.C:
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
	}
}

func (e *env) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(e.ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
