package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserClanChallenge drives a clan of three through the portal with
// headless Chromium: ann founds a clan, ben and cat join it through its
// invite link, ben challenges ann's bot, ann accepts on the challenges
// page, a real worker plays the match, and its result shows on both bots'
// pages, the challenges page and the clan page.
func TestBrowserClanChallenge(t *testing.T) {
	t.Parallel()
	// The ladder stays off: its matches would crowd the bot pages this test reads.
	bp := newBrowserPortal(t, 10*time.Minute, "LADDER_INTERVAL=off")
	ctx, base, conn := bp.ctx, bp.base, bp.conn

	zipPath := starterZip(t, "entelect-python3")
	run, get, register, login := bp.run, bp.get, bp.register, bp.login
	upload := func(name string) chromedp.Action[chromedp.Void] { return bp.upload(name, zipPath) }
	logout := bp.logout()
	join := func(user, invite string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			register(user),
			navigate(invite),
			chromedp.Click(`//button[text()="Join Kraken"]`),
			chromedp.WaitVisible(`//p[contains(., "you are now a member")]`),
		)
	}

	run("ann founds a clan",
		register("ann"),
		navigate(base+"/clans"),
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Kraken"),
		chromedp.Click(`//button[text()="Found the clan"]`),
		chromedp.WaitVisible(`//h1[text()="Kraken"]`),
	)
	clanURL := strings.Split(get("the clan page", chromedp.Location()), "?")[0]
	invite := get("the invite link", chromedp.Text(chromedp.CSS(`#invite-link`)))
	if !strings.HasPrefix(invite, clanURL+"?key=") {
		t.Fatalf("invite link %q is not for %s", invite, clanURL)
	}
	run("ann uploads Pyro", upload("Pyro"))
	pyroURL := strings.Split(get("Pyro's page", chromedp.Location()), "?")[0]
	run("ann logs out", logout)
	run("cat joins through the invite link", join("cat", invite), logout)
	run("ben joins through the invite link", join("ben", invite))
	run("ben uploads Shark", upload("Shark"))
	sharkURL := strings.Split(get("Shark's page", chromedp.Location()), "?")[0]

	run("the clan page lists its three members", navigate(clanURL))
	members := get("the members", chromedp.Text(`//h2[text()="Members"]/following-sibling::table[1]`))
	for _, who := range []string{"ann", "ben", "cat"} {
		if !strings.Contains(members, who) {
			t.Fatalf("the clan's members lack %s:\n%s", who, members)
		}
	}

	bp.waitFor("both builds to succeed",
		`SELECT count(*) = 2 FROM bot_versions WHERE build_status = 'ok'`)

	run("ben challenges Pyro with Shark",
		navigate(pyroURL),
		chromedp.WaitVisible(`//button[text()="Challenge"]`),
		chromedp.Click(`//button[text()="Challenge"]`),
		chromedp.WaitVisible(`//h1[starts-with(., "Challenge #")]`),
	)
	if s := get("the challenge's status", chromedp.Text(chromedp.CSS(`#challenge-status`))); s != "pending" {
		t.Fatalf("a new challenge is %q, want pending", s)
	}
	run("ben logs out", logout)

	run("ann accepts on the challenges page",
		login("ann"),
		navigate(base+"/challenges"),
		chromedp.Click(`//button[text()="Accept"]`),
		chromedp.WaitVisible(`//h1[starts-with(., "Match #")]`),
	)
	matchURL := get("the match page", chromedp.Location())
	var matchID int64
	if _, err := fmt.Sscanf(strings.TrimPrefix(matchURL, base), "/matches/%d", &matchID); err != nil {
		t.Fatalf("accepting landed on %q", matchURL)
	}
	bp.waitFor("the match to end",
		fmt.Sprintf(`SELECT status IN ('finished', 'failed') FROM matches WHERE id = %d`, matchID))
	run("the match page shows the match over", bp.matchOver())
	var status, winner string
	if err := conn.QueryRow(ctx, `
		SELECT m.status, coalesce((SELECT b.name || ' (' || u.username || ')'
		                           FROM match_players p JOIN bots b ON b.id = p.bot_id JOIN users u ON u.id = b.owner_id
		                           WHERE p.match_id = m.id AND p.outcome = 'win'), 'draw')
		FROM matches m WHERE m.id = $1`, matchID).Scan(&status, &winner); err != nil || status != "finished" {
		t.Fatalf("match %d: %s, %v", matchID, status, err)
	}

	// The result, with a link to its match, on both bots' pages.
	link := fmt.Sprintf(`//a[@href="/matches/%d"]/ancestor::tr`, matchID)
	for _, botURL := range []string{pyroURL, sharkURL} {
		run("a bot page after the match", navigate(botURL))
		row := get("the match's row", chromedp.Text(link))
		if !strings.Contains(row, "challenge") || !(strings.Contains(row, "win") || strings.Contains(row, "loss") || strings.Contains(row, "draw")) {
			t.Fatalf("%s shows the match as %q", botURL, row)
		}
	}
	run("the challenges page", navigate(base+"/challenges"))
	result := get("the challenge's result", chromedp.Text(fmt.Sprintf(`//td/a[@href="/matches/%d"]`, matchID)))
	want := winner + " won"
	if winner == "draw" {
		want = "draw"
	}
	if result != want {
		t.Fatalf("the challenges page says %q, want %q", result, want)
	}
	run("the clan page", navigate(clanURL))
	if rows := get("the clan's results", chromedp.Text(`//h2[text()="Results"]/following-sibling::table[1]`)); !strings.Contains(rows, fmt.Sprintf("#%d", matchID)) {
		t.Fatalf("the clan's results lack match %d:\n%s", matchID, rows)
	}
}
