package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/broadside/broadside/internal/testenv"
)

// newcomer is the first-hour test's contestant in headless Chromium, with
// what it needs beyond the driver: pages visited without racing a page's
// own reload, screenshots, and the downloads.
type newcomer struct {
	*browserPortal
	t     *testing.T
	shots string
	n     int
}

// visit opens url and waits until it has loaded and the element of the
// CSS selector sel is visible. A bot page that reloads itself when a build
// ends may replace the navigation visit starts, and Chromium may then
// never answer that navigation: so each navigation gets a short wait, the
// page's state is read until it is the address asked for, loaded, and the
// navigation is asked again when it is not. The whole visit has a bound of
// its own, so a page that never loads fails the test with a screenshot
// instead of holding the suite.
func (nc *newcomer) visit(what, url, sel string) {
	nc.t.Helper()
	nc.begin(what)
	stepCtx, cancel := nc.stepContext()
	defer cancel()
	ctx, cancelVisit := context.WithTimeout(stepCtx, testenv.Scaled(5*time.Minute))
	defer cancelVisit()
	want := "complete " + strings.Split(url, "#")[0]
	var err error
	for loaded := false; !loaded && err == nil; {
		navCtx, cancelNav := context.WithTimeout(ctx, 15*time.Second)
		nerr := chromedp.Do(navCtx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: url})
			return err
		}))
		cancelNav()
		if nerr != nil && !errors.Is(nerr, context.DeadlineExceeded) && ctx.Err() == nil {
			err = nerr
			break
		}
		var state string
		var serr error
		for again := time.Now().Add(15 * time.Second); time.Now().Before(again); {
			state, serr = chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState + " " + location.href.split("#")[0]`))
			if serr == nil && state == want {
				loaded = true
				break
			}
			if ctx.Err() != nil {
				err = fmt.Errorf("the page did not load: %s (%v)", state, serr)
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if err == nil {
		err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel)))
	}
	if err != nil {
		nc.fail(what, err)
	}
	nc.begin("")
}

// text is the text of the first element of the CSS selector sel.
func (nc *newcomer) text(what, sel string) string {
	nc.t.Helper()
	return nc.get(what, chromedp.Text(chromedp.CSS(sel)))
}

// js evaluates an expression that gives a string.
func (nc *newcomer) js(what, expr string) string {
	nc.t.Helper()
	return nc.get(what, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
}

// shot saves the whole page as NN-name.png among the test's artifacts.
func (nc *newcomer) shot(name string) {
	nc.t.Helper()
	nc.n++
	png, err := chromedp.Run(nc.browser, chromedp.FullScreenshot(100))
	if err != nil {
		nc.fail("screenshot "+name, err)
	}
	if err := os.WriteFile(filepath.Join(nc.shots, fmt.Sprintf("%02d-%s.png", nc.n, name)), png, 0o644); err != nil {
		nc.t.Fatal(err)
	}
}

// mustSee fails unless the page's main content holds every one of want.
func (nc *newcomer) mustSee(where string, want ...string) {
	nc.t.Helper()
	main := nc.text(where, "main")
	for _, w := range want {
		if !strings.Contains(main, w) {
			nc.t.Errorf("%s lacks %q:\n%s", where, w, main)
		}
	}
}

// download fetches a link of the site as the browser would and keeps it
// in the test's temporary folder, as a visitor saves a starter kit.
func (nc *newcomer) download(href, name string) string {
	nc.t.Helper()
	res, err := http.Get(href)
	if err != nil {
		nc.t.Fatalf("download %s: %v", href, err)
	}
	data, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		nc.t.Fatalf("download %s: status %d, %v", href, res.StatusCode, err)
	}
	path := filepath.Join(nc.t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		nc.t.Fatal(err)
	}
	return path
}

// zipHolds fails unless the zip at path holds the file name at its root
// or in its one folder.
func zipHolds(t *testing.T, path, name string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s is not a zip: %v", path, err)
	}
	var names []string
	for _, f := range zr.File {
		if f.Name == name || strings.HasSuffix(f.Name, "/"+name) && strings.Count(f.Name, "/") == 1 {
			return
		}
		names = append(names, f.Name)
	}
	t.Fatalf("%s lacks %s: %v", path, name, names)
}

// seedStarters seeds the Python starter of each game as the house bots,
// as `make run` seeds every starter, and waits for their builds.
func seedStarters(t *testing.T, bp *browserPortal, dirs []string) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range dirs {
		if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join("..", "..", "bots", d))); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := parseConfig(bp.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := seedHouseBots(bp.ctx, cfg, slog.New(slog.DiscardHandler), dir, io.Discard); err != nil {
		t.Fatal(err)
	}
	bp.waitFor("the house bots' builds", fmt.Sprintf(
		`SELECT count(*) = %d FROM bots WHERE house AND current_version_id IS NOT NULL`, len(dirs)))
}
