package web_test

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

// TestMatchReplayCommand checks the battleship command that plays a match
// again: on its page, the seats in seat order although the results table
// lists them by finishing order, each folder with the bot version that
// goes in it; and the same command in the API.
func TestMatchReplayCommand(t *testing.T) {
	b := setup(t, nil)
	alice := b.browser(t)
	alice.register("alice")
	owner := b.userID(t, "alice")
	var bots [][2]int64
	for _, name := range []string{"Sea Wolf", "Nemo", "O'Brien"} {
		bots = append(bots, b.gameBot(t, owner, name, "hitandsunk"))
	}
	id := b.gameMatch(t, "hitandsunk", bots, []store.MatchPlayerResult{
		{Seat: 0, Key: "0", Points: -11, Killed: true, Outcome: "loss", Rank: 3},
		{Seat: 1, Key: "1", Points: -6, Killed: true, Outcome: "loss", Rank: 2},
		{Seat: 2, Key: "2", Points: 7, Outcome: "win", Rank: 1},
	})
	want := "battleship --game hitandsunk --seed 11 --tournamentMode -b Sea_Wolf Nemo O_Brien"

	res := b.browser(t).get(fmt.Sprintf("/matches/%d", id))
	if res.status != 200 {
		t.Fatalf("match page: status %d", res.status)
	}
	if !strings.Contains(res.body, "<code>"+html.EscapeString(want)+"</code>") {
		t.Errorf("the match page lacks the command %s", want)
	}
	for i, name := range []string{"Sea Wolf", "Nemo", "O'Brien"} {
		folder := strings.NewReplacer(" ", "_", "'", "_").Replace(name)
		seat := fmt.Sprintf("seat %d: <code>%s</code>: %s v1 by alice", i, folder, html.EscapeString(name))
		if !strings.Contains(res.body, seat) {
			t.Errorf("the match page lacks %q", seat)
		}
	}

	status, m := b.api(t, "GET", fmt.Sprintf("/api/matches/%d", id), "", "", nil)
	if status != 200 || m["replay_command"] != want {
		t.Errorf("API: status %d, replay_command %q, want %q", status, m["replay_command"], want)
	}
}

// TestMatchReproCommand: the owner of a bot in an Entelect match sees the
// battleship repro command of each of their seats, with the folder the
// match's own command names and the replay zip's download name; nobody
// else sees one.
func TestMatchReproCommand(t *testing.T) {
	b := setup(t, nil)
	alice := b.browser(t)
	alice.register("alice")
	bob := b.browser(t)
	bob.register("bob")
	wolf, wolfV := b.builtBot(t, b.userID(t, "alice"), "Sea Wolf")
	nemo, nemoV := b.builtBot(t, b.userID(t, "bob"), "Nemo")
	id := b.playedMatch(t, [2][2]int64{{wolf, wolfV}, {nemo, nemoV}})
	path := fmt.Sprintf("/matches/%d", id)
	wantA := fmt.Sprintf("battleship repro --seat A --bot Sea_Wolf match-%d-replay.zip", id)
	wantB := fmt.Sprintf("battleship repro --seat B --bot Nemo match-%d-replay.zip", id)
	for _, tc := range []struct {
		who        string
		page       string
		want, lack []string
	}{
		{"alice", alice.get(path).body, []string{wantA}, []string{wantB}},
		{"bob", bob.get(path).body, []string{wantB}, []string{wantA}},
		{"a visitor", b.browser(t).get(path).body, nil, []string{"battleship repro"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.page, "<code>"+html.EscapeString(w)+"</code>") {
				t.Errorf("%s's match page lacks %s", tc.who, w)
			}
		}
		for _, w := range tc.lack {
			if strings.Contains(tc.page, w) {
				t.Errorf("%s's match page shows %s", tc.who, w)
			}
		}
	}
}
