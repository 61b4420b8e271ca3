package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserNewBotPlaysAtOnce: two contestants upload a bot each and do
// nothing else. With the ladder on its default interval, the worker's
// periodic jobs alone pair them in a placement match as soon as the builds
// succeed; the bot page follows the match, then shows it played and rated.
// An organiser's console shows the periodic jobs running.
func TestBrowserNewBotPlaysAtOnce(t *testing.T) {
	t.Parallel()
	const ladderEvery = 30 * time.Second // the default
	d := newBrowserPortal(t, 10*time.Minute)
	ctx, base, conn := d.ctx, d.base, d.conn

	zipPath := starterZip(t, "entelect-python3")
	upload := func(name string) chromedp.Action[chromedp.Void] { return d.upload(name, zipPath) }
	logout := d.logout()
	d.run("ann uploads", d.register("ann"), upload("Pyro"), logout)
	d.run("ben uploads", d.register("ben"), upload("Snake"))
	uploaded := time.Now()
	snakeURL := strings.Split(d.get("ben's bot page", chromedp.Location()), "?")[0]

	d.waitFor("a placement match to be created",
		`SELECT EXISTS (SELECT 1 FROM matches WHERE kind = 'placement' AND ranked)`)
	var gap time.Duration
	if err := conn.QueryRow(ctx, `
		SELECT (SELECT min(created_at) FROM matches WHERE kind = 'placement')
		     - (SELECT max(built_at) FROM bot_versions)`).Scan(&gap); err != nil {
		t.Fatal(err)
	}
	if gap > ladderEvery {
		t.Errorf("first placement match created %s after the last build, more than one ladder interval", gap)
	}
	d.run("ben's bot page while it plays", navigate(snakeURL),
		chromedp.WaitVisible(`//p[contains(@class, "ladder-next") and (contains(., "Playing now") or contains(., "is queued, waiting for a worker"))]`))

	d.waitFor("the placement match to be played",
		`SELECT EXISTS (SELECT 1 FROM matches WHERE kind = 'placement' AND status IN ('finished', 'failed'))`)
	var status, msg string
	var matchID int64
	if err := conn.QueryRow(ctx, `SELECT id, status, error FROM matches WHERE kind = 'placement' AND status IN ('finished', 'failed') ORDER BY id LIMIT 1`).
		Scan(&matchID, &status, &msg); err != nil {
		t.Fatal(err)
	}
	if status != "finished" {
		t.Fatalf("placement match %d %s: %s", matchID, status, msg)
	}
	t.Logf("upload to first finished ranked match: %s (first match created %s after the builds)", time.Since(uploaded).Round(time.Second), gap.Round(time.Millisecond))

	d.run("ben's bot page after the match", navigate(snakeURL),
		chromedp.WaitVisible(fmt.Sprintf(`//a[@href="/matches/%d"]`, matchID)))
	page := d.get("the bot page", chromedp.Text(chromedp.CSS("main")))
	if !strings.Contains(page, "Placement matches left: 4") && !strings.Contains(page, "Placement matches left: 3") {
		t.Errorf("bot page does not count the placement games left:\n%s", page)
	}

	d.run("olga registers", logout, d.register("olga"), logout)
	if code := run(ctx, []string{"make-organiser", "olga"}, d.getenv, io.Discard, os.Stderr); code != 0 {
		t.Fatalf("make-organiser: exit %d", code)
	}
	d.run("olga opens the console", d.login("olga"), navigate(base+"/admin"),
		chromedp.WaitVisible(`//table[contains(@class, "periodic")]//td[text()="ladder_tick"]`))
	console := d.get("the periodic jobs", chromedp.Text(chromedp.CSS("table.periodic")))
	for _, want := range []string{"battle_tick", "ladder_tick", "rescue", "on time"} {
		if !strings.Contains(console, want) {
			t.Errorf("periodic jobs table lacks %q:\n%s", want, console)
		}
	}
	if strings.Contains(console, "overdue") {
		t.Errorf("a periodic job is overdue on a running platform:\n%s", console)
	}
}
