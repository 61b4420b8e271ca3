package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/store"
)

// TestBrowserBattle drives a double-elimination battle of 8 bots with
// headless Chromium: an account made organiser with `portal
// make-organiser` creates the battle through the form, a contestant
// enters eight bots, the organiser starts it, a real worker plays every
// bracket match as the results land, and the battle's leaderboard shows
// the final positions.
func TestBrowserBattle(t *testing.T) {
	t.Parallel()
	bp := newBrowserPortal(t, 10*time.Minute, "BATTLE_INTERVAL=1s", "LADDER_INTERVAL=off")
	ctx, base, conn, browser := bp.ctx, bp.base, bp.conn, bp.browser

	data, err := botzip.Pack(filepath.Join("..", "..", "bots", "entelect-go-reference"))
	if err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(t.TempDir(), "gopher.zip")
	if err := os.WriteFile(zipPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	step := bp.run
	account := func(path, user string) chromedp.Action[chromedp.Void] {
		if path == "/register" {
			return bp.register(user)
		}
		return bp.login(user)
	}
	logout := bp.logout()

	step("olga registers", account("/register", "olga"), logout)
	if code := run(ctx, []string{"make-organiser", "olga"}, bp.getenv, io.Discard, os.Stderr); code != 0 {
		t.Fatalf("make-organiser: exit %d", code)
	}
	step("ann registers and uploads a bot", account("/register", "ann"), bp.upload("Gopher 1", zipPath))
	bp.waitFor("the build", `SELECT count(*) = 1 FROM bot_versions WHERE build_status IN ('ok', 'failed')`)
	// Seven more bots share the built artifact: one build keeps the test
	// about the battle, not about compiling the same bot eight times.
	st := bp.st
	var annID int64
	var artifact string
	if err := conn.QueryRow(ctx, `SELECT b.owner_id, v.artifact_key FROM bot_versions v JOIN bots b ON b.id = v.bot_id
		WHERE v.build_status = 'ok'`).Scan(&annID, &artifact); err != nil {
		t.Fatalf("the upload did not build: %v", err)
	}
	for i := 2; i <= 8; i++ {
		res, err := st.UploadRecord(ctx, store.UploadParams{
			OwnerID: annID, Name: fmt.Sprintf("Gopher %d", i), Game: "entelect", Language: "Go", BotType: "Golang",
			Manifest: json.RawMessage(`{"BotType":"Golang","RunFile":"bot"}`), SourceSHA256: "00", SourceSize: int64(len(data)),
			SourceKey: blob.SourceKey,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.BotVersionFinishBuild(ctx, res.VersionID, store.BuildResult{OK: true, Log: "copied", ArtifactKey: artifact}); err != nil {
			t.Fatal(err)
		}
	}
	step("ann logs out", logout)

	step("olga creates a battle", account("/login", "olga"),
		navigate(base+"/battles"),
		chromedp.Click(`//a[text()="Create a battle"]`),
		chromedp.WaitVisible(`//h1[text()="New battle"]`),
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Autumn cup"),
		chromedp.SetValue(chromedp.CSS(`select[name=format]`), "double_elimination"),
		chromedp.SetValue(chromedp.CSS(`input[name=map_size]`), "1"),
		chromedp.SetValue(chromedp.CSS(`input[name=games_per_pairing]`), "1"),
		chromedp.Click(`//button[text()="Create battle"]`),
		chromedp.WaitVisible(`//h1[text()="Autumn cup"]`),
	)
	battleURL, err := chromedp.Run(browser, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	step("olga logs out", logout)
	battleURL = strings.Split(battleURL, "?")[0]
	var battleID int64
	if _, err := fmt.Sscanf(strings.TrimPrefix(battleURL, base), "/battles/%d", &battleID); err != nil {
		t.Fatalf("battle created at %q", battleURL)
	}

	step("ann logs in", account("/login", "ann"))
	for i := 1; i <= 8; i++ {
		step(fmt.Sprintf("ann enters bot %d", i),
			navigate(battleURL),
			chromedp.Click(`//button[text()="Enter bot"]`),
			chromedp.WaitVisible(fmt.Sprintf(`//table[contains(@class, "entries")]/tbody[count(tr) = %d]`, i)),
		)
	}
	step("ann logs out", logout)
	step("olga starts the battle", account("/login", "olga"),
		navigate(battleURL),
		chromedp.Click(`//button[text()="Start now"]`),
		chromedp.WaitVisible(`//dd[@class="battle-status" and text()="running"]`),
	)
	bp.waitFor("the battle to end",
		fmt.Sprintf(`SELECT status IN ('finished', 'canceled') FROM battles WHERE id = %d`, battleID))

	var failed int
	_ = conn.QueryRow(ctx, `SELECT count(*) FROM battle_games g JOIN matches m ON m.id = g.match_id
		WHERE g.battle_id = $1 AND m.status <> 'finished'`, battleID).Scan(&failed)
	if failed > 0 {
		t.Errorf("%d battle games did not finish", failed)
	}
	step("the battle page", navigate(battleURL), chromedp.WaitVisible(`//h2[text()="Final positions"]`))
	board, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS(`table.battle-leaderboard tbody`)))
	if err != nil {
		t.Fatal(err)
	}
	bracket, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS(`table.bracket`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bracket, "Grand final") {
		t.Errorf("bracket lacks the grand final:\n%s", bracket)
	}
	rows := strings.Split(strings.TrimSpace(board), "\n")
	for i := 1; i <= 8; i++ {
		if !strings.Contains(board, fmt.Sprintf("Gopher %d", i)) {
			t.Errorf("leaderboard lacks Gopher %d:\n%s", i, board)
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(rows[0]), "1") {
		t.Errorf("leaderboard does not start with position 1:\n%s", board)
	}
	var first, second, placed int
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE final_position = 1), count(*) FILTER (WHERE final_position = 2),
		count(final_position) FROM battle_entries WHERE battle_id = $1`, battleID).Scan(&first, &second, &placed); err != nil {
		t.Fatal(err)
	}
	if first != 1 || second != 1 || placed != 8 {
		t.Errorf("final positions: %d first, %d second, %d placed of 8", first, second, placed)
	}
}
