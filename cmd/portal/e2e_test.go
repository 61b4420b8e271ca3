package main

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testenv"
)

// TestBrowserEndToEnd drives the portal with headless Chromium: two users
// register and upload the Python and Go starter bots through the form, a
// real worker process builds them in the sandbox, one challenges the
// other, the match plays, and the result, the replay and the leaderboard
// show up.
func TestBrowserEndToEnd(t *testing.T) {
	t.Parallel()
	bp := newBrowserPortal(t, 10*time.Minute, "LADDER_INTERVAL=off")
	ctx, base, conn := bp.ctx, bp.base, bp.conn

	zips := map[string]string{}
	for _, bot := range []string{"entelect-python3", "entelect-go-reference"} {
		zips[bot] = starterZip(t, bot)
	}

	run, get, register := bp.run, bp.get, bp.register
	upload, logout := bp.upload, bp.logout()

	run("ann registers", register("ann"))
	// A .invalid name never resolves: the deliveries of her builds fail
	// without reaching anyone.
	run("ann adds a webhook on her account page",
		chromedp.SendKeys(chromedp.CSS(`input[name=url]`), "https://hooks.invalid/broadside"),
		chromedp.Click(`//button[text()="Add webhook"]`),
		chromedp.WaitVisible(chromedp.CSS(`#new-webhook-secret`)),
	)
	run("ann uploads the Python bot", upload("Pyro", zips["entelect-python3"]))
	pyroURL := get("ann's bot page", chromedp.Location())
	run("ann accepts challenges automatically",
		navigate(base+"/challenges"),
		chromedp.Click(`//button[text()="Accept all challenges automatically"]`),
		chromedp.WaitVisible(`//p[contains(., "now accepted automatically")]`),
	)
	run("ann logs out", logout)
	run("ben registers", register("ben"))
	run("ben uploads the Go bot", upload("Gopher", zips["entelect-go-reference"]))

	bp.waitFor("both builds to finish",
		`SELECT count(*) = 2 FROM bot_versions WHERE build_status IN ('ok', 'failed')`)
	rows, _ := conn.Query(ctx, `SELECT b.name, v.build_status, v.build_log FROM bot_versions v JOIN bots b ON b.id = v.bot_id`)
	for rows.Next() {
		var name, status, log string
		if err := rows.Scan(&name, &status, &log); err != nil {
			t.Fatal(err)
		}
		if status != "ok" {
			t.Fatalf("build of %s: %s\n%s", name, status, log)
		}
	}
	rows.Close()
	// Ben's bot page follows its build and reloads itself when it ends;
	// leaving before then would race that reload.
	run("ben's bot page shows the finished build",
		chromedp.WaitVisible(`//span[contains(@class, "build-ok") or contains(@class, "build-failed")]`),
	)

	run("ben challenges Pyro with Gopher",
		navigate(strings.Split(pyroURL, "?")[0]),
		chromedp.WaitVisible(`//button[text()="Challenge"]`),
		chromedp.Click(`//button[text()="Challenge"]`),
		chromedp.WaitVisible(`//h1[starts-with(., "Match #")]`),
	)
	matchURL := get("the match page", chromedp.Location())
	var matchID int64
	if _, err := fmt.Sscanf(strings.TrimPrefix(matchURL, base), "/matches/%d", &matchID); err != nil {
		t.Fatalf("challenge landed on %q", matchURL)
	}
	bp.waitFor("the match to end",
		fmt.Sprintf(`SELECT status IN ('finished', 'failed') FROM matches WHERE id = %d`, matchID))

	run("the match page shows the match over", bp.matchOver())
	status := get("the match status", chromedp.Text(chromedp.CSS(`.match-status`)))
	outcomes := get("the match players", chromedp.Text(chromedp.CSS(`tbody`)))
	if status != "finished" {
		var msg string
		_ = conn.QueryRow(ctx, `SELECT error FROM matches WHERE id = $1`, matchID).Scan(&msg)
		t.Fatalf("match %d: %s: %s", matchID, status, msg)
	}
	if !(strings.Contains(outcomes, "win") || strings.Contains(outcomes, "draw")) || !strings.Contains(outcomes, "Pyro") || !strings.Contains(outcomes, "Gopher") {
		t.Fatalf("match page players:\n%s", outcomes)
	}

	res, err := http.Get(matchURL + "/replay.zip")
	if err != nil {
		t.Fatal(err)
	}
	replay, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("replay download: %d %v", res.StatusCode, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(replay), int64(len(replay)))
	if err != nil {
		t.Fatalf("replay is not a zip: %v", err)
	}
	rounds := map[string]bool{}
	for _, f := range zr.File {
		if i := strings.Index(f.Name, "Phase "); i >= 0 {
			rounds[strings.SplitN(f.Name[i:], "/", 2)[0]] = true
		}
	}
	if !rounds["Phase 1 - Round 0"] || len(rounds) < 3 {
		t.Fatalf("replay round folders: %v", rounds)
	}

	run("the leaderboard", navigate(base+"/leaderboard"))
	board := get("the leaderboard table", chromedp.Text(chromedp.CSS(`table`)))
	for _, want := range []string{"Pyro", "Gopher", "ann", "ben", "Rating"} {
		if !strings.Contains(board, want) {
			t.Errorf("leaderboard lacks %q:\n%s", want, board)
		}
	}
}

// newBrowser starts headless Chromium for the test.
func newBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	testenv.RequireProgram(t, "/usr/bin/chromium")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath("/usr/bin/chromium"),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	// Start the browser on this context: a browser started by a step's
	// shorter context would close with that step.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start headless Chromium: %v", err)
	}
	return bctx
}

// driver runs a browser test's steps in headless Chromium; a failing step
// fails the test with the page's main content.
type driver struct {
	t       *testing.T
	browser context.Context
	base    string
	// step, when set, holds the step in progress, for the test's last
	// word if it fails.
	step *string
}

func newDriver(t *testing.T, ctx context.Context, base string) driver {
	return driver{t: t, browser: newBrowser(t, ctx), base: base}
}

func (d driver) fail(what string, err error) {
	d.t.Helper()
	// A bound: the browser may be the part that is stuck.
	ctx, cancel := context.WithTimeout(d.browser, 10*time.Second)
	defer cancel()
	html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
	d.t.Fatalf("%s: %v\npage: %s", what, err, html)
}

func (d driver) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	d.t.Helper()
	d.begin(what)
	ctx, cancel := d.stepContext()
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		d.fail(what, err)
	}
	d.begin("")
}

func (d driver) get(what string, a chromedp.Action[string]) string {
	d.t.Helper()
	d.begin(what)
	ctx, cancel := d.stepContext()
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		d.fail(what, err)
	}
	d.begin("")
	return v
}

// stepContext ends a step a little before the test's deadline, so that a
// step that hangs still leaves the browser alive to show its page.
func (d driver) stepContext() (context.Context, context.CancelFunc) {
	if deadline, ok := d.browser.Deadline(); ok {
		return context.WithDeadline(d.browser, deadline.Add(-5*time.Second))
	}
	return context.WithCancel(d.browser)
}

// begin records the step in progress ("" between steps).
func (d driver) begin(what string) {
	if d.step != nil {
		*d.step = what
	}
}

// upload sends the zip at zipPath through the upload form as bot name, a
// new bot's first version, and waits for the bot's page. A build that ends
// soon after makes the page reload itself; upload waits for that reload
// (up to settleWait), so that the test's next step does not race it.
func (d driver) upload(name, zipPath string) chromedp.Action[chromedp.Void] {
	return d.uploadForm(name, zipPath, settleWait)
}

// uploadBuilding is upload that leaves the bot page as soon as it shows,
// its build still running.
func (d driver) uploadBuilding(name, zipPath string) chromedp.Action[chromedp.Void] {
	return d.uploadForm(name, zipPath, 0)
}

// settleWait bounds upload's wait for a bot page to reload itself after
// its build: a starter's build ends within seconds.
const settleWait = 15 * time.Second

// uploadForm sends the form, then waits up to settle for the page to be
// done reloading itself.
//
// A form that is still on screen, without an error, a while after it was
// sent was not sent: the bot page left behind can reload itself (its build
// ended) just as the test moves on, and the form's page can come and go
// with that. Such a form is filled and sent again, with a note in the log.
func (d driver) uploadForm(name, zipPath string, settle time.Duration) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		send := chromedp.Steps(
			navigate(d.base+"/bots/new"),
			chromedp.SendKeys(chromedp.CSS(`input[name=name]`), name),
			chromedp.SetUploadFiles(chromedp.CSS(`input[name=zip]`), []string{zipPath}),
			chromedp.Submit(chromedp.CSS(`input[name=zip]`)),
		)
		// The bot page; its upload banner goes once the build ends and the
		// page reloads itself, which may come first.
		botPage := chromedp.WaitVisible(`//h2[text()="Versions"]`)
		var err error
		for range 3 {
			if _, err = send(ctx, t); err != nil {
				return chromedp.Void{}, err
			}
			wait, cancel := context.WithTimeout(ctx, uploadWait)
			_, err = botPage(wait, t)
			cancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return chromedp.Void{}, err
			}
			unsent, jsErr := chromedp.Evaluate[bool](
				`location.pathname === "/bots/new" && !document.querySelector(".error")`)(ctx, t)
			if jsErr != nil || !unsent {
				return chromedp.Void{}, fmt.Errorf("no bot page %s after sending the form: %w", uploadWait, err)
			}
			d.t.Logf("upload %s: the form was still on screen %s after it was sent; sending it again", name, uploadWait)
		}
		if err != nil || settle == 0 {
			return chromedp.Void{}, err
		}
		// Settled: no build followed live on the page (none was running
		// when it was drawn, or this is the page drawn after the reload),
		// and the page loaded.
		// A poll that the reload interrupts is started again.
		wait, cancel := context.WithTimeout(ctx, settle)
		defer cancel()
		settled := chromedp.Poll[bool](`document.readyState === "complete" &&
			(!document.querySelector(".build-live[data-events]") || !location.search.includes("uploaded="))`)
		for wait.Err() == nil {
			if _, err := settled(wait, t); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return chromedp.Void{}, ctx.Err()
	}
}

// uploadWait bounds the wait for a bot's page after its upload form is
// sent: the server answers an upload within seconds, even at a high load.
const uploadWait = 60 * time.Second

// navigate is chromedp.Navigate, tried again when the page being left
// got in its way: a bot's page reloads itself when its build ends, and a
// reload that starts just as the test moves on either aborts the
// navigation (net::ERR_ABORTED) or wins over it, leaving the browser on
// the page it was leaving.
func navigate(url string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		from, err := chromedp.Location()(ctx, t)
		if err != nil {
			return chromedp.Void{}, err
		}
		for range 3 {
			_, err = chromedp.Navigate(url)(ctx, t)
			if err != nil {
				if strings.Contains(err.Error(), "ERR_ABORTED") {
					continue
				}
				return chromedp.Void{}, err
			}
			at, locErr := chromedp.Location()(ctx, t)
			if locErr != nil {
				return chromedp.Void{}, locErr
			}
			if at == url || samePage(at, url) || !samePage(at, from) {
				return chromedp.Void{}, nil
			}
			err = fmt.Errorf("navigation to %s stayed on %s", url, at)
		}
		return chromedp.Void{}, err
	}
}

// samePage reports whether two addresses name the same page, whatever
// their query and fragment.
func samePage(a, b string) bool {
	cut := func(s string) string {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			return s[:i]
		}
		return s
	}
	return cut(a) == cut(b)
}

// matchOver waits on a match page for the match to be over. The page
// follows the match and reloads itself when it ends, as a visitor
// watching it sees; navigating anywhere before then would race that
// reload.
func (d driver) matchOver() chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(`//span[@class="match-status" and (text()="finished" or text()="failed")]`)
}

// logout signs the current user out.
func (d driver) logout() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Click(`//button[text()="Log out"]`),
		chromedp.WaitVisible(`//a[text()="Log in"]`),
	)
}

// starterZip zips a starter bot of bots/ into the test's temporary folder
// and returns the zip's path, for the upload form.
func starterZip(t *testing.T, bot string) string {
	t.Helper()
	return zipToTemp(t, filepath.Join("..", "..", "bots", bot), bot+".zip")
}

// zipToTemp zips the folder dir as name in the test's temporary folder and
// returns the zip's path.
func zipToTemp(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := botzip.Pack(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// register signs a new user up; the account page follows.
func (d driver) register(user string) chromedp.Action[chromedp.Void] {
	return d.account("/register", user, `//h2[text()="API tokens"]`)
}

// login signs user in.
func (d driver) login(user string) chromedp.Action[chromedp.Void] {
	return d.account("/login", user, `//button[text()="Log out"]`)
}

func (d driver) account(path, user, landing string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		navigate(d.base+path),
		chromedp.SendKeys(chromedp.CSS(`input[name=username]`), user),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "correct horse battery"),
		chromedp.Submit(chromedp.CSS(`input[name=username]`)),
		chromedp.WaitVisible(landing),
	)
}

// browserSetup is where every browser test starts: the portal serving on
// a free port and a real worker process, both on a fresh database.
type browserSetup struct {
	ctx    context.Context
	base   string
	dbURL  string
	getenv func(string) string
	// workerPID is the worker process's id (its cgroups are named after it).
	workerPID int
	// step is a browser test's step in progress: if the test fails, it is
	// repeated after the worker's log, which would otherwise bury it.
	step *string
}

// startPortal boots the portal and a worker (with workerEnv added to its
// environment) for a browser test that may last up to timeout; both stop
// when the test ends. It skips the test in -short mode.
//
// Each browser test has its own database, blob folder, portal, worker and
// Chromium, so they run side by side (t.Parallel), but for the hostile
// bots' test: beside others on a small machine, the worker's overload
// guard rightly takes a bot's time-out for the machine's and plays the
// match again later, and a hostile bot's expected loss becomes a platform
// failure. Tests that do not follow the ladder turn it off
// (LADDER_INTERVAL=off): its placement matches would play beside theirs
// for nothing. timeout only stops a test that hangs: every wait returns as
// soon as its condition holds, and on a slow machine beside the other
// packages a Go bot's build alone has taken three minutes, so no test gets
// less than ten.
func startPortal(t *testing.T, timeout time.Duration, workerEnv ...string) browserSetup {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	step := new(string)
	t.Cleanup(func() {
		if t.Failed() && *step != "" {
			t.Logf("the test failed during the step %q", *step)
		}
	})
	getenv, dbURL := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	cfg, err := parseConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := m.Run(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	pid := startWorker(t, ctx, dbURL, cfg.BlobURL, workerEnv...)
	return browserSetup{ctx: ctx, base: "http://" + m.Addr(), dbURL: dbURL, getenv: getenv, workerPID: pid, step: step}
}

// browserPortal is a browser test's fixture: the portal and a worker
// process on a fresh database (as startPortal), a pool, a connection and
// the store on that database, and headless Chromium driving the portal
// (the embedded driver: run, get, register, login, upload, logout).
type browserPortal struct {
	driver
	ctx    context.Context
	dbURL  string
	getenv func(string) string
	// workerPID is the worker process's id (its cgroups are named after it).
	workerPID int
	pool      *pgxpool.Pool
	conn      *pgx.Conn
	st        *store.Store
}

// newBrowserPortal starts a browser test's portal, worker (with workerEnv
// added to its environment) and browser, for a test that may last up to
// timeout; everything stops when the test ends. It skips the test in
// -short mode.
func newBrowserPortal(t *testing.T, timeout time.Duration, workerEnv ...string) *browserPortal {
	t.Helper()
	bs := startPortal(t, timeout, workerEnv...)
	pool, err := pgxpool.New(bs.ctx, bs.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	conn, err := pgx.Connect(bs.ctx, bs.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	d := newDriver(t, bs.ctx, bs.base)
	d.step = bs.step
	return &browserPortal{
		driver: d,
		ctx:    bs.ctx, dbURL: bs.dbURL, getenv: bs.getenv, workerPID: bs.workerPID,
		pool: pool, conn: conn, st: store.New(pool),
	}
}

// waitFor waits until the boolean query holds (see the function waitFor).
func (bp *browserPortal) waitFor(what, query string) {
	bp.t.Helper()
	bp.begin("waiting for " + what)
	waitFor(bp.t, bp.ctx, bp.conn, what, query)
	bp.begin("")
}

// startWorker runs cmd/worker (built once for all tests) against the test's database
// and blob store until the test ends; env adds settings (NAME=value). It
// returns the worker's process id.
func startWorker(t *testing.T, ctx context.Context, dbURL, blobURL string, env ...string) int {
	t.Helper()
	bin := testenv.GoBinary(t, "github.com/broadside/broadside/cmd/worker")
	wctx, stop := context.WithCancel(ctx)
	cmd := exec.CommandContext(wctx, bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "BLOB_URL="+blobURL, "SANDBOX=required",
		"WORKER_CONCURRENCY=2", "LOG_LEVEL=info")
	cmd.Env = append(cmd.Env, env...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 20 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start worker: %v", err)
	}
	t.Cleanup(func() {
		stop()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("worker log:\n%s", logs.String())
		}
	})
	return cmd.Process.Pid
}

// waitFor waits until a boolean query holds, or the test's deadline in
// ctx. The worker that makes it true runs in another process and builds
// announce nothing, so the query is polled: a poll with a deadline is
// acceptable across processes only (a worker in the test's own process is
// followed through River's events, as in internal/jobs).
func waitFor(t *testing.T, ctx context.Context, conn *pgx.Conn, what, query string) {
	t.Helper()
	for {
		var ok bool
		if err := conn.QueryRow(ctx, query).Scan(&ok); err != nil && err != pgx.ErrNoRows {
			t.Fatalf("wait for %s: %v", what, err)
		}
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s", what)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
