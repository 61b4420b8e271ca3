package hitandsunk

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/testenv"
)

// starterBot copies bots/hitandsunk-python3 into a folder of its own, as
// the platform does for every match.
func starterBot(t *testing.T, name string, calibration time.Duration) game.Bot {
	t.Helper()
	src := filepath.Join("..", "..", "..", "bots", "hitandsunk-python3")
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatalf("copy starter bot: %v", err)
	}
	return game.Bot{
		Name: name, Dir: dir, Command: []string{"python3", "bot.py"}, Language: "Python3",
		Calibration: calibration,
	}
}

// TestStarterBotsFreeForAll plays copies of the Python starter bot against
// each other and checks the summary against the replay. The game is cut to
// 30 rounds to keep the test short on a busy machine.
func TestStarterBotsFreeForAll(t *testing.T) {
	testenv.RequireProgram(t, "python3")
	t.Parallel()
	// The time limit is not what this test checks: a generous allowance
	// for starting Python keeps a busy machine from failing it (as
	// brainjar's tests allow).
	calibration := 20 * time.Second
	var bots []game.Bot
	for _, name := range []string{"north", "east", "south"} {
		bots = append(bots, starterBot(t, name, calibration))
	}
	dir := t.TempDir()
	sum, err := ruleSet{rounds: 30}.Play(context.Background(), bots, game.Options{Seed: 2026, ReplayDir: dir, Runner: hostRunner()})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReplay(filepath.Join(dir, ReplayFile))
	if err != nil {
		t.Fatal(err)
	}

	for _, tr := range rep.Turns {
		if tr.Failure != "" {
			t.Errorf("round %d, ship %d: %s", tr.Round, tr.Ship, tr.Failure)
		}
	}
	shots := 0
	for _, tr := range rep.Turns {
		for _, e := range tr.Events {
			if e.Kind == "fire" {
				shots++
			}
		}
	}
	if shots == 0 {
		t.Error("the starter bots never fired")
	}
	if len(sum.Players) != len(bots) || sum.Game != Name {
		t.Fatalf("summary: %+v", sum)
	}
	final := rep.Start
	if n := len(rep.Ends); n > 0 {
		final = rep.Ends[n-1].Snapshot
	}
	if rep.Ends[len(rep.Ends)-1].Round != sum.Rounds {
		t.Errorf("last round end %d, summary rounds %d", rep.Ends[len(rep.Ends)-1].Round, sum.Rounds)
	}
	byKey := map[string]ShipState{}
	for _, s := range final.Ships {
		byKey[rep.Players[s.ID].Key] = s
	}
	for i, p := range sum.Players {
		s := byKey[p.Key]
		if p.Points != s.Score {
			t.Errorf("%s: %d points, replay score %d", p.Name, p.Points, s.Score)
		}
		dead := 0
		if !s.Alive {
			dead = 10
		}
		if want := s.Hits + 5*s.Sunken - s.Damage - dead; p.Points != want {
			t.Errorf("%s: %d points, formula gives %d", p.Name, p.Points, want)
		}
		if p.Killed == s.Alive {
			t.Errorf("%s: killed %v but alive %v", p.Name, p.Killed, s.Alive)
		}
		if i > 0 && sum.Players[i-1].Points < p.Points {
			t.Errorf("players not in finishing order: %d before %d points", sum.Players[i-1].Points, p.Points)
		}
		if p.Rank < 1 || p.Rank > len(bots) || (i == 0 && p.Rank != 1) {
			t.Errorf("%s: rank %d", p.Name, p.Rank)
		}
		if p.Log == "" {
			t.Errorf("%s: empty log", p.Name)
		}
	}
	t.Logf("rounds %d, shots %d, result %+v", sum.Rounds, shots, sum.Players)
}
