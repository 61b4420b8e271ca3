package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
)

// TestBrowserViewer watches matches of every rule set in headless
// Chromium, as contestants do: a match of each rule set followed live
// from its page while the worker plays it; the Entelect match then played
// back at 16×, stepped with the keyboard and opened from a shared round
// link; the finished match of each other rule set played and stepped. Screenshots go to the test's
// artifacts (go test -artifacts -outputdir DIR).
func TestBrowserViewer(t *testing.T) {
	t.Parallel()
	d := newBrowserPortal(t, 12*time.Minute, "LADDER_INTERVAL=off")
	ctx, base, conn, pool := d.ctx, d.base, d.conn, d.pool
	shots := t.ArtifactDir()
	browser, run := d.browser, d.run
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
		if err != nil {
			d.fail("screenshot "+name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eval := func(what, js string) int {
		t.Helper()
		v, err := chromedp.Run(browser, chromedp.Evaluate[int](js))
		if err != nil {
			d.fail(what, err)
		}
		return v
	}
	index := func() int { return eval("the round shown", `+document.getElementById("viewer").dataset.index`) }

	run("viewport", chromedp.EmulateViewport(1280, 1000))
	run("vic registers", d.register("vic"))
	games := []struct{ game, dir string }{
		{"entelect", "entelect-python3"}, {"brainjar", "brainjar-python3"},
		{"deepship", "deepship-python3"}, {"hitandsunk", "hitandsunk-python3"},
	}
	for _, g := range games {
		zipPath := starterZip(t, g.dir)
		if g.game != "entelect" {
			zipPath = slowStarterZip(t, g.dir)
		}
		for _, side := range []string{"Port", "Starboard"} {
			run("upload "+g.game+" "+side, d.upload(g.game+side, zipPath))
		}
	}
	d.waitFor("the builds", `SELECT count(*) = 8 FROM bot_versions WHERE build_status = 'ok'`)

	// One owner's bots never meet on the ladder: the matches are queued as
	// an organiser's would be.
	st := d.st
	client, err := jobs.NewClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	queue := func(game string, size int) int64 {
		t.Helper()
		p := store.MatchCreateParams{Game: game, MapSize: size, Seed: 21, Kind: "ladder"}
		rows, _ := conn.Query(ctx, `SELECT id, current_version_id FROM bots WHERE game = $1 ORDER BY id`, game)
		for rows.Next() {
			var mp store.MatchPlayerParams
			if err := rows.Scan(&mp.BotID, &mp.BotVersionID); err != nil {
				t.Fatal(err)
			}
			p.Players = append(p.Players, mp)
		}
		rows.Close()
		var id int64
		err := st.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
			m, err := st.MatchCreate(ctx, p)
			if err != nil {
				return err
			}
			id = m.ID
			_, err = client.EnqueueMatchTx(ctx, tx, m.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}

	// followLive polls the page until cond holds while match id is played.
	// Each poll notes what the page shows, in session storage, which
	// survives a reload: if the wait fails, the test says what the page
	// went through and how the match was played.
	followLive := func(what string, id int64, cond string) {
		t.Helper()
		traced := `(() => {
			const v = document.getElementById("viewer"), b = document.querySelector(".live-badge");
			const now = (v ? "round " + v.dataset.index : "waiting") +
				(window.notReloaded === true ? "" : ", reloaded") + (b && !b.hidden ? ", live" : "");
			const log = sessionStorage.getItem("trace") || "";
			if (!log.endsWith(" " + now + "\n")) sessionStorage.setItem("trace", log + new Date().toISOString() + " " + now + "\n");
			return ` + cond + `;
		})()`
		run("clear the trace", chromedp.Evaluate[chromedp.Void](`sessionStorage.removeItem("trace")`))
		d.begin(what)
		ctx, cancel := context.WithTimeout(browser, 3*time.Minute)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](traced, chromedp.WithPollingTimeout(3*time.Minute))); err != nil {
			trace, _ := chromedp.Run(browser, chromedp.Evaluate[string](`sessionStorage.getItem("trace") || ""`))
			var status, times string
			_ = conn.QueryRow(ctx, `SELECT m.status, coalesce(m.started_at::text, '-') || ' to ' || coalesce(m.finished_at::text, '-') ||
				', attempts ' || coalesce((SELECT max(attempt) FROM river_job WHERE kind = 'match' AND (args->>'match_id')::bigint = m.id)::text, '-')
				FROM matches m WHERE m.id = $1`, id).Scan(&status, &times)
			d.fail(what, fmt.Errorf("%w\nmatch %d: %s, %s\nthe page, poll by poll:\n%s", err, id, status, times, trace))
		}
		d.begin("")
	}

	// Live: the page of a match just queued waits, then follows the rounds
	// as the worker plays them, without reloading, until the match ends.
	// The 7×7 map keeps the match short for the Python starters; the
	// playback rate of a 14×14 match is measured by the battleship view
	// test.
	live := queue("entelect", 1)
	liveURL := fmt.Sprintf("%s/matches/%d", base, live)
	run("open the queued match", navigate(liveURL), chromedp.WaitVisible(`#viewer .frame-name`))
	run("mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	first := index()
	followLive("a later round arrives live", live, fmt.Sprintf(`+document.getElementById("viewer").dataset.index > %d + 2 && window.notReloaded === true`, first))
	if badge := eval("the live badge", `document.querySelector(".live-badge").hidden ? 0 : 1`); badge != 1 {
		t.Errorf("no live badge while the match runs")
	}
	shot("entelect-live")
	run("the page reloads with the stored replay when the match ends",
		chromedp.WaitVisible(`//span[@class="match-status" and text()="finished"]`, chromedp.RetryInterval(time.Second)))
	// The other rule sets' live pages, each from the match's queueing to
	// its end. Their starters would play in a few seconds or less, so the
	// test's copies pause at each turn (slowStarterZip).
	others := map[string]int64{}
	for _, g := range games[1:] {
		id := queue(g.game, 0)
		others[g.game] = id
		url := fmt.Sprintf("%s/matches/%d", base, id)
		run("open the queued "+g.game+" match", navigate(url), chromedp.WaitVisible(`#viewer .frame-name`))
		run("mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
		first := index()
		followLive("a later "+g.game+" step arrives live", id, fmt.Sprintf(`+document.getElementById("viewer").dataset.index > %d + 2 && window.notReloaded === true && !document.querySelector(".live-badge").hidden`, first))
		shot(g.game + "-live")
		// The step shown is the last played so far, not the match's end.
		if step := d.get("the "+g.game+" step shown", chromedp.Text(chromedp.CSS(`#frame`))); strings.Contains(step, " wins.") || strings.Contains(step, "ends in a draw") || strings.Contains(step, " of 0") {
			t.Errorf("%s: a step of the running match reads as its end:\n%s", g.game, step)
		}
		run("the "+g.game+" page reloads with the stored replay when the match ends",
			chromedp.WaitVisible(`//span[@class="match-status" and text()="finished"]`, chromedp.RetryInterval(time.Second)))
	}

	// Playback of the finished match at 16×.
	run("open the finished match", navigate(liveURL+"?round=0"), chromedp.WaitVisible(`#viewer svg.grid`))
	count := eval("the round count", `+document.getElementById("viewer").dataset.count`)
	if cells := eval("the board size", `+document.querySelector("#viewer svg.grid").dataset.cols`); cells != 7 {
		t.Fatalf("board of %d columns, want 7", cells)
	}
	run("16×", chromedp.SetValue(chromedp.CSS(`select.speed`), "16"), chromedp.Click(chromedp.CSS(`button.play`)))
	start := time.Now()
	run("play four seconds", chromedp.Sleep(4*time.Second))
	played := index()
	elapsed := time.Since(start)
	run("pause", chromedp.Click(chromedp.CSS(`button.play`)))
	// The rate depends on the machine; that playing advances is what
	// the test holds.
	if played < 1 {
		t.Fatalf("played %d rounds in %v", played, elapsed)
	}
	rate := fmt.Sprintf("7x7 playback at 16x: %d rounds in %.2fs = %.1f rounds/s (%d rounds in the match)\n",
		played, elapsed.Seconds(), float64(played)/elapsed.Seconds(), count)
	t.Log(rate)
	os.WriteFile(filepath.Join(shots, "playback-rate.txt"), []byte(rate), 0o644)
	shot("entelect-playing")

	// The keyboard, with the URL following the round.
	keys := []struct {
		key  string
		want int
	}{{kb.End, count - 1}, {kb.ArrowLeft, count - 2}, {kb.Home, 0}, {kb.ArrowRight, 1}}
	run("focus the page", chromedp.Click(chromedp.CSS(`h1`)))
	for _, k := range keys {
		run("key", chromedp.KeyEvent(k.key),
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.getElementById("viewer").dataset.index === "%d"`, k.want)))
		loc := d.get("location", chromedp.Location())
		if !strings.HasSuffix(strings.Split(loc, "#")[0], fmt.Sprintf("?round=%d", k.want)) {
			t.Errorf("after a key the URL is %s, want round %d", loc, k.want)
		}
	}
	run("scrub to round 10", chromedp.SetValue(chromedp.CSS(`input.scrubber`), "10"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("input.scrubber").dispatchEvent(new Event("input"))`),
		chromedp.Poll[chromedp.Void](`document.getElementById("viewer").dataset.index === "10"`))
	name := d.get("round name", chromedp.Text(chromedp.CSS(`.frame-name`)))

	// A shared link opens that round in a new page.
	run("open the shared link", navigate(liveURL+"?round=10#viewer"), chromedp.WaitVisible(`#viewer svg.grid`))
	if got := d.get("round name", chromedp.Text(chromedp.CSS(`.frame-name`))); got != name {
		t.Errorf("shared link of round 10 shows %q, the player showed %q", got, name)
	}
	shot("entelect-shared-round")

	// The other rule sets: each finished match is drawn, plays and steps.
	for _, g := range games[1:] {
		id := others[g.game]
		d.waitFor(g.game+" match", fmt.Sprintf(`SELECT status IN ('finished', 'failed') FROM matches WHERE id = %d`, id))
		url := fmt.Sprintf("%s/matches/%d", base, id)
		run("open the "+g.game+" match", navigate(url), chromedp.WaitVisible(`#viewer svg.grid`),
			chromedp.Click(chromedp.CSS(`button.play`)),
			chromedp.Poll[chromedp.Void](`+document.getElementById("viewer").dataset.index >= 3`),
			chromedp.Click(chromedp.CSS(`button.play`)),
			chromedp.Click(chromedp.CSS(`h1`)),
			chromedp.KeyEvent(kb.End),
			chromedp.Poll[chromedp.Void](`document.getElementById("viewer").dataset.index === String(+document.getElementById("viewer").dataset.count - 1)`),
		)
		if n := eval("ships drawn", `document.querySelectorAll("#viewer svg.grid g.ship").length`); n == 0 {
			t.Errorf("%s: no ships drawn", g.game)
		}
		shot(g.game + "-last")
	}
}

// slowStarterZip zips a starter bot of bots/ that pauses at each of its
// turns, so that its match lasts long enough to be watched live, and
// returns the zip's path.
func slowStarterZip(t *testing.T, bot string) string {
	t.Helper()
	// Where each starter begins a turn: a program started per request, or
	// the line that asks a running program for its move.
	patches := map[string]struct{ file, anchor, pause string }{
		"brainjar-python3":   {"bot.py", "if __name__ == \"__main__\":\n", "    __import__(\"time\").sleep(0.1)\n"},
		"hitandsunk-python3": {"bot.py", "if __name__ == \"__main__\":\n", "    __import__(\"time\").sleep(0.05)\n"},
		"deepship-python3":   {"src/main.py", "        kind = msg[0]\n", "        if kind == \"take-turn\":\n            __import__(\"time\").sleep(0.02)\n"},
	}
	p, ok := patches[bot]
	if !ok {
		t.Fatalf("no pause known for %s", bot)
	}
	dir := filepath.Join(t.TempDir(), bot)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "bots", bot))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, p.file)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), p.anchor) {
		t.Fatalf("%s: %q is gone: the test no longer knows where a turn begins", file, p.anchor)
	}
	slow := strings.Replace(string(src), p.anchor, p.anchor+p.pause, 1)
	if err := os.WriteFile(file, []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	return zipToTemp(t, dir, bot+"-slow.zip")
}
