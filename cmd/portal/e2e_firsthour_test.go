package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// firstHourGames are the four games as a newcomer meets them: the
// getting started page's tab, the starter kit the house plays, the
// manifest the game expects and the name the newcomer gives the bot
// (none: the manifest's).
var firstHourGames = []struct {
	game, title, starter, manifest, name string
}{
	{"entelect", "Entelect", "entelect-python3", "bot.json", ""},
	{"brainjar", "BrainJar", "brainjar-python3", "bot.json", "Jar Jar"},
	{"deepship", "In Deep Ship", "deepship-python3", "entry.zon", "Nautilus"},
	{"hitandsunk", "Hit and Sunk", "hitandsunk-python3", "bot.json", "Kraken"},
}

// TestBrowserFirstHour walks a newcomer's first hour in headless Chromium,
// for all four games, on a portal whose house bots are the Python starters
// (as `make run` seeds them) and a real worker with its sandbox: the front
// page, getting started, the rules, a starter kit downloaded and uploaded
// as it is, its build, its first ladder match opened on its last step, a
// challenge and its result, then the bot's owner controls, the leaderboard
// and the match list. Screenshots of each page go to the test's artifacts
// (go test -artifacts -outputdir DIR).
func TestBrowserFirstHour(t *testing.T) {
	t.Parallel()
	bp := newBrowserPortal(t, 40*time.Minute, "LADDER_INTERVAL=2s", "LADDER_SLOTS=1", "WORKER_BUILD_CONCURRENCY=2")
	nc := &newcomer{browserPortal: bp, t: t, shots: t.ArtifactDir()}
	base := bp.base
	var starters []string
	for _, g := range firstHourGames {
		starters = append(starters, g.starter)
	}
	seedStarters(t, bp, starters)
	nc.run("a laptop's window", chromedp.EmulateViewport(1280, 1000))

	// The front page says how to take part, and links each game's page.
	nc.visit("the front page", base+"/", "h1")
	nc.mustSee("the front page", "Getting started", "In Deep Ship", "Hit and Sunk", "Recent matches")
	nc.shot("front-page")
	nc.run("getting started from the front page", chromedp.Click(chromedp.CSS(`a.button[href="/play"]`)),
		chromedp.WaitVisible(`//h1[text()="Getting started"]`))
	nc.shot("getting-started")
	nc.run("ada registers", bp.register("ada"))
	nc.mustSee("the new account page", "No bots yet", "Getting started")

	bots := map[string]int64{}
	for _, g := range firstHourGames {
		play := base + "/play/" + g.game
		nc.visit(g.title+"'s getting started page", play, "#starters")
		nc.mustSee(g.title+"'s getting started page", "Getting started: "+g.title, "The manifest: "+g.manifest,
			g.starter, "battleship view", "From a script: the API")
		if g.game == "entelect" || g.game == "deepship" {
			nc.shot("getting-started-" + g.game)
		}
		nc.run("read the rules of "+g.title, chromedp.Click(chromedp.CSS(`a.button[href="/docs/`+g.game+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`article.doc h1`)))
		if g.game == "deepship" {
			nc.mustSee("the rules of In Deep Ship", "BROADSIDE_SEED", "How your bot is run")
			nc.shot("rules-" + g.game)
		}
		nc.visit("back to getting started", play, "#starters")
		href := nc.js("the starter kit's link", `document.querySelector("a.download").href`)
		zipPath := nc.download(href, g.starter+".zip")
		zipHolds(t, zipPath, g.manifest)

		// The upload form, reached from the game's page, speaks of its
		// manifest; the starter goes up as it is.
		nc.run("the upload form for "+g.title, chromedp.Click(chromedp.CSS(`a.button[href="/bots/new?game=`+g.game+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`input[name=zip]`)))
		nc.mustSee("the upload form", "bot is a folder with "+g.manifest+" at its root")
		if g.name != "" {
			nc.run("name it", chromedp.SendKeys(chromedp.CSS(`input[name=name]`), g.name))
		}
		if g.game == "deepship" {
			nc.shot("upload-" + g.game)
		}
		nc.run("upload the "+g.title+" starter",
			chromedp.SetUploadFiles(chromedp.CSS(`input[name=zip]`), []string{zipPath}),
			chromedp.Submit(chromedp.CSS(`input[name=zip]`)),
			chromedp.WaitVisible(`//h2[text()="Versions"]`))
		loc := nc.get("the bot page's address", chromedp.Location())
		id, err := strconv.ParseInt(strings.TrimPrefix(strings.Split(loc, "?")[0], base+"/bots/"), 10, 64)
		if err != nil {
			t.Fatalf("the upload went to %s", loc)
		}
		bots[g.game] = id
	}

	// Each build, followed on its bot page.
	bp.waitFor("the four builds", `SELECT count(*) = 4 FROM bot_versions v JOIN bots b ON b.id = v.bot_id
		WHERE NOT b.house AND v.build_status IN ('ok', 'failed')`)
	for _, g := range firstHourGames {
		nc.visit(g.title+" bot page", fmt.Sprintf("%s/bots/%d", base, bots[g.game]), ".owner-controls")
		if status := nc.text("the build", ".build-ok, .build-failed"); status != "ok" {
			var log string
			_ = bp.conn.QueryRow(bp.ctx, `SELECT build_log FROM bot_versions WHERE bot_id = $1`, bots[g.game]).Scan(&log)
			t.Fatalf("%s: build %s\n%s", g.title, status, log)
		}
		if g.game == "deepship" {
			nc.mustSee("the In Deep Ship bot page", "Python") // its language, not "Executable"
		}
		if g.game == "entelect" || g.game == "deepship" {
			nc.shot("bot-built-" + g.game)
		}
	}

	// The first ladder match of each, against the house bot, opened from
	// the bot page on its last step; then the bot is paused on the ladder
	// while its owner tries challenges.
	for _, g := range firstHourGames {
		first := fmt.Sprintf(`SELECT min(m.id) FROM match_players p JOIN matches m ON m.id = p.match_id
			WHERE p.bot_id = %d AND m.status = 'finished'`, bots[g.game])
		bp.waitFor(g.title+"'s first match", `SELECT (`+first+`) IS NOT NULL`)
		var match int64
		if err := bp.conn.QueryRow(bp.ctx, first).Scan(&match); err != nil {
			t.Fatal(err)
		}
		bot := fmt.Sprintf("%s/bots/%d", base, bots[g.game])
		nc.visit(g.title+" bot page", bot, "table.history")
		nc.run("open the first match", chromedp.Click(chromedp.CSS(fmt.Sprintf(`table.history a[href="/matches/%d"]`, match))),
			chromedp.WaitVisible(chromedp.CSS(`#viewer svg.grid`)))
		viewerAtItsEnd(nc, g.title)
		nc.shot("first-match-" + g.game)
		nc.visit(g.title+" bot page", bot, ".owner-controls")
		nc.run("pause "+g.title+" on the ladder", chromedp.Click(`//button[text()="Pause on the ladder"]`),
			chromedp.WaitVisible(`//p[@role="status" and starts-with(., "Paused")]`))
	}

	// A challenge to each house bot: played at once, its result on the
	// challenge's page with its match linked.
	for _, g := range firstHourGames {
		var house int64
		if err := bp.conn.QueryRow(bp.ctx, `SELECT id FROM bots WHERE house AND game = $1`, g.game).Scan(&house); err != nil {
			t.Fatal(err)
		}
		nc.visit("the house bot "+g.starter, fmt.Sprintf("%s/bots/%d", base, house), "#challenge")
		nc.run("challenge "+g.starter, chromedp.Click(`//button[text()="Challenge"]`),
			chromedp.WaitVisible(`//h1[starts-with(., "Match #")]`))
		nc.run("the challenge's match ends", bp.matchOver())
		nc.visit("the challenges page", base+"/challenges", "h1")
		nc.run("open the challenge", chromedp.Click(chromedp.CSS(`table a[href^="/challenges/"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#challenge-result`)))
		result := nc.text("the challenge's result", "#challenge-result")
		if !strings.Contains(result, " won") && !strings.Contains(result, "draw") || !strings.Contains(result, "Watch match #") {
			t.Errorf("%s challenge: result %q", g.title, result)
		}
		if strings.Contains(nc.text("the challenge page", "main"), "@challengeResult") {
			t.Errorf("the challenge page prints a template call")
		}
		nc.shot("challenge-" + g.game)
		nc.run("watch the challenge's match", chromedp.Click(`//a[starts-with(., "Watch match #")]`),
			chromedp.WaitVisible(chromedp.CSS(`#viewer svg.grid`)))
		viewerAtItsEnd(nc, g.title)
	}

	ownerControls(nc, bots["entelect"])

	nc.visit("the leaderboard", base+"/leaderboard?game=hitandsunk", "#how-ranking")
	nc.mustSee("the leaderboard", "Kraken", "ada", "house bot", "Conservative rating", "± on every page is two deviations", "How ranking works")
	nc.shot("leaderboard-hitandsunk")
	nc.visit("the match list", base+"/matches", "h1")
	nc.mustSee("the match list", "(ada)", "(house bot)", "In Deep Ship", "turns", "shots")
	nc.shot("matches")
}

// viewerAtItsEnd checks a finished match's page as it opens: on its last
// step, counted in the game's unit in the header, the title and the
// stepper alike, with nowhere further to go, and the owner's log of the
// step beside the board.
func viewerAtItsEnd(nc *newcomer, game string) {
	nc.t.Helper()
	at := nc.js("the step shown", `document.getElementById("viewer").dataset.index + " of " + document.getElementById("viewer").dataset.count`)
	var index, count int
	if _, err := fmt.Sscanf(at, "%d of %d", &index, &count); err != nil || index != count-1 {
		nc.t.Errorf("%s: the match opens on step %s, want its last", game, at)
	}
	title, stepper := nc.text("the step's title", ".frame-name"), nc.text("the stepper", ".step-name")
	if title != stepper || !strings.Contains(title, " of ") {
		nc.t.Errorf("%s: title %q, stepper %q", game, title, stepper)
	}
	if next := nc.js("the next link", `document.querySelector('a[rel="next"]').hasAttribute("href") ? "link" : "none"`); next != "none" {
		nc.t.Errorf("%s: the last step's Next is a link", game)
	}
	header := nc.text("the header", "main > p")
	if !strings.Contains(header, " rounds") && !strings.Contains(header, " shots") && !strings.Contains(header, " turns") {
		nc.t.Errorf("%s: the header gives no length in the game's unit: %q", game, header)
	}
	if log := nc.text("the owner's log", "details.bot-log summary"); !strings.Contains(log, "Your bot's log of this") {
		nc.t.Errorf("%s: no step log for the owner: %q", game, log)
	}
}

// ownerControls renames the bot, downloads its version and build log,
// retires it (it leaves the leaderboard), brings it back and resumes it.
func ownerControls(nc *newcomer, botID int64) {
	nc.t.Helper()
	base := nc.base
	bot := fmt.Sprintf("%s/bots/%d", base, botID)
	nc.visit("the Entelect bot page", bot, ".owner-controls")
	nc.run("rename it", chromedp.SetValue(chromedp.CSS(`form.rename input[name=name]`), "Ada's Admiral"),
		chromedp.Click(`//button[text()="Rename"]`), chromedp.WaitVisible(`//h1[text()="Ada's Admiral"]`))
	zipStatus := nc.js("download the version", `fetch(document.querySelector('a[href$="/versions/1/source.zip"]').href).then(r => r.status + " " + r.headers.get("Content-Type"))`)
	logText := nc.js("read the build log", `fetch(document.querySelector('a[href$="/versions/1/build.log"]').href).then(r => r.text())`)
	if zipStatus != "200 application/zip" || logText == "" {
		nc.t.Errorf("downloads: zip %q, build log %q", zipStatus, logText)
	}
	nc.shot("owner-controls-paused")
	nc.run("retire it", chromedp.Click(`//button[text()="Retire"]`),
		chromedp.WaitVisible(`//p[@role="status" and starts-with(., "Retired")]`))
	nc.visit("the leaderboard", base+"/leaderboard", "h1")
	if strings.Contains(nc.text("the leaderboard", "main"), "Ada's Admiral") {
		nc.t.Errorf("a retired bot is on the leaderboard")
	}
	nc.visit("the bot page", bot, ".owner-controls")
	nc.run("bring it back", chromedp.Click(`//button[text()="Bring it back"]`),
		chromedp.WaitVisible(`//p[@role="status" and starts-with(., "Back from retirement")]`))
	nc.run("resume it", chromedp.Click(`//button[text()="Resume on the ladder"]`),
		chromedp.WaitVisible(`//p[@role="status" and starts-with(., "Back on the ladder")]`))
	nc.shot("owner-controls")
}
