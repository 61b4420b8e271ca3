package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/internal/web"
)

// testBundle is one test's portal on a fresh database.
type testBundle struct {
	ctx   context.Context
	pool  *pgxpool.Pool
	st    *store.Store
	blobs *blob.Bucket
	queue *recordingQueue
	srv   *httptest.Server
}

// recordingQueue notes what was enqueued, inside the caller's transaction,
// so a rolled-back upload leaves no job behind either.
type recordingQueue struct {
	mu      sync.Mutex
	builds  []int64
	matches []int64
}

func (q *recordingQueue) EnqueueBuildTx(ctx context.Context, tx pgx.Tx, versionID int64) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.builds = append(q.builds, versionID)
	return true, nil
}

func (q *recordingQueue) EnqueueMatchTx(ctx context.Context, tx pgx.Tx, matchID int64) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.matches = append(q.matches, matchID)
	return true, nil
}

func setup(t *testing.T, inspect botupload.Inspector) *testBundle {
	t.Helper()
	return setupFull(t, inspect, "mem://", nil)
}

// setupWith is setup with the handler's configuration changed by tune.
func setupWith(t *testing.T, inspect botupload.Inspector, tune func(*web.Config)) *testBundle {
	t.Helper()
	return setupFull(t, inspect, "mem://", tune)
}

// setupBucket is setup with the blob store at bucketURL.
func setupBucket(t *testing.T, inspect botupload.Inspector, bucketURL string) *testBundle {
	t.Helper()
	return setupFull(t, inspect, bucketURL, nil)
}

// setupFull is setup with the blob store at bucketURL and the handler's
// configuration changed by tune (when not nil).
func setupFull(t *testing.T, inspect botupload.Inspector, bucketURL string, tune func(*web.Config)) *testBundle {
	t.Helper()
	q := &recordingQueue{}
	b := boot(t, inspect, bucketURL, tune, func(*pgxpool.Pool) web.Queue { return q })
	b.queue = q
	return b
}

// setupRiver is setup with the platform's own River queue on the test's
// database instead of a recording one; its bundle's queue is nil.
func setupRiver(t *testing.T) (*testBundle, *jobs.Client) {
	t.Helper()
	var client *jobs.Client
	b := boot(t, nil, "mem://", nil, func(pool *pgxpool.Pool) web.Queue {
		var err error
		if client, err = jobs.NewClient(pool); err != nil {
			t.Fatal(err)
		}
		return client
	})
	return b, client
}

// boot starts a portal on a fresh database with the queue made by queue,
// in parallel with the other tests.
func boot(t *testing.T, inspect botupload.Inspector, bucketURL string, tune func(*web.Config), queue func(*pgxpool.Pool) web.Queue) *testBundle {
	t.Helper()
	t.Parallel()
	return startPortal(t, inspect, bucketURL, tune, queue)
}

// startPortal is boot for a test that runs several portals.
func startPortal(t *testing.T, inspect botupload.Inspector, bucketURL string, tune func(*web.Config), queue func(*pgxpool.Pool) web.Queue) *testBundle {
	t.Helper()
	return startPortalOn(t, testdb.NewPool(t), inspect, bucketURL, tune, queue)
}

// startPortalOn is startPortal on the database of pool.
func startPortalOn(t *testing.T, pool *pgxpool.Pool, inspect botupload.Inspector, bucketURL string, tune func(*web.Config), queue func(*pgxpool.Pool) web.Queue) *testBundle {
	t.Helper()
	ctx := context.Background()
	st := store.New(pool)
	blobs, err := blob.Open(ctx, bucketURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	cfg := web.DefaultConfig(rulesets.Registry())
	cfg.UploadMaxBytes = 1 << 20
	cfg.LoginAttempts = 5
	cfg.LeaderboardTTL = 0 // tests read back what they just wrote
	if tune != nil {
		tune(&cfg)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := web.New(st, blobs, queue(pool), inspect, logger, cfg)
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	// Live pages follow match events as the portal does; stopping it ends
	// their streams before the server closes.
	liveCtx, stopLive := context.WithCancel(ctx)
	go h.RunLive(liveCtx)
	t.Cleanup(stopLive)
	return &testBundle{ctx: ctx, pool: pool, st: st, blobs: blobs, srv: srv}
}

func (q *recordingQueue) matchIDs() []int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]int64(nil), q.matches...)
}

func (q *recordingQueue) buildIDs() []int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]int64(nil), q.builds...)
}

// browser is a client with its own cookies that does not follow redirects.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (b *testBundle) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: b.srv.URL, c: &http.Client{
		Jar:           jar,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type response struct {
	status int
	header http.Header
	body   string
}

func (br *browser) do(req *http.Request) response {
	br.t.Helper()
	res, err := br.c.Do(req)
	if err != nil {
		br.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		br.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(body)}
}

func (br *browser) get(path string) response {
	br.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, br.base+path, nil)
	return br.do(req)
}

var csrfPattern = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// token fetches a page and returns the form token in it.
func (br *browser) token(path string) string {
	br.t.Helper()
	res := br.get(path)
	m := csrfPattern.FindStringSubmatch(res.body)
	if m == nil {
		br.t.Fatalf("no form token on %s (status %d)", path, res.status)
	}
	return m[1]
}

// post sends a form; a "csrf_token" of "-" means: take it from the page at path first.
func (br *browser) post(path string, form url.Values) response {
	br.t.Helper()
	if form.Get("csrf_token") == "-" {
		form.Set("csrf_token", br.token(pageOf(path)))
	}
	req, _ := http.NewRequest(http.MethodPost, br.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return br.do(req)
}

// pageOf is the page whose form posts to path.
func pageOf(path string) string {
	switch {
	case path == "/logout", strings.HasPrefix(path, "/account/"):
		return "/account"
	case strings.HasSuffix(path, "/challenge"):
		return strings.TrimSuffix(path, "/challenge")
	case strings.HasPrefix(path, "/clans/"), strings.HasPrefix(path, "/challenges/"):
		return "/clans"
	}
	return path
}

// register makes an account and leaves the browser logged in.
func (br *browser) register(name string) {
	br.t.Helper()
	res := br.post("/register", url.Values{"username": {name}, "password": {"correct horse"}, "csrf_token": {"-"}})
	if res.status != http.StatusSeeOther {
		br.t.Fatalf("register %s: status %d: %s", name, res.status, res.body)
	}
}

func (b *testBundle) count(t *testing.T, table string) int {
	t.Helper()
	var n int
	if err := b.st.DB().QueryRow(b.ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
