package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestViewPlayback plays a 14×14 match here, serves it with battleship
// view and plays it in headless Chromium at 16×: the rounds advance
// without reloading the page, End jumps to the last, and the rate reached
// is logged (and saved with the screenshot under the test's artifacts).
func TestViewPlayback(t *testing.T) {
	needTool(t, "go", "/usr/bin/chromium")
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	k := kit{bin: battleshipBinary(t)}
	url := k.serveView(t, played14(t))

	browser, do := newViewBrowser(t)
	index := func() int {
		t.Helper()
		v, err := chromedp.Run(browser, chromedp.Evaluate[int](`+document.getElementById("viewer").dataset.index`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	do("open the viewer", chromedp.EmulateViewport(1280, 1000), chromedp.Navigate(url), chromedp.WaitVisible(`#viewer svg.grid`),
		chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	count, err := chromedp.Run(browser, chromedp.Evaluate[int](`+document.getElementById("viewer").dataset.count`))
	if err != nil {
		t.Fatal(err)
	}
	cols, err := chromedp.Run(browser, chromedp.Evaluate[int](`+document.querySelector("#viewer svg.grid").dataset.cols`))
	if err != nil || cols != 14 {
		t.Fatalf("board of %d columns, want 14 (%v)", cols, err)
	}
	do("16×", chromedp.SetValue(chromedp.CSS(`select.speed`), "16"), chromedp.Click(chromedp.CSS(`button.play`)))
	start := time.Now()
	do("play", chromedp.Sleep(4*time.Second))
	n := index()
	elapsed := time.Since(start)
	do("pause", chromedp.Click(chromedp.CSS(`button.play`)))
	// The rate depends on the machine; that playing advances is what
	// the test holds.
	if n < 1 {
		t.Fatalf("played %d rounds in %v", n, elapsed)
	}
	rate := fmt.Sprintf("14x14 playback at 16x in battleship view: %d rounds in %.2fs = %.1f rounds/s (%d rounds in the match)\n",
		n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), count)
	t.Log(rate)
	dir := t.ArtifactDir()
	os.WriteFile(filepath.Join(dir, "playback-rate.txt"), []byte(rate), 0o644)
	png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "view-14x14-playing.png"), png, 0o644)

	do("End", chromedp.Click(chromedp.CSS(`h1`)), chromedp.KeyEvent(kb.End),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.getElementById("viewer").dataset.index === "%d" && window.notReloaded`, count-1)))
	loc, err := chromedp.Run(browser, chromedp.Location())
	if err != nil || loc != fmt.Sprintf("%s?round=%d", url, count-1) {
		t.Errorf("location %s after End, want round %d (%v)", loc, count-1, err)
	}
}

// match14 is the match both browser tests of the viewer play back, played
// once for all tests; TestMain removes its folder.
var match14 struct {
	once   sync.Once
	dir    string
	played string // empty when it could not be played
}

// played14 plays the Go reference bot against itself on 14×14 (seed 8) on
// its first call and returns the replay folder, which the tests only read.
func played14(t *testing.T) string {
	t.Helper()
	match14.once.Do(func() {
		dir, err := os.MkdirTemp("", "broadside-view14-")
		if err != nil {
			t.Fatal(err)
		}
		match14.dir = dir
		k := newKitIn(t, dir)
		played := filepath.Join(dir, "replay")
		if r := k.play(t, "-b", "entelect-go-reference", "entelect-go-reference", "-s", "3", "--seed", "8", "-l", played); r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		match14.played = played
	})
	if match14.played == "" {
		t.Fatal("the 14×14 match was not played (see the first test that played it)")
	}
	return match14.played
}

// newViewBrowser starts headless Chromium for at most three minutes and
// returns its context and a step runner that fails the test with what
// failed.
func newViewBrowser(t *testing.T) (context.Context, func(what string, steps ...chromedp.Action[chromedp.Void])) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath("/usr/bin/chromium"), chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true), chromedp.UserDataDir(t.TempDir()))
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(browser, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	return browser, do
}
