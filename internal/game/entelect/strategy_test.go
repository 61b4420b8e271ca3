package entelect

import (
	"math/rand/v2"
	"testing"
)

// hunter is a reference hunt/target strategy playing in-process: it hunts
// on a checkerboard in random order, fires the seeker missile when it can,
// and after a hit tries the four neighbours. It reads only what the
// opponent view shows (hit cells and whether they were occupied).
type hunter struct {
	p     int
	rng   *rand.Rand
	order []int16
	pos   int
	stack []int16
	last  int
	buf   [numShips]ShipPlacement
}

func newHunter(p int, rng *rand.Rand) *hunter {
	return &hunter{p: p, rng: rng, order: make([]int16, 0, maxCells), stack: make([]int16, 0, 64)}
}

// reset prepares a new match on an n×n map.
func (h *hunter) reset(n int) {
	h.order = h.order[:0]
	for parity := 0; parity < 2; parity++ {
		start := len(h.order)
		for x := 0; x < n; x++ {
			for y := 0; y < n; y++ {
				if (x+y)%2 == parity {
					h.order = append(h.order, int16(x*n+y))
				}
			}
		}
		part := h.order[start:]
		h.rng.Shuffle(len(part), func(i, j int) { part[i], part[j] = part[j], part[i] })
	}
	h.pos, h.stack, h.last = 0, h.stack[:0], -1
}

// placement returns a random valid layout.
func (h *hunter) placement(s *State) Command {
	var used [maxCells]bool
	for t := range h.buf {
		for {
			sp := ShipPlacement{Type: ShipType(t), X: h.rng.IntN(s.N), Y: h.rng.IntN(s.N), Dir: Direction(h.rng.IntN(4))}
			cells, ok := s.shipCells(sp)
			if !ok {
				continue
			}
			free := true
			for _, c := range cells[:sp.Type.Length()] {
				free = free && !used[c]
			}
			if !free {
				continue
			}
			for _, c := range cells[:sp.Type.Length()] {
				used[c] = true
			}
			h.buf[t] = sp
			break
		}
	}
	return Command{Code: PlaceShips, Ships: h.buf[:]}
}

// next chooses the phase-2 command.
func (h *hunter) next(s *State) Command {
	n := s.N
	opp := &s.Players[1-h.p].Map
	if h.last >= 0 && opp[h.last].Hit && opp[h.last].Occupied {
		x, y := h.last/n, h.last%n
		for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			nx, ny := x+d[0], y+d[1]
			if nx >= 0 && ny >= 0 && nx < n && ny < n && !opp[nx*n+ny].Hit {
				h.stack = append(h.stack, int16(nx*n+ny))
			}
		}
	}
	h.last = -1
	for len(h.stack) > 0 {
		c := int(h.stack[len(h.stack)-1])
		h.stack = h.stack[:len(h.stack)-1]
		if !opp[c].Hit {
			h.last = c
			return Command{Code: FireShot, X: c / n, Y: c % n}
		}
	}
	for h.pos < len(h.order) {
		c := int(h.order[h.pos])
		h.pos++
		if opp[c].Hit {
			continue
		}
		me := &s.Players[h.p]
		if !me.Ships[Submarine].Destroyed && me.Energy >= s.WeaponCost(SeekerMissile) {
			if t, ok := s.seekerTarget(1-h.p, c/n, c%n); ok && t != c {
				h.pos--
				h.last = t
				return Command{Code: SeekerMissile, X: c / n, Y: c % n}
			}
		}
		h.last = c
		return Command{Code: FireShot, X: c / n, Y: c % n}
	}
	return Command{Code: DoNothing}
}

// playHunters plays one whole in-process match between two hunters.
func playHunters(s *State, a, b *hunter, size int) {
	s.Reset(size)
	a.reset(s.N)
	b.reset(s.N)
	hs := [2]*hunter{a, b}
	for !s.Over() {
		var cmds [2]Command
		var has [2]bool
		for p, h := range hs {
			if has[p] = s.StartTurn(p); !has[p] {
				continue
			}
			if s.Phase == 1 {
				cmds[p] = h.placement(s)
			} else {
				cmds[p] = h.next(s)
			}
		}
		s.Step(cmds, has)
	}
}

func TestHuntersFinish(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := newHunter(0, rng), newHunter(1, rng)
	var s State
	for size := 1; size <= 3; size++ {
		for i := 0; i < 200; i++ {
			playHunters(&s, a, b, size)
			if s.Phase != 2 || s.Round < 2 {
				t.Fatalf("size %d: match ended in phase %d round %d", size, s.Phase, s.Round)
			}
			lb := s.Leaderboard()
			w, l := &s.Players[lb[0]], &s.Players[lb[1]]
			if w.Killed && !l.Killed {
				t.Fatalf("size %d: killed winner above a living loser", size)
			}
			if !l.Killed && s.Round <= s.LastRound() {
				t.Fatalf("size %d: match ended at round %d with both alive", size, s.Round)
			}
		}
	}
}

// BenchmarkMatch10x10 plays whole 10×10 matches between two hunt/target
// strategies in-process; matches/s = 1e9 / ns/op.
func BenchmarkMatch10x10(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	ha, hb := newHunter(0, rng), newHunter(1, rng)
	var s State
	rounds := 0
	b.ReportAllocs()
	for b.Loop() {
		playHunters(&s, ha, hb, 2)
		rounds += s.Round
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "matches/s")
	b.ReportMetric(float64(rounds)/float64(b.N), "rounds/match")
}

// TestRandomCommands plays matches of random, often invalid, commands:
// the rules never panic, energy never goes negative, no player lands more
// hits than there are ship cells, and every match ends by the round cap.
func TestRandomCommands(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	layouts := []Command{mustPlace(t, smallLayout), mustPlace(t, sampleLayout)}
	for i := 0; i < 300; i++ {
		size := 1 + i%3
		s := NewState(size)
		for !s.Over() {
			var cmds [2]Command
			var has [2]bool
			for p := range cmds {
				if has[p] = s.StartTurn(p); !has[p] {
					continue
				}
				code := Code(rng.IntN(10))
				if s.Phase == 1 && rng.IntN(3) > 0 {
					cmds[p] = layouts[rng.IntN(2)]
					continue
				}
				cmds[p] = Command{Code: code, X: rng.IntN(s.N+6) - 3, Y: rng.IntN(s.N+6) - 3}
				if code == PlaceShips {
					cmds[p] = layouts[0]
				}
			}
			s.Step(cmds, has)
			for p := range s.Players {
				pl := &s.Players[p]
				if pl.Energy < 0 || pl.ShotsHit > 17 || pl.ShotsHit > pl.ShotsFired*5 {
					t.Fatalf("match %d round %d player %d: %+v", i, s.Round, p, *pl)
				}
			}
			if s.Round > s.LastRound()+1 {
				t.Fatalf("match %d ran past the cap", i)
			}
		}
	}
}
