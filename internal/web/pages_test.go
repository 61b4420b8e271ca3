package web_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
)

// userID returns the id of a registered user.
func (b *testBundle) userID(t *testing.T, name string) int64 {
	t.Helper()
	u, err := b.st.UserGetByUsername(b.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// builtBot records a bot of owner with one version whose build succeeded.
func (b *testBundle) builtBot(t *testing.T, ownerID int64, name string) (botID, versionID int64) {
	t.Helper()
	res, err := b.st.UploadRecord(b.ctx, store.UploadParams{
		OwnerID: ownerID, Name: name, Game: "entelect", Language: "Python3", BotType: "Python3",
		Manifest: json.RawMessage(`{"BotType":"Python3"}`), SourceSHA256: "00", SourceSize: 10,
		SourceKey: blob.SourceKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, res.VersionID, store.BuildResult{OK: true, Log: "secret build log of " + name, ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	return res.BotID, res.VersionID
}

// playedMatch records a finished match between two built bots, with a
// two-round replay zip in the blob store.
func (b *testBundle) playedMatch(t *testing.T, bots [2][2]int64) int64 {
	t.Helper()
	m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{
		Game: "entelect", MapSize: 1, Seed: 7, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: bots[0][0], BotVersionID: bots[0][1]}, {BotID: bots[1][0], BotVersionID: bots[1][1]}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{
		{"Phase 1 - Round 0/A - map.txt", "round zero board of A"},
		{"Phase 1 - Round 0/B - map.txt", "round zero board of B"},
		{"Phase 1 - Round 0/A/state.json", "{}"},
		{"Phase 2 - Round 1/A - map.txt", "round one board of A"},
		{"Phase 1 - Round 0/A/log.txt", "stdout of seat A"},
		{"Phase 1 - Round 0/B/log.txt", "stdout of seat B"},
	} {
		w, _ := zw.Create(f.name)
		_, _ = w.Write([]byte(f.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("replays/%d.zip", m.ID)
	if err := b.blobs.WriteAll(b.ctx, key, buf.Bytes(), nil); err != nil {
		t.Fatal(err)
	}
	err = b.st.MatchFinish(b.ctx, store.MatchFinishParams{
		ID: m.ID, Rounds: 1, ReplayKey: key, Summary: json.RawMessage(`{"game":"entelect"}`),
		Players: []store.MatchPlayerResult{
			{Seat: 0, Key: "A", Points: 120, Outcome: "win", Rank: 1, Log: "log only seat A's owner sees"},
			{Seat: 1, Key: "B", Points: 40, Outcome: "loss", Rank: 2, Killed: true, Reason: "all ships sunk", Log: "log only seat B's owner sees"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

func TestPages(t *testing.T) {
	b := setup(t, nil)
	alice, bob, visitor := b.browser(t), b.browser(t), b.browser(t)
	alice.register("alice")
	bob.register("bob")
	aBot, aVer := b.builtBot(t, b.userID(t, "alice"), "Ahab")
	bBot, bVer := b.builtBot(t, b.userID(t, "bob"), "Nemo")
	matchID := b.playedMatch(t, [2][2]int64{{aBot, aVer}, {bBot, bVer}})
	botPath := fmt.Sprintf("/bots/%d", aBot)
	matchPath := fmt.Sprintf("/matches/%d", matchID)
	house, err := b.st.UploadRecord(b.ctx, store.UploadParams{
		OwnerID: b.userID(t, "alice"), Name: "Harbour", Game: "entelect", Language: "Python3", BotType: "Python3",
		Manifest: json.RawMessage(`{"BotType":"Python3"}`), SourceSHA256: "00", SourceSize: 10,
		SourceKey: blob.SourceKey, House: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, house.VersionID, store.BuildResult{OK: true, ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	housePath := fmt.Sprintf("/bots/%d", house.BotID)

	cases := []struct {
		name    string
		who     *browser
		path    string
		status  int
		want    []string
		wantNot []string
	}{
		{"front page", visitor, "/", 200, []string{"Ahab", "Nemo", "Ahab (alice) won"}, nil},
		{"leaderboard lists both with owners and languages", visitor, "/leaderboard", 200,
			[]string{"Ahab", "Nemo", "alice", "bob", "Python3", "unrated"}, []string{">800<"}},
		{"unknown game", visitor, "/leaderboard?game=chess", 404, []string{"no game called"}, nil},
		{"owner sees the build log", alice, botPath, 200, []string{"secret build log of Ahab", "(playing)"}, nil},
		{"others do not see the build log", bob, botPath, 200, []string{"Challenge", "Nemo"}, []string{"secret build log"}},
		{"visitors do not see the build log", visitor, botPath, 200, []string{"Ahab"}, []string{"secret build log", "Challenge"}},
		{"missing bot", visitor, "/bots/999999", 404, []string{"nothing here"}, nil},
		{"a challenge waits for the owner's answer", bob, botPath, 200, []string{"once alice accepts"}, nil},
		{"a house bot accepts at once", bob, housePath, 200, []string{"house bots accept every challenge"}, []string{"once alice accepts"}},
		{"malformed bot id", visitor, "/bots/abc", 404, nil, nil},
		{"match list", visitor, "/matches", 200, []string{"#" + fmt.Sprint(matchID), "Ahab (alice) won"}, nil},
		{"match list of one bot", visitor, fmt.Sprintf("/matches?bot=%d", bBot), 200, []string{"Ahab (alice) won"}, nil},
		{"match page shows result and reason, no logs to visitors; it opens on the last round", visitor, matchPath, 200,
			[]string{"120", "40", "all ships sunk", "killed", "round one board of A", "Round 1 of 1", "Download the replay"},
			[]string{"log only"}},
		// The header counts 1 round; the placement before it is not "Round 0 of 1".
		{"its first round", visitor, matchPath + "?round=0", 200,
			[]string{"round zero board of A", "round zero board of B", "· 1 round", "Placement, before round 1 of 1"}, []string{"Round 0 of"}},
		{"seat A's owner sees only A's log", alice, matchPath, 200, []string{"log only seat A"}, []string{"log only seat B"}},
		{"seat B's owner sees only B's log", bob, matchPath, 200, []string{"log only seat B"}, []string{"log only seat A"}},
		{"replay viewer steps to the next round", visitor, matchPath + "?round=1", 200,
			[]string{"Phase 2 - Round 1/A - map.txt", "round one board of A", "Previous round"}, []string{"round zero board"}},
		{"a finished match does not reload", visitor, matchPath, 200, nil, []string{`http-equiv="refresh"`}},
		{"missing match", visitor, "/matches/999999", 404, nil, nil},
		{"unknown page", visitor, "/nowhere", 404, []string{"no page at this address"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := c.who.get(c.path)
			if res.status != c.status {
				t.Fatalf("GET %s: status %d, want %d", c.path, res.status, c.status)
			}
			for _, w := range c.want {
				if !strings.Contains(res.body, w) {
					t.Errorf("GET %s: page lacks %q", c.path, w)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(res.body, w) {
					t.Errorf("GET %s: page shows %q", c.path, w)
				}
			}
		})
	}

	// The replay carries each bot's log.txt (its stdout and stderr) for
	// its owner only, as the match page does.
	for _, c := range []struct {
		name string
		who  *browser
		logs []string
	}{
		{"visitor", visitor, nil},
		{"seat A's owner", alice, []string{"Phase 1 - Round 0/A/log.txt"}},
		{"seat B's owner", bob, []string{"Phase 1 - Round 0/B/log.txt"}},
	} {
		t.Run("replay download by "+c.name, func(t *testing.T) {
			res := c.who.get(matchPath + "/replay.zip")
			if res.status != 200 || res.header.Get("Content-Type") != "application/zip" {
				t.Fatalf("status %d, type %q", res.status, res.header.Get("Content-Type"))
			}
			zr, err := zip.NewReader(strings.NewReader(res.body), int64(len(res.body)))
			if err != nil || len(zr.File) != 4+len(c.logs) {
				t.Fatalf("replay zip: %v, %d files, want %d", err, len(zr.File), 4+len(c.logs))
			}
			var logs []string
			for _, f := range zr.File {
				if strings.HasSuffix(f.Name, "log.txt") {
					logs = append(logs, f.Name)
				}
			}
			if !slices.Equal(logs, c.logs) {
				t.Fatalf("logs in the replay: %q, want %q", logs, c.logs)
			}
		})
	}

	t.Run("an accepted challenge queues an unranked match between the current versions", func(t *testing.T) {
		res := bob.post(botPath+"/challenge", url.Values{"bot_id": {fmt.Sprint(bBot)}, "csrf_token": {"-"}})
		var cid int64
		if _, err := fmt.Sscanf(res.header.Get("Location"), "/challenges/%d", &cid); res.status != http.StatusSeeOther || err != nil {
			t.Fatalf("challenge: status %d, redirect to %q", res.status, res.header.Get("Location"))
		}
		if got := b.queue.matchIDs(); len(got) != 0 {
			t.Fatalf("a pending challenge enqueued matches %v", got)
		}
		res = alice.post(fmt.Sprintf("/challenges/%d/accept", cid), url.Values{"csrf_token": {"-"}})
		var id int64
		if _, err := fmt.Sscanf(res.header.Get("Location"), "/matches/%d", &id); res.status != http.StatusSeeOther || err != nil {
			t.Fatalf("accept: status %d, redirect to %q", res.status, res.header.Get("Location"))
		}
		m, err := b.st.MatchDetailGet(b.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Ranked || m.Kind != "challenge" || m.Status != "queued" || len(m.Players) != 2 ||
			m.Players[0].VersionID != bVer || m.Players[1].VersionID != aVer {
			t.Fatalf("match %+v", m)
		}
		if got := b.queue.matchIDs(); len(got) != 1 || got[0] != id {
			t.Fatalf("enqueued matches %v, want [%d]", got, id)
		}
	})

	t.Run("challenge refusals", func(t *testing.T) {
		cases := []struct {
			name   string
			who    *browser
			path   string
			botID  int64
			status int
			want   string
		}{
			{"with another user's bot", bob, botPath, aBot, 403, "your own bots"},
			{"own bot", alice, botPath, aBot, 422, "cannot challenge your own"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := b.count(t, "matches")
				res := c.who.post(c.path+"/challenge", url.Values{"bot_id": {fmt.Sprint(c.botID)}, "csrf_token": {"-"}})
				if res.status != c.status || !strings.Contains(res.body, c.want) {
					t.Fatalf("status %d, want %d with %q", res.status, c.status, c.want)
				}
				if after := b.count(t, "matches"); after != before {
					t.Fatalf("matches went from %d to %d", before, after)
				}
			})
		}
	})
}

// TestRecordShowsDraws: a bot's record counts its draws beside its wins and
// losses, on its page and on the leaderboard.
func TestRecordShowsDraws(t *testing.T) {
	b := setup(t, nil)
	visitor := b.browser(t)
	visitor.register("ann")
	bot, _ := b.builtBot(t, b.userID(t, "ann"), "Drawer")
	if err := b.st.RatingReplace(b.ctx, store.RatingState{
		BotID: bot, Ladder: "entelect", Rating: 1500, Deviation: 100, Volatility: 0.06,
		Games: 16, Wins: 2, Losses: 4, Draws: 10,
	}); err != nil {
		t.Fatal(err)
	}
	if res := visitor.get(fmt.Sprintf("/bots/%d", bot)); !strings.Contains(res.body, "16 games: 2 wins, 10 draws, 4 losses") {
		t.Errorf("bot page record lacks the draws:\n%s", res.body)
	}
	res := visitor.get("/leaderboard")
	if !strings.Contains(res.body, `<th class="num" scope="col">Wins</th><th class="num" scope="col">Draws</th><th class="num" scope="col">Losses</th>`) ||
		!strings.Contains(res.body, `<td class="num">16</td><td class="num">2</td><td class="num">10</td><td class="num">4</td>`) {
		t.Errorf("leaderboard lacks the draws column:\n%s", res.body)
	}
}

// TestNegativeScores: a negative score prints with a minus sign, and two
// scores are joined as "8 to −13" wherever they stand together.
func TestNegativeScores(t *testing.T) {
	b := setup(t, nil)
	visitor := b.browser(t)
	visitor.register("ann")
	visitor.register("ben")
	ahab := b.gameBot(t, b.userID(t, "ann"), "Ahab", "hitandsunk")
	nemo := b.gameBot(t, b.userID(t, "ben"), "Nemo", "hitandsunk")
	id := b.gameMatch(t, "hitandsunk", [][2]int64{ahab, nemo}, []store.MatchPlayerResult{
		{Seat: 0, Key: "0", Points: 8, Outcome: "win", Rank: 1},
		{Seat: 1, Key: "1", Points: -13, Outcome: "loss", Rank: 2},
	})
	for _, c := range []struct{ path, want string }{
		{fmt.Sprintf("/bots/%d", ahab[0]), "8 to −13"},
		{fmt.Sprintf("/bots/%d", nemo[0]), "−13 to 8"},
		{fmt.Sprintf("/bots/%d/vs/%d", ahab[0], nemo[0]), "Points: 8 to −13."},
		{fmt.Sprintf("/matches/%d", id), `<td class="num">−13</td>`},
	} {
		res := visitor.get(c.path)
		if !strings.Contains(res.body, c.want) || strings.Contains(res.body, "–-") {
			t.Errorf("%s lacks %q:\n%s", c.path, c.want, res.body)
		}
	}
}
