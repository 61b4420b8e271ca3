package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserDuel: a contestant starts a duel of their bot against the
// house bot from the bot's page, with at most two games; the duel page
// follows it live while a real worker plays the games, and ends with the
// verdict, the score and the games, each opening its match page.
func TestBrowserDuel(t *testing.T) {
	t.Parallel()
	// The ladder stays off: its matches would wait beside the duel's.
	bp := newBrowserPortal(t, 10*time.Minute, "LADDER_INTERVAL=off")
	seedStarters(t, bp, []string{"entelect-python3"})
	bp.run("dee uploads Duelist", bp.register("dee"), bp.upload("Duelist", starterZip(t, "entelect-python3")))
	botURL := strings.Split(bp.get("the bot page", chromedp.Location()), "?")[0]
	// The page reloads itself when the build ends; a form sent before
	// that reload would be lost to it.
	bp.run("Duelist's build", chromedp.WaitVisible(`//span[contains(@class, "build-ok")]`))

	// The form picks the house bot: the only side that is not Duelist's
	// playing version.
	bp.run("dee starts a duel of two games",
		navigate(botURL),
		chromedp.WaitVisible(`//button[text()="Start duel"]`),
		chromedp.SetValue(chromedp.CSS(`input[name=max_games]`), "2"),
		chromedp.Click(`//button[text()="Start duel"]`),
		chromedp.WaitVisible(`//h1[starts-with(., "Duel #")]`),
	)
	// A mark that a reload would wipe: the verdict must come through the
	// page's event stream.
	bp.get("mark the page", chromedp.Evaluate[string](`window.duelMark = "kept"`))
	bp.run("the verdict arrives live", chromedp.WaitVisible(chromedp.CSS(`#duel-verdict`)))
	if mark := bp.get("the mark", chromedp.Evaluate[string](`String(window.duelMark)`)); mark != "kept" {
		t.Errorf("the page reloaded for the verdict (mark %q), want it drawn from the event stream", mark)
	}
	if v := bp.get("the verdict", chromedp.Text(chromedp.CSS(`#duel-verdict`))); v != "undecided" {
		t.Errorf("verdict %q after two games, want undecided (two games are too few for the test)", v)
	}
	score := bp.get("the score", chromedp.Text(chromedp.CSS(`#duel-score`)))
	if !strings.Contains(score, "2 games counted") || !strings.Contains(score, "95% interval") {
		t.Errorf("score line %q", score)
	}
	games := bp.get("the games", chromedp.Text(chromedp.CSS(`#duel-games tbody`)))
	if n := strings.Count(games, "#"); n != 2 {
		t.Errorf("%d games listed, want 2:\n%s", n, games)
	}
	var first int64
	if err := bp.conn.QueryRow(bp.ctx, `SELECT min(id) FROM matches WHERE kind = 'duel' AND status = 'finished'`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	bp.run("the first game opens in the viewer",
		chromedp.Click(fmt.Sprintf(`//table[@id="duel-games"]//a[@href="/matches/%d"]`, first)),
		chromedp.WaitVisible(fmt.Sprintf(`//h1[starts-with(., "Match #%d")]`, first)),
		bp.matchOver(),
	)
	bp.run("the bot page lists the duel",
		navigate(botURL),
		chromedp.WaitVisible(`//table[contains(@class, "duel-list")]//td[text()="undecided"]`),
	)
}
