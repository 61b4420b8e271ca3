package hitandsunk

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// scriptedReply is a deterministic bot for engine-only games: it cycles
// through replies that move, fire, mine, ram and use every skill.
func scriptedReply(g *Game, id int) string {
	replies := []string{
		"MF+2+1F-1+3", "KS", "N+1+1M", "BF-3+2F+0-4", "CMMF+1-1", "AF+1+0R", "DP", "F+5+5M", "PMM", "F-2-2N-1-1",
	}
	return replies[(id*7+g.Round)%len(replies)]
}

// TestGoldenGame plays a seeded 12-ship game through the pure engine with
// scripted replies and compares every round's board with testdata. Any
// change of rules shows up here; rerun with -update after a deliberate one.
func TestGoldenGame(t *testing.T) {
	choices := []int{1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 7, 3}
	g := NewGame(rand.New(rand.NewSource(20170517)), choices)
	var rounds []RoundEnd
	for round := 1; round <= Rounds && !g.Over(); round++ {
		order := g.StartRound()
		for _, id := range order {
			if !g.Ship(id).Alive() {
				continue
			}
			g.BeginTurn(id)
			g.Request(id)
			g.Apply(id, scriptedReply(g, id))
			if g.Over() {
				break
			}
		}
		rounds = append(rounds, RoundEnd{Round: g.Round, Order: order, Snapshot: snapshot(g)})
	}
	all, err := json.Marshal(rounds)
	if err != nil {
		t.Fatal(err)
	}
	// The file holds a digest of every round and, readable, the last board.
	last := rounds[len(rounds)-1]
	got, err := json.MarshalIndent(struct {
		Digest string   `json:"digest"`
		Last   RoundEnd `json:"last"`
	}{fmt.Sprintf("%x", sha256.Sum256(all)), last}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden-game.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("the game differs from %s; if the rules changed on purpose, rerun with -update", path)
	}
	hits := 0
	for _, s := range last.Ships {
		hits += s.Hits
	}
	if hits == 0 {
		t.Error("the scripted game never hit anything; it pins too little")
	}
	t.Logf("%d rounds, %d hits, %d mines left", len(rounds), hits, len(last.Mines))
}
