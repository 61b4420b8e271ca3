//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testenv"
)

// TestHostileBotsThroughPortal is the hostile-bot suite on the production
// path: each bot (Python, testdata/hostile) is uploaded through the portal's
// API, built and played by a real worker process with its sandbox required,
// in a challenge against the Python starter as a house bot. On the host the
// test samples the worker's session cgroups for the peak memory and number
// of tasks each match reached, and checks that nothing of the bot is left
// and nothing outside its folders changed; on the match, that the house bot
// won and the hostile bot's log says why its turn ended.
func TestHostileBotsThroughPortal(t *testing.T) {
	// Not parallel: wall-time limits need the machine (see startPortal).
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(context.Background())))
	secret := fmt.Sprintf("worker-secret-%d", time.Now().UnixNano())
	// Not under /tmp: the sandbox's /tmp is a private tmpfs, where a
	// write next to the bot's folder would land unseen by the host.
	workDir, err := os.MkdirTemp("/var/tmp", "broadside-hostile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(workDir) })
	bs := startPortal(t, 12*time.Minute, "BROADSIDE_WORKER_SECRET="+secret, "WORK_DIR="+workDir,
		"LADDER_INTERVAL=off", "WORKER_CONCURRENCY=1", "WORKER_BUILD_CONCURRENCY=2")
	ctx := bs.ctx
	pool, err := pgxpool.New(ctx, bs.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	api := hostileAPI{t: t, base: bs.base, token: newAPIToken(t, ctx, store.New(pool), "mallory")}
	house := seedPythonStarter(t, ctx, bs, pool)

	// The listener every host address offers the network bot.
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	marker := fmt.Sprintf("broadside-hostile-%d", time.Now().UnixNano())
	extra := map[string]string{
		"marker.txt": marker,
		"port.txt":   strconv.Itoa(ln.Addr().(*net.TCPAddr).Port),
		"hosts.txt":  strings.Join(hostAddresses(t), "\n"),
	}

	limits := sandbox.TurnDefaults()
	// A session's cgroup holds the bot's turn and the sandbox's supervisor,
	// which has 64 MiB and 32 tasks of its own (docs/sandbox.md).
	memBound, taskBound := limits.MemoryBytes+64<<20, int64(limits.Processes+32)
	cases := []struct {
		name string
		// wantLog is what the hostile bot's log must say.
		wantLog []string
		check   func(t *testing.T, log string)
	}{
		{name: "memory", wantLog: []string{"memory limit exceeded"}, check: func(t *testing.T, log string) {
			if held := lastReport(log, `held_mib=(\d+)`); held*(1<<20) > limits.MemoryBytes {
				t.Errorf("the bot held %d MiB, over the %d MiB limit", held, limits.MemoryBytes>>20)
			}
		}},
		{name: "processes", wantLog: []string{"REPORT processes="}, check: func(t *testing.T, log string) {
			// The session's cgroup counts the supervisor's tasks too.
			n := lastReport(log, `processes=(\d+)`)
			t.Logf("the bot had %d processes alive at once", n)
			if n <= 0 || n >= taskBound {
				t.Errorf("the bot had %d processes alive at once, want between 1 and %d", n, taskBound)
			}
		}},
		{name: "fork_bomb", wantLog: []string{"of wall time"}},
		{name: "files", wantLog: []string{"REPORT big_file_bytes=", "refused read /etc/shadow"}, check: func(t *testing.T, log string) {
			if n := lastReport(log, `big_file_bytes=(\d+)`); n > limits.FileSizeBytes {
				t.Errorf("the bot wrote a file of %d bytes, over the %d limit", n, limits.FileSizeBytes)
			}
			for _, bad := range []string{"REPORT wrote", "REPORT listed /work", "REPORT listed /home", "REPORT read /etc/shadow", "REPORT read /var/run"} {
				if strings.Contains(log, bad) {
					t.Errorf("the bot's log says %q", bad)
				}
			}
		}},
		{name: "network", wantLog: []string{"REPORT refused 127.0.0.1:5432", "REPORT refused dns"}},
		{name: "environment", wantLog: []string{"REPORT env PATH="}, check: func(t *testing.T, log string) {
			for _, bad := range []string{secret, bs.dbURL, "DATABASE_URL", "BLOB_URL"} {
				if strings.Contains(log, bad) {
					t.Errorf("the bot saw the worker's %q", bad)
				}
			}
		}},
		{name: "sleeping", wantLog: []string{"of wall time"}},
		{name: "flooding", wantLog: []string{"Output cut at"}, check: func(t *testing.T, log string) {
			if len(log) > 1<<20 {
				t.Errorf("the bot's log is %d bytes", len(log))
			}
		}},
	}
	bots := map[string]int64{}
	for _, c := range cases {
		bots[c.name] = api.upload(filepath.Join("testdata", "hostile", c.name), "hostile-"+c.name, extra)
	}
	for _, id := range append([]int64{house}, mapValues(bots)...) {
		api.waitBuilt(ctx, id)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api := api
			api.t = t
			sampler := startCgroupSampler(t, bs.workerPID)
			matchID := api.challenge(house, bots[c.name])
			m := api.waitMatch(ctx, matchID)
			peak := sampler.stop()
			t.Logf("%s: match %d, session peaks on the host: memory %d MiB (bound %d MiB), tasks %d (bound %d), %d cgroups",
				c.name, matchID, peak.memory>>20, memBound>>20, peak.tasks, taskBound, peak.cgroups)
			if peak.cgroups < 2 {
				t.Errorf("saw %d session cgroups of worker %d, want the two bots' at least", peak.cgroups, bs.workerPID)
			}
			if peak.memory > memBound || peak.tasks > taskBound {
				t.Errorf("a session reached memory %d bytes and %d tasks, over %d and %d", peak.memory, peak.tasks, memBound, taskBound)
			}
			if m.Status == "failed" {
				// A bot that runs out of its time on a machine too busy to
				// give it that time is not judged: the match fails as the
				// platform's, after its attempts (internal/jobs/overload.go).
				// A fork bomb's processes beside the other packages' tests
				// can keep two cores that busy for minutes. The verdict then
				// proves nothing either way; what the bot could reach still
				// must not have changed.
				var reason string
				if err := pool.QueryRow(ctx, `SELECT error FROM matches WHERE id = $1`, matchID).Scan(&reason); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(reason, "while the machine was overloaded") {
					t.Fatalf("match %d failed: %s", matchID, reason)
				}
				t.Logf("%s: match %d not judged, the machine was overloaded: %s", c.name, matchID, reason)
				checkHostClean(t, marker, workDir)
				return
			}
			hostile, good := m.player(bots[c.name]), m.player(house)
			if m.Status != "finished" || good.Outcome != "win" || hostile.Outcome != "loss" || hostile.Reason == "" {
				t.Errorf("match %s; house bot %s; hostile bot %s (%q)", m.Status, good.Outcome, hostile.Outcome, hostile.Reason)
			}
			t.Logf("%s: reason %q", c.name, hostile.Reason)
			for _, want := range c.wantLog {
				if !strings.Contains(hostile.Log, want) {
					t.Errorf("the hostile bot's log lacks %q:\n%s", want, tail(hostile.Log))
				}
			}
			if strings.Contains(hostile.Log, "PWNED") {
				t.Errorf("the hostile bot got through:\n%s", tail(hostile.Log))
			}
			if c.check != nil {
				c.check(t, hostile.Log)
			}
			if t.Failed() {
				t.Logf("the hostile bot's log:\n%s", tail(hostile.Log))
			}
			checkHostClean(t, marker, workDir)
		})
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the host's listener accepted %d connections from bots", n)
	}
}

// hostileAPI calls the portal's JSON API with a token.
type hostileAPI struct {
	t           *testing.T
	base, token string
}

func (a hostileAPI) do(method, path, contentType string, body []byte, out any) int {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(data, out); err != nil {
		a.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, data)
	}
	return res.StatusCode
}

// upload zips dir with extra files added and uploads it as bot name.
func (a hostileAPI) upload(dir, name string, extra map[string]string) int64 {
	a.t.Helper()
	tmp := filepath.Join(a.t.TempDir(), name)
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		a.t.Fatal(err)
	}
	for f, data := range extra {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte(data), 0o644); err != nil {
			a.t.Fatal(err)
		}
	}
	data, err := botzip.Pack(tmp)
	if err != nil {
		a.t.Fatal(err)
	}
	var up struct {
		BotID int64  `json:"bot_id"`
		Error string `json:"error"`
	}
	if st := a.do("POST", "/api/bots?name="+name, "application/zip", data, &up); st != http.StatusCreated {
		a.t.Fatalf("upload %s: %d %s", name, st, up.Error)
	}
	return up.BotID
}

// waitBuilt waits until the bot's newest version is built, asking the API
// as a contestant would. The worker is another process that announces no
// build, so this polls, bounded by the test's deadline in ctx.
func (a hostileAPI) waitBuilt(ctx context.Context, botID int64) {
	a.t.Helper()
	for {
		var bot struct {
			Versions []struct {
				BuildStatus string `json:"build_status"`
				BuildLog    string `json:"build_log"`
			} `json:"versions"`
		}
		a.do("GET", fmt.Sprintf("/api/bots/%d", botID), "", nil, &bot)
		if len(bot.Versions) > 0 {
			switch v := bot.Versions[0]; v.BuildStatus {
			case "ok":
				return
			case "failed":
				a.t.Fatalf("bot %d did not build:\n%s", botID, v.BuildLog)
			}
		}
		select {
		case <-ctx.Done():
			a.t.Fatalf("gave up waiting for bot %d to build", botID)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// challenge has bot challenge the house bot, which accepts at once.
func (a hostileAPI) challenge(house, bot int64) int64 {
	a.t.Helper()
	var ch struct {
		MatchID int64  `json:"match_id"`
		Error   string `json:"error"`
	}
	body := fmt.Appendf(nil, `{"bot_id": %d}`, bot)
	if st := a.do("POST", fmt.Sprintf("/api/bots/%d/challenge", house), "application/json", body, &ch); ch.MatchID == 0 {
		a.t.Fatalf("challenge: %d %s", st, ch.Error)
	}
	return ch.MatchID
}

type apiMatch struct {
	Status  string `json:"status"`
	Players []struct {
		BotID   int64  `json:"bot_id"`
		Outcome string `json:"outcome"`
		Reason  string `json:"reason"`
		Log     string `json:"log"`
	} `json:"players"`
}

func (m apiMatch) player(botID int64) (p struct {
	BotID   int64  `json:"bot_id"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
	Log     string `json:"log"`
}) {
	for _, q := range m.Players {
		if q.BotID == botID {
			return q
		}
	}
	return p
}

// waitMatch waits until the match is over and returns it as its owner sees
// it: a poll of the API across processes, bounded by ctx, as waitBuilt.
func (a hostileAPI) waitMatch(ctx context.Context, id int64) apiMatch {
	a.t.Helper()
	for {
		var m apiMatch
		a.do("GET", fmt.Sprintf("/api/matches/%d", id), "", nil, &m)
		if m.Status == "finished" || m.Status == "failed" || m.Status == "canceled" {
			return m
		}
		select {
		case <-ctx.Done():
			a.t.Fatalf("gave up waiting for match %d (%s)", id, m.Status)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// newAPIToken creates an account and an API token for it.
func newAPIToken(t *testing.T, ctx context.Context, st *store.Store, user string) string {
	t.Helper()
	u, err := st.UserCreate(ctx, store.UserCreateParams{Username: user, Email: user + "@example.com", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	tok := fmt.Sprintf("bs_%s_%d", user, time.Now().UnixNano())
	sum := sha256.Sum256([]byte(tok))
	if _, err := st.APITokenCreate(ctx, u.ID, "ci", sum[:]); err != nil {
		t.Fatal(err)
	}
	return tok
}

// seedPythonStarter seeds the Python starter as the only house bot and
// returns its id.
func seedPythonStarter(t *testing.T, ctx context.Context, bs browserSetup, pool *pgxpool.Pool) int64 {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "entelect-python3"), os.DirFS(filepath.Join("..", "..", "bots", "entelect-python3"))); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig(bs.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := seedHouseBots(ctx, cfg, slog.New(slog.DiscardHandler), dir, io.Discard); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := pool.QueryRow(ctx, `SELECT id FROM bots WHERE name = 'entelect-python3'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// hostAddresses are the host's own addresses, which the network bot tries.
func hostAddresses(t *testing.T) []string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil {
			out = append(out, ip.IP.String())
		}
	}
	return out
}

// lastReport is the number of the last log line matching pattern, -1 if none.
func lastReport(log, pattern string) int64 {
	m := regexp.MustCompile(pattern).FindAllStringSubmatch(log, -1)
	if len(m) == 0 {
		return -1
	}
	n, _ := strconv.ParseInt(m[len(m)-1][1], 10, 64)
	return n
}

func mapValues(m map[string]int64) []int64 {
	var out []int64
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// tail is the end of a long log, enough to see why.
func tail(s string) string {
	const n = 3000
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// checkHostClean asserts that no file named marker was written outside the
// bot's folders and that no process of a bot (one whose working folder is
// in the worker's WORK_DIR) outlived its match.
func checkHostClean(t *testing.T, marker, workDir string) {
	t.Helper()
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm", "/work", "/root", "/", "/etc", workDir} {
		if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
			t.Errorf("a bot wrote %s", filepath.Join(d, marker))
			os.Remove(filepath.Join(d, marker))
		}
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && strings.HasPrefix(cwd, workDir) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			t.Errorf("process %s of a bot outlived its match: %q in %s", e.Name(), cmdline, cwd)
		}
	}
}

// cgroupPeaks are the largest figures any of the worker's session cgroups
// reached while a sampler ran.
type cgroupPeaks struct {
	memory, tasks int64
	cgroups       int
}

type cgroupSampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak cgroupPeaks
}

// startCgroupSampler reads, every 10 ms, the high-water marks the kernel
// keeps for each cgroup the worker made (memory.max_usage_in_bytes and
// pids.peak in cgroup v1; memory.peak and pids.peak in v2), so a peak
// between two samples is still seen while the cgroup exists.
func startCgroupSampler(t *testing.T, workerPID int) *cgroupSampler {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", workerPID))
	if err != nil {
		t.Fatalf("worker's cgroups: %v", err)
	}
	var globs []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch parts[1] {
		case "memory", "pids":
			globs = append(globs, filepath.Join("/sys/fs/cgroup", parts[1], parts[2], fmt.Sprintf("broadside-%d-*", workerPID)))
		case "":
			if parts[0] == "0" {
				// v2: the worker's cgroups are siblings of its own leaf.
				globs = append(globs, filepath.Join("/sys/fs/cgroup", filepath.Dir(parts[2]), fmt.Sprintf("broadside-%d-*", workerPID)))
			}
		}
	}
	s := &cgroupSampler{done: make(chan struct{})}
	seen := map[string]bool{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, g := range globs {
				dirs, _ := filepath.Glob(g)
				for _, d := range dirs {
					s.mu.Lock()
					if !seen[filepath.Base(d)] {
						seen[filepath.Base(d)] = true
						s.peak.cgroups++
					}
					for _, f := range []string{"memory.max_usage_in_bytes", "memory.peak"} {
						s.peak.memory = max(s.peak.memory, readInt(filepath.Join(d, f)))
					}
					s.peak.tasks = max(s.peak.tasks, readInt(filepath.Join(d, "pids.peak")))
					s.mu.Unlock()
				}
			}
			select {
			case <-s.done:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *cgroupSampler) stop() cgroupPeaks {
	close(s.done)
	s.wg.Wait()
	return s.peak
}

func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}
