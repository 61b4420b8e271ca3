package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
)

// TestBrowserHitAndSunk drives the portal with headless Chromium for a
// game other than Entelect: three Hit and Sunk starters uploaded through
// the form are built by a real worker process, a three-seat free-for-all
// is played, and its page shows the players in finishing order and a
// replay stepped by plain links; the leaderboard's Hit and Sunk tab lists
// the bots rated on that ladder.
func TestBrowserHitAndSunk(t *testing.T) {
	t.Parallel()
	bp := newBrowserPortal(t, 10*time.Minute, "LADDER_INTERVAL=off")
	ctx, base, conn, pool := bp.ctx, bp.base, bp.conn, bp.pool
	zipPath := starterZip(t, "hitandsunk-python3")
	browser, run := bp.browser, bp.run
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}

	run("ann registers", bp.register("ann"))
	names := []string{"Kraken", "Leviathan", "Scylla"}
	for _, name := range names {
		run("ann uploads "+name, bp.upload(name, zipPath))
	}
	bp.waitFor("the builds", `SELECT count(*) = 3 FROM bot_versions WHERE build_status IN ('ok', 'failed')`)
	if n := countRows(t, ctx, conn, `SELECT count(*) FROM bots WHERE game = 'hitandsunk' AND current_version_id IS NOT NULL`); n != 3 {
		t.Fatalf("%d built Hit and Sunk bots, want 3", n)
	}

	// The ladder never pairs one owner's bots: the match is queued as an
	// organiser's would be.
	st := bp.st
	client, err := jobs.NewClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	p := store.MatchCreateParams{Game: "hitandsunk", Seed: 11, Kind: "ladder", Ranked: true}
	rows, _ := conn.Query(ctx, `SELECT id, current_version_id FROM bots ORDER BY id`)
	for rows.Next() {
		var mp store.MatchPlayerParams
		if err := rows.Scan(&mp.BotID, &mp.BotVersionID); err != nil {
			t.Fatal(err)
		}
		p.Players = append(p.Players, mp)
	}
	rows.Close()
	var matchID int64
	err = st.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		mr, err := st.MatchCreate(ctx, p)
		if err != nil {
			return err
		}
		matchID = mr.ID
		_, err = client.EnqueueMatchTx(ctx, tx, mr.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	bp.waitFor("the match", fmt.Sprintf(`SELECT status IN ('finished', 'failed') FROM matches WHERE id = %d`, matchID))

	matchURL := fmt.Sprintf("%s/matches/%d", base, matchID)
	run("the match page", navigate(matchURL), chromedp.WaitVisible(`#viewer svg.grid`))
	// A finished match opens on its end; its first step is a link away.
	if got := text(`.frame-name`); !strings.HasPrefix(got, "Round ") || !strings.Contains(got, " of ") {
		t.Fatalf("the match opens on %q, want its last round", got)
	}
	run("the match's start", navigate(matchURL+"?round=0"), chromedp.WaitVisible(`#viewer svg.grid`))
	if s := text(`.match-status`); s != "finished" {
		t.Fatalf("match status %s", s)
	}
	var order []string
	rows, _ = conn.Query(ctx, `SELECT b.name FROM match_players p JOIN bots b ON b.id = p.bot_id WHERE p.match_id = $1 ORDER BY p.rank, p.seat`, matchID)
	for rows.Next() {
		var n string
		rows.Scan(&n)
		order = append(order, n)
	}
	rows.Close()
	table, last := text(`tbody`), -1
	for _, n := range order {
		at := strings.Index(table, n)
		if at <= last {
			t.Fatalf("results not in finishing order %v:\n%s", order, table)
		}
		last = at
	}
	if got := text(`.frame-name`); got != "Start" {
		t.Fatalf("replay heading %q", got)
	}
	run("step to round 1 by the link", chromedp.Click(`//a[@rel="next"]`), chromedp.WaitVisible(`//h3[@class="frame-name" and starts-with(., "Round 1 of")]`))
	ships, err := chromedp.Run(browser, chromedp.Evaluate[int](`document.querySelectorAll("#viewer svg.grid g.ship").length`))
	if err != nil || ships != len(names) {
		t.Fatalf("%d ships drawn after round 1, want %d (%v)", ships, len(names), err)
	}
	if events := text(`.replay-events`); !strings.Contains(events, "(ship 0):") {
		t.Fatalf("round 1 turns:\n%s", events)
	}

	run("the Hit and Sunk ladder by its tab",
		navigate(base+"/leaderboard"),
		chromedp.Click(`//nav[@class="tabs"]/a[text()="Hit and Sunk"]`),
		chromedp.WaitVisible(`//h1[text()="Leaderboard: Hit and Sunk"]`),
	)
	board := text(`table`)
	for _, n := range names {
		if !strings.Contains(board, n) {
			t.Errorf("Hit and Sunk leaderboard lacks %s:\n%s", n, board)
		}
	}
	if n := countRows(t, ctx, conn, `SELECT count(*) FROM ratings WHERE ladder = 'hitandsunk' AND games = 1`); n != 3 {
		t.Fatalf("%d bots rated on the Hit and Sunk ladder, want 3", n)
	}
}

func countRows(t *testing.T, ctx context.Context, conn *pgx.Conn, query string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(ctx, query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
