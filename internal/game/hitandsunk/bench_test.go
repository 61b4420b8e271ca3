package hitandsunk

import (
	"math/rand"
	"testing"
)

// BenchmarkRound measures the engine's own cost of one round of a full
// 30-ship game (requests built and replies applied, no processes).
func BenchmarkRound(b *testing.B) {
	choices := make([]int, MaxShips)
	for i := range choices {
		choices[i] = i%5 + 1
	}
	replies := []string{"MF+2+1", "KS", "N+1+1M", "BF-3+2F+0-4", "CMM", "AF+1+0R"}
	var g *Game
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%Rounds == 0 {
			b.StopTimer()
			g = NewGame(rand.New(rand.NewSource(int64(i))), choices)
			b.StartTimer()
		}
		for _, id := range g.StartRound() {
			if !g.Ship(id).Alive() {
				continue
			}
			g.BeginTurn(id)
			_ = g.Request(id)
			g.Apply(id, replies[(id+g.Round)%len(replies)])
		}
	}
}
