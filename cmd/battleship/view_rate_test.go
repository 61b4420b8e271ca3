package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Playback is watched for the rate until rateRounds rounds are drawn, or
// for rateWindow at most.
const (
	rateRounds = 40
	rateWindow = 8 * time.Second
)

// TestViewPlaybackRate measures the player in headless Chromium on a
// 14×14 Entelect match at 16× (one played here by the Go reference bots,
// or the replay folder named by BROADSIDE_RATE_REPLAY, such as a longer
// match of the Python starters): how many rounds it actually draws per
// second (counted as the board is swapped, over rateRounds rounds or
// rateWindow), how long a round's fragment takes from the request to the
// board on screen, and how much a fragment weighs. The figures are logged and saved under the
// test's artifacts; only that playback advances is asserted, since the
// rate depends on the machine and its load.
func TestViewPlaybackRate(t *testing.T) {
	needTool(t, "go", "/usr/bin/chromium")
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	k := kit{bin: battleshipBinary(t)}
	played := os.Getenv("BROADSIDE_RATE_REPLAY")
	if played == "" {
		played = played14(t)
	}
	url := k.serveView(t, played)

	browser, do := newViewBrowser(t)
	num := func(js string) float64 {
		t.Helper()
		v, err := chromedp.Run(browser, chromedp.Evaluate[float64](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}

	do("open the viewer", chromedp.EmulateViewport(1280, 1000), chromedp.Navigate(url), chromedp.WaitVisible(`#viewer svg.grid`))
	count := int(num(`+document.getElementById("viewer").dataset.count`))
	if cols := num(`+document.querySelector("#viewer svg.grid").dataset.cols`); cols != 14 {
		t.Fatalf("board of %v columns, want 14", cols)
	}
	// Every swap of the board is counted, with the time it reached the
	// screen (the next animation frame after the swap).
	do("count the rounds drawn", chromedp.Evaluate[chromedp.Void](`
		window.draws = [];
		new MutationObserver(function (recs) {
			requestAnimationFrame(function (now) { recs.forEach(function () { window.draws.push(now); }); });
		}).observe(document.getElementById("frame"), {childList: true});`))
	do("16×", chromedp.SetValue(chromedp.CSS(`select.speed`), "16"), chromedp.Click(chromedp.CSS(`button.play`)))
	start := time.Now()
	// Watched until rateRounds are drawn, or for rateWindow at most.
	_, err := chromedp.Run(browser, chromedp.Poll[chromedp.Void](fmt.Sprintf(`window.draws.length >= %d`, rateRounds),
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(rateWindow)))
	if err != nil && !errors.Is(err, chromedp.ErrPollingTimeout) {
		t.Fatalf("play: %v", err)
	}
	drawn := num(`window.draws.length`)
	elapsed := time.Since(start)
	do("pause", chromedp.Click(chromedp.CSS(`button.play`)))
	if drawn < 2 {
		t.Fatalf("drew %v rounds in %v", drawn, elapsed)
	}
	dir := t.ArtifactDir()
	png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "rate-14x14.png"), png, 0o644)
	// The rate between the first and the last round drawn: a match that
	// ends within the window does not dilute it.
	perSecond := num(`(window.draws.length - 1) * 1000 / (window.draws[window.draws.length - 1] - window.draws[0])`)
	// The fragments fetched while playing: size and time to load.
	kib := num(`(function () {
		var r = performance.getEntriesByType("resource").filter(e => e.name.includes("/rounds/"));
		return r.reduce((s, e) => s + e.decodedBodySize, 0) / r.length / 1024; })()`)
	fetchMS := num(`(function () {
		var r = performance.getEntriesByType("resource").filter(e => e.name.includes("/rounds/"));
		return r.reduce((s, e) => s + e.duration, 0) / r.length; })()`)
	// One round drawn alone: from fetching its fragment to the next frame.
	renderMS := num(`new Promise(function (done) {
		var t0 = performance.now();
		fetch("rounds/1").then(r => r.text()).then(function (html) {
			document.getElementById("frame").innerHTML = html;
			requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
		});
	})`)
	load, _ := os.ReadFile("/proc/loadavg")
	report := fmt.Sprintf("14x14 Entelect (%d rounds) at 16x in battleship view: %v rounds drawn in a %.2fs window, "+
		"%.1f rounds/s from the first to the last; fragment %.1f KiB, fetched in %.1f ms on average; "+
		"one round fetched and drawn in %.1f ms; loadavg %s",
		count, drawn, elapsed.Seconds(), perSecond, kib, fetchMS, renderMS, load)
	t.Log(report)
	os.WriteFile(filepath.Join(dir, "playback-rate.txt"), []byte(report), 0o644)
}
