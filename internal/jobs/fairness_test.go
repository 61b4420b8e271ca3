package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
)

// gatedBuilder stands in for the sandboxed builder where only the order
// of builds matters: each build announces its bot (the manifest's
// NickName) as it starts and lasts until the test lets it end.
type gatedBuilder struct {
	started chan string
	release chan struct{}
}

func (g *gatedBuilder) BuildLive(ctx context.Context, dir string, m botmeta.Manifest, progress func(context.Context, string)) (build.Result, error) {
	select {
	case g.started <- m.NickName:
	case <-ctx.Done():
		return build.Result{}, ctx.Err()
	}
	select {
	case <-g.release:
		return build.Result{OK: true, Log: "built " + m.NickName}, nil
	case <-ctx.Done():
		// What a real build printed before it was stopped.
		return build.Result{Log: "building " + m.NickName + "\n"}, ctx.Err()
	}
}

// TestBuildQueueFair uploads through the portal's upload service, with
// its limits, to a real worker with one build slot: user A fills its
// quota of builds, which take as long as the test wants, a house bot was
// queued before them, and user B uploads one build while A's first runs.
// B's build is the next to start, after only A's running one; the house
// bot's builds after every contestant's; A's upload past its quota is
// refused until one of its builds ends.
func TestBuildQueueFair(t *testing.T) {
	e := setup(t)
	limits := botzip.DefaultLimits()
	svc := botupload.New(e.st, e.bucket, e.client, botupload.ZipInspector{Limits: limits}, slog.New(slog.DiscardHandler),
		botupload.Limits{MaxBytes: limits.MaxZipBytes, MaxQueuedBuilds: 3, PerHour: 20}, rulesets.Registry())
	newUser := func(name string) int64 {
		var id int64
		if err := e.pool.QueryRow(e.ctx, `INSERT INTO users (username, password_hash) VALUES ($1, 'x') RETURNING id`, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	userA, userB, house := e.owner, newUser("b"), newUser("house")
	upload := func(owner int64, name string, isHouse bool) error {
		data := zipDir(t, t.TempDir(), map[string]string{
			"bot.json": fmt.Sprintf(`{"NickName":%q,"BotType":"Python3","RunFile":"bot.py"}`, name), "bot.py": "print(1)\n"})
		_, err := svc.Save(e.ctx, botupload.Upload{OwnerID: owner, Name: name, House: isHouse, Zip: bytes.NewReader(data), Size: int64(len(data))})
		return err
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Queued before anyone's, and more of them than a user's quota.
	for _, name := range []string{"H1", "H2", "H3", "H4"} {
		must(upload(house, name, true))
	}
	for _, name := range []string{"A1", "A2", "A3"} {
		must(upload(userA, name, false))
	}
	var refusal *botupload.Error
	if err := upload(userA, "A4", false); !errors.As(err, &refusal) || refusal.Kind != botupload.TooMany {
		t.Fatalf("A's fourth upload with three builds queued: %v, want a refusal for too many", err)
	}

	g := &gatedBuilder{started: make(chan string), release: make(chan struct{})}
	runWorker(t, e, jobs.Deps{Pool: e.pool, Bucket: e.bucket, Builder: g, WorkDir: t.TempDir(), BuildConcurrency: 1,
		ShutdownGrace: time.Second})
	next := func() string {
		t.Helper()
		// Bounds a failure only: each build starts once the one before
		// was released.
		select {
		case name := <-g.started:
			return name
		case <-time.After(2 * time.Minute):
			t.Fatal("no build started")
			return ""
		}
	}
	order := []string{next()}
	if order[0] != "A1" {
		t.Fatalf("first build: %s, want A1 (the house bots queued earlier come after contestants)", order[0])
	}
	must(upload(userB, "B1", false))
	for len(order) < 8 {
		g.release <- struct{}{}
		order = append(order, next())
	}
	g.release <- struct{}{}
	want := []string{"A1", "B1", "A2", "A3", "H1", "H2", "H3", "H4"}
	if !slices.Equal(order, want) {
		t.Fatalf("builds started in the order %v, want %v", order, want)
	}
	// A's builds ended: its quota is free again.
	e.waitFor(t, time.Minute, "A's builds recorded", func() bool {
		return e.count(t, `SELECT count(*) FROM bot_versions v JOIN bots b ON b.id = v.bot_id
			WHERE b.owner_id = $1 AND v.build_status = 'ok'`, userA) == 3
	})
	must(upload(userA, "A4", false))
}

// TestBuildTimeLimit runs a build that never ends on a worker whose
// build time limit is a few seconds: the build fails once, with what it
// printed and the limit in its log, and is not tried again.
func TestBuildTimeLimit(t *testing.T) {
	e := setup(t)
	g := &gatedBuilder{started: make(chan string, 2), release: make(chan struct{})}
	runWorker(t, e, jobs.Deps{Pool: e.pool, Bucket: e.bucket, Builder: g, WorkDir: t.TempDir(), BuildConcurrency: 1,
		ShutdownGrace: time.Second, Timeouts: jobs.Timeouts{Build: 3 * time.Second, Match: time.Minute}})
	v := e.upload(t, "Slow", zipDir(t, t.TempDir(), map[string]string{
		"bot.json": `{"NickName":"Slow","BotType":"Python3","RunFile":"bot.py"}`, "bot.py": "print(1)\n"}))
	got := e.waitBuilt(t, v, 2*time.Minute)
	if got.BuildStatus != "failed" || !strings.HasPrefix(got.BuildLog, "building Slow\n") ||
		!strings.Contains(got.BuildLog, "ran longer than this platform's build time limit of 3 seconds") {
		t.Fatalf("build %s, log:\n%s", got.BuildStatus, got.BuildLog)
	}
	if n := e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'build' AND state = 'completed' AND attempt = 1`); n != 1 {
		t.Fatalf("%d build jobs completed at their first attempt, want 1 (no retry)", n)
	}
	if len(g.started) != 1 {
		t.Fatalf("the build started %d times", len(g.started))
	}
}
