package web_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
)

// gameBot records a built bot of owner that plays game.
func (b *testBundle) gameBot(t *testing.T, ownerID int64, name, game string) [2]int64 {
	t.Helper()
	res, err := b.st.UploadRecord(b.ctx, store.UploadParams{
		OwnerID: ownerID, Name: name, Game: game, Language: "Python3", BotType: "Python3",
		Manifest: json.RawMessage(fmt.Sprintf(`{"BotType":"Python3","Game":%q}`, game)), SourceSHA256: "00", SourceSize: 10,
		SourceKey: blob.SourceKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, res.VersionID, store.BuildResult{OK: true, ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	return [2]int64{res.BotID, res.VersionID}
}

// gameMatch records a finished match of game between bots (bot, version
// pairs) with results, its replay.json from testdata in the blob store.
func (b *testBundle) gameMatch(t *testing.T, game string, bots [][2]int64, results []store.MatchPlayerResult) int64 {
	t.Helper()
	p := store.MatchCreateParams{Game: game, Seed: 11, Kind: "ladder", Ranked: true}
	for _, bot := range bots {
		p.Players = append(p.Players, store.MatchPlayerParams{BotID: bot[0], BotVersionID: bot[1]})
	}
	m, err := b.st.MatchCreate(b.ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "replays", game+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("replay.json")
	w.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("replays/%d.zip", m.ID)
	if err := b.blobs.WriteAll(b.ctx, key, buf.Bytes(), nil); err != nil {
		t.Fatal(err)
	}
	err = b.st.MatchFinish(b.ctx, store.MatchFinishParams{
		ID: m.ID, Rounds: 10, ReplayKey: key, Summary: json.RawMessage(fmt.Sprintf(`{"game":%q}`, game)), Players: results,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// TestOtherGamesMatchPages checks the match page of each game but
// Entelect: a free-for-all's players in finishing order with places and
// points, and the replay viewer stepping through replay.json without
// JavaScript, boards named by the portal's bots.
func TestOtherGamesMatchPages(t *testing.T) {
	b := setup(t, nil)
	alice := b.browser(t)
	alice.register("alice")
	owner := b.userID(t, "alice")
	var bots [][2]int64
	for _, name := range []string{"Ahab", "Nemo", "Bligh"} {
		bots = append(bots, b.gameBot(t, owner, name, "hitandsunk"))
	}
	ffa := b.gameMatch(t, "hitandsunk", bots, []store.MatchPlayerResult{
		{Seat: 0, Key: "0", Points: 7, ShipsLeft: 1, Outcome: "win", Rank: 1},
		{Seat: 1, Key: "1", Points: -6, Killed: true, Outcome: "loss", Rank: 2, Reason: "sunk by Bligh"},
		{Seat: 2, Key: "2", Points: -11, Killed: true, Outcome: "loss", Rank: 3, Reason: "sunk by Ahab"},
	})
	// Seats listed out of finishing order: the page must reorder them.
	ffaSwapped := b.gameMatch(t, "hitandsunk", bots, []store.MatchPlayerResult{
		{Seat: 0, Key: "0", Points: -11, Killed: true, Outcome: "loss", Rank: 3},
		{Seat: 1, Key: "1", Points: -6, Killed: true, Outcome: "loss", Rank: 2},
		{Seat: 2, Key: "2", Points: 7, Outcome: "win", Rank: 1},
	})
	duel := func(game string) int64 {
		// Bot names are an owner's own: each game's pair has its owner.
		b.browser(t).register(game + "fan")
		o := b.userID(t, game+"fan")
		pair := [][2]int64{b.gameBot(t, o, "Ahab", game), b.gameBot(t, o, "Nemo", game)}
		return b.gameMatch(t, game, pair, []store.MatchPlayerResult{
			{Seat: 0, Key: "0", Points: 1, Outcome: "win", Rank: 1}, {Seat: 1, Key: "1", Outcome: "loss", Rank: 2},
		})
	}
	brainjar, deepship := duel("brainjar"), duel("deepship")

	cases := []struct {
		name  string
		path  string
		order []string // in this order inside the results table
		want  []string
	}{
		{"free-for-all in finishing order, opened on its end", fmt.Sprintf("/matches/%d", ffa), []string{"Ahab", "Nemo", "Bligh"},
			[]string{"Place", "sunk by Bligh", "10 rounds", `<span class="step-name" aria-live="polite">Round 10 of 10</span>`,
				`<a rel="next" class="disabled" aria-disabled="true">Next round →</a>`, `data-ship="Ahab (alice) (ship 0`}},
		{"free-for-all's start", fmt.Sprintf("/matches/%d?round=0", ffa), nil,
			[]string{`<span class="step-name" aria-live="polite">Start</span>`, `<a rel="prev" class="disabled"`, "Next round"}},
		{"free-for-all reordered by rank", fmt.Sprintf("/matches/%d", ffaSwapped), []string{"Bligh", "Nemo", "Ahab"}, nil},
		{"hitandsunk round step", fmt.Sprintf("/matches/%d?round=3", ffa), nil,
			[]string{"Round 3 of 10", "Previous round", "Nemo (alice) (ship 1): fires at (", `class="mark shot"`}},
		{"brainjar shot step", fmt.Sprintf("/matches/%d?round=1", brainjar), []string{"Ahab", "Nemo"},
			[]string{"Shot 1 of 73", "Ahab (brainjarfan)&#39;s waters", "Nemo (brainjarfan)&#39;s waters", "Ahab (brainjarfan) fires at (3,7): miss",
				"Next shot", "Previous shot"}},
		{"deepship last turn", fmt.Sprintf("/matches/%d?round=9999", deepship), []string{"Ahab", "Nemo"},
			[]string{"Game 3 of 3, turn 102 of 102", "Match: Nemo (deepshipfan) wins.", "First"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := alice.get(c.path)
			if res.status != 200 {
				t.Fatalf("GET %s: status %d", c.path, res.status)
			}
			for _, w := range c.want {
				if !strings.Contains(res.body, w) {
					t.Errorf("GET %s: page lacks %q", c.path, w)
				}
			}
			table := res.body[strings.Index(res.body, "<tbody>"):strings.Index(res.body, "</tbody>")]
			last := -1
			for _, name := range c.order {
				at := strings.Index(table, ">"+name+"<")
				if at <= last {
					t.Fatalf("GET %s: %s not after the previous player in the results", c.path, name)
				}
				last = at
			}
		})
	}
}

// TestLeaderboardTabs checks that the leaderboard links every game's
// ladder as tabs, marks the one shown, and lists only that game's bots.
func TestLeaderboardTabs(t *testing.T) {
	b := setup(t, nil)
	alice := b.browser(t)
	alice.register("alice")
	owner := b.userID(t, "alice")
	b.gameBot(t, owner, "Scout", "entelect")
	b.gameBot(t, owner, "Jarhead", "brainjar")
	b.gameBot(t, owner, "Diver", "deepship")
	b.gameBot(t, owner, "Brawler", "hitandsunk")
	cases := []struct {
		path, title, current, bot string
	}{
		{"/leaderboard", "Leaderboard: Entelect", "entelect", "Scout"},
		{"/leaderboard?game=entelect", "Leaderboard: Entelect", "entelect", "Scout"},
		{"/leaderboard?game=brainjar", "Leaderboard: BrainJar", "brainjar", "Jarhead"},
		{"/leaderboard?game=deepship", "Leaderboard: In Deep Ship", "deepship", "Diver"},
		{"/leaderboard?game=hitandsunk", "Leaderboard: Hit and Sunk", "hitandsunk", "Brawler"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			res := alice.get(c.path)
			if res.status != 200 {
				t.Fatalf("status %d", res.status)
			}
			for _, tab := range []string{">Entelect<", ">BrainJar<", ">In Deep Ship<", ">Hit and Sunk<", `href="/leaderboard?game=hitandsunk"`} {
				if !strings.Contains(res.body, tab) {
					t.Errorf("no tab %s", tab)
				}
			}
			if strings.Count(res.body, `aria-current="page"`) != 1 ||
				!strings.Contains(res.body, fmt.Sprintf(`href="/leaderboard?game=%s" aria-current="page"`, c.current)) {
				t.Errorf("the %s tab is not the only one marked current", c.current)
			}
			if !strings.Contains(res.body, c.title) {
				t.Errorf("no heading %q", c.title)
			}
			for _, bot := range []string{"Scout", "Jarhead", "Diver", "Brawler"} {
				if got := strings.Contains(res.body, ">"+bot+"<"); got != (bot == c.bot) {
					t.Errorf("bot %s listed: %v", bot, got)
				}
			}
		})
	}
}
