package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/botzip"
	"github.com/chromedp/chromedp"
)

// TestBrowserOriginalBotTypes uploads, through the form, the C# starter and
// one bot of each 2017 type this platform cannot build: the C# bot's page
// shows a successful build and it plays a challenge; each other page shows
// its failed build with the reason.
func TestBrowserOriginalBotTypes(t *testing.T) {
	t.Parallel()
	bp := newBrowserPortal(t, 10*time.Minute, "LADDER_INTERVAL=off")
	ctx, base, conn := bp.ctx, bp.base, bp.conn

	dir := t.TempDir()
	zipOf := func(name, src string, files map[string]string) string {
		t.Helper()
		folder := filepath.Join(dir, name)
		if src != "" {
			if err := os.CopyFS(folder, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
		}
		for rel, body := range files {
			p := filepath.Join(folder, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		data, err := botzip.Pack(folder)
		if err != nil {
			t.Fatal(err)
		}
		path := folder + ".zip"
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	starters := filepath.Join("..", "..", "bots")
	refused := []struct{ name, zip, want string }{
		{"Fennel", zipOf("fsharp", "", map[string]string{
			"bot.json": `{"BotType":"FSharp","ProjectLocation":"","RunFile":"bin\\Release\\Bot.exe"}`, "Bot.fsproj": "<Project/>"}),
			"no F# compiler"},
		{"Scalpel", zipOf("scala", "", map[string]string{
			"bot.json": `{"BotType":"Scala","ProjectLocation":"","RunFile":"bot.jar"}`, "build.sbt": "name := \"bot\"\n"}),
			"sbt is not available here"},
		{"Nugget", zipOf("nuget", filepath.Join(starters, "entelect-csharp"), map[string]string{
			"packages.config": `<packages><package id="Newtonsoft.Json" version="10.0.3" /></packages>`}),
			"NuGet package(s) Newtonsoft.Json 10.0.3 are not in the bot's packages/ folder"},
	}

	run, get := bp.run, bp.get
	upload := func(name, zipPath string) string {
		t.Helper()
		run("upload "+name, bp.upload(name, zipPath))
		return strings.Split(get(name+"'s page", chromedp.Location()), "?")[0]
	}
	// buildOf opens a bot's page once its build ended and returns the
	// build status and log shown there.
	buildOf := func(name, url string) (string, string) {
		t.Helper()
		bp.waitFor("the build of "+name, fmt.Sprintf(
			`SELECT build_status IN ('ok', 'failed') FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = '%s'`, name))
		run(name+"'s page", navigate(url), chromedp.WaitVisible(`//summary[text()="Build log"]`))
		return get(name+"'s build status", chromedp.Text(chromedp.CSS(`span[class^="build-"]`))),
			get(name+"'s build log", chromedp.TextContent(chromedp.CSS(`details pre`)))
	}

	run("ann registers", bp.register("ann"))
	sharpURL := upload("Sharpie", zipOf("csharp", filepath.Join(starters, "entelect-csharp"), nil))
	urls := map[string]string{}
	for _, r := range refused {
		urls[r.name] = upload(r.name, r.zip)
	}
	for _, r := range refused {
		status, log := buildOf(r.name, urls[r.name])
		if status != "failed" || !strings.Contains(log, r.want) {
			t.Errorf("%s: build %q, log lacks %q:\n%s", r.name, status, r.want, log)
		}
	}
	status, log := buildOf("Sharpie", sharpURL)
	if status != "ok" || !strings.Contains(log, "xbuild") || !strings.Contains(log, "Build succeeded.") {
		t.Fatalf("C# starter: build %q:\n%s", status, log)
	}
	run("ann accepts challenges automatically",
		navigate(base+"/challenges"),
		chromedp.Click(`//button[text()="Accept all challenges automatically"]`),
		chromedp.WaitVisible(`//p[contains(., "now accepted automatically")]`),
	)
	run("ann logs out", bp.logout())
	run("ben registers", bp.register("ben"))
	upload("Pyro", zipOf("python", filepath.Join(starters, "entelect-python3"), nil))
	bp.waitFor("Pyro's build", `SELECT build_status = 'ok' FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = 'Pyro'`)
	run("ben challenges Sharpie",
		navigate(sharpURL),
		chromedp.WaitVisible(`//button[text()="Challenge"]`),
		chromedp.Click(`//button[text()="Challenge"]`),
		chromedp.WaitVisible(`//h1[starts-with(., "Match #")]`),
	)
	matchURL := get("the match page", chromedp.Location())
	var matchID int64
	if _, err := fmt.Sscanf(strings.TrimPrefix(matchURL, base), "/matches/%d", &matchID); err != nil {
		t.Fatalf("challenge landed on %q", matchURL)
	}
	bp.waitFor("the match to end", fmt.Sprintf(`SELECT status IN ('finished', 'failed') FROM matches WHERE id = %d`, matchID))
	run("the match page shows the match over", bp.matchOver())
	if s := get("the match status", chromedp.Text(chromedp.CSS(`.match-status`))); s != "finished" {
		var msg string
		_ = conn.QueryRow(ctx, `SELECT error FROM matches WHERE id = $1`, matchID).Scan(&msg)
		t.Fatalf("match %d: %s: %s", matchID, s, msg)
	}
	players := get("the match players", chromedp.Text(chromedp.CSS(`tbody`)))
	if !strings.Contains(players, "Sharpie") || !strings.Contains(players, "Pyro") {
		t.Fatalf("match page players:\n%s", players)
	}
	var fired int
	if err := conn.QueryRow(ctx, `SELECT shots_fired FROM match_players mp JOIN bots b ON b.id = mp.bot_id
		WHERE mp.match_id = $1 AND b.name = 'Sharpie'`, matchID).Scan(&fired); err != nil || fired == 0 {
		t.Fatalf("Sharpie fired %d shots (%v)", fired, err)
	}
}
