package main

import (
	"fmt"
	"math/rand"
	"strings"
)

// placeOrder is the order ships are placed in, as the original reference bot.
var placeOrder = []string{"Battleship", "Carrier", "Cruiser", "Destroyer", "Submarine"}

// directions and their steps; North is +y.
var directions = []struct {
	name   string
	dx, dy int
}{{"North", 0, 1}, {"East", 1, 0}, {"South", 0, -1}, {"West", -1, 0}}

// placeShips places every ship at a random start and direction where it
// fits on the map without overlapping the ships placed before it.
func placeShips(n int, rng *rand.Rand) string {
	taken := make(map[[2]int]bool)
	var b strings.Builder
	for _, ship := range placeOrder {
		length := shipLength(ship)
		for {
			x, y := rng.Intn(n), rng.Intn(n)
			d := directions[rng.Intn(len(directions))]
			cells := make([][2]int, 0, length)
			for i := 0; i < length; i++ {
				c := [2]int{x + i*d.dx, y + i*d.dy}
				if c[0] < 0 || c[0] >= n || c[1] < 0 || c[1] >= n || taken[c] {
					break
				}
				cells = append(cells, c)
			}
			if len(cells) < length {
				continue
			}
			for _, c := range cells {
				taken[c] = true
			}
			fmt.Fprintf(&b, "%s %d %d %s\n", ship, x, y, d.name)
			break
		}
	}
	return b.String()
}

// command is a phase-2 move.
type command struct {
	code, x, y int
	why        string
}

// weapon codes and the cells each hits around its centre.
var weaponShapes = map[string][]struct {
	code    int
	offsets [][2]int
}{
	"SingleShot":        {{1, [][2]int{{0, 0}}}},
	"DoubleShot":        {{2, [][2]int{{0, -1}, {0, 1}}}, {3, [][2]int{{-1, 0}, {1, 0}}}},
	"CornerShot":        {{4, [][2]int{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}}}},
	"DiagonalCrossShot": {{5, [][2]int{{0, 0}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}}}},
	"CrossShot":         {{6, [][2]int{{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}}}},
}

// seekerReach are the cells a seeker missile may strike: distance² ≤ 4.
var seekerReach = func() [][2]int {
	var out [][2]int
	for dx := -2; dx <= 2; dx++ {
		for dy := -2; dy <= 2; dy++ {
			if dx*dx+dy*dy <= 4 {
				out = append(out, [2]int{dx, dy})
			}
		}
	}
	return out
}()

// board is what the bot knows of the opponent's map.
type board struct {
	n       int
	damaged [][]bool
	missed  [][]bool
}

func newBoard(s *State) *board {
	n := s.MapDimension
	b := &board{n: n, damaged: grid[bool](n), missed: grid[bool](n)}
	for _, c := range s.OpponentMap.Cells {
		if b.on(c.X, c.Y) {
			b.damaged[c.X][c.Y] = c.Damaged
			b.missed[c.X][c.Y] = c.Missed
		}
	}
	return b
}

func grid[T any](n int) [][]T {
	g := make([][]T, n)
	for i := range g {
		g[i] = make([]T, n)
	}
	return g
}

func (b *board) on(x, y int) bool      { return x >= 0 && y >= 0 && x < b.n && y < b.n }
func (b *board) unknown(x, y int) bool { return b.on(x, y) && !b.damaged[x][y] && !b.missed[x][y] }

// density weighs every unknown cell by how many placements of the ships
// still afloat cover it. With hits not yet explained by sunk ships (target
// mode), placements through those hits weigh much more.
func density(s *State, b *board) [][]float64 {
	sunkCells, damaged := 0, 0
	var afloat []int
	for _, sh := range s.OpponentMap.Ships {
		if sh.Destroyed {
			sunkCells += shipLength(sh.ShipType)
		} else {
			afloat = append(afloat, shipLength(sh.ShipType))
		}
	}
	for x := 0; x < b.n; x++ {
		for y := 0; y < b.n; y++ {
			if b.damaged[x][y] {
				damaged++
			}
		}
	}
	target := damaged > sunkCells
	p := grid[float64](b.n)
	for _, length := range afloat {
		for x := 0; x < b.n; x++ {
			for y := 0; y < b.n; y++ {
				for _, d := range [][2]int{{1, 0}, {0, 1}} {
					hits, ok := 0, true
					for i := 0; i < length && ok; i++ {
						cx, cy := x+i*d[0], y+i*d[1]
						switch {
						case !b.on(cx, cy) || b.missed[cx][cy]:
							ok = false
						case b.damaged[cx][cy]:
							hits++
							// Without open hits every hit belongs to a sunk ship.
							ok = target
						}
					}
					if !ok {
						continue
					}
					w := 1.0
					if hits > 0 {
						w += 40 * float64(hits*hits)
					}
					for i := 0; i < length; i++ {
						if cx, cy := x+i*d[0], y+i*d[1]; b.unknown(cx, cy) {
							p[cx][cy] += w
						}
					}
				}
			}
		}
	}
	return p
}

// chooseCommand raises the shield over a damaged ship when it can,
// otherwise fires the affordable weapon whose cells weigh most.
func chooseCommand(s *State, rng *rand.Rand) command {
	if c, ok := shieldCommand(s); ok {
		return c
	}
	b := newBoard(s)
	p := density(s, b)
	energy := s.PlayerMap.Owner.Energy
	best := command{code: 1, why: "no unknown cell left"}
	bestScore := -1.0
	consider := func(code, x, y int, score float64, why string) {
		// A little noise breaks ties without favouring one corner.
		score += rng.Float64() * 1e-6
		if score > bestScore {
			best, bestScore = command{code: code, x: x, y: y, why: why}, score
		}
	}
	for _, ship := range s.PlayerMap.Owner.Ships {
		if ship.Destroyed {
			continue
		}
		for _, w := range ship.Weapons {
			if w.EnergyRequired > energy {
				continue
			}
			for x := 0; x < b.n; x++ {
				for y := 0; y < b.n; y++ {
					if w.WeaponType == "SeekerMissile" {
						consider(7, x, y, seekerScore(b, p, x, y), "seeker missile")
						continue
					}
					for _, shape := range weaponShapes[w.WeaponType] {
						score := 0.0
						for _, o := range shape.offsets {
							if cx, cy := x+o[0], y+o[1]; b.unknown(cx, cy) {
								score += p[cx][cy]
							}
						}
						if score > 0 {
							consider(shape.code, x, y, score, w.WeaponType)
						}
					}
				}
			}
		}
	}
	return best
}

// seekerScore values a seeker missile: it strikes the nearest ship cell in
// reach, so it is worth the best cell in reach and a share of the others.
func seekerScore(b *board, p [][]float64, x, y int) float64 {
	if !b.on(x, y) {
		return 0
	}
	first, rest := 0.0, 0.0
	for _, o := range seekerReach {
		if cx, cy := x+o[0], y+o[1]; b.unknown(cx, cy) {
			v := p[cx][cy]
			if v > first {
				first, v = v, first
			}
			rest += v
		}
	}
	return first + 0.25*rest
}

// shieldCommand covers a ship that has been hit but still floats, when the
// shield is charged and not already up.
func shieldCommand(s *State) (command, bool) {
	sh := s.PlayerMap.Owner.Shield
	if sh.Active || sh.CurrentCharges < 1 {
		return command{}, false
	}
	for _, ship := range s.PlayerMap.Owner.Ships {
		if ship.Destroyed || !ship.Placed {
			continue
		}
		var hit bool
		var intact []*Cell
		for _, c := range ship.Cells {
			if c == nil {
				continue
			}
			if c.Hit {
				hit = true
			} else {
				intact = append(intact, c)
			}
		}
		if hit && len(intact) > 0 {
			mid := intact[len(intact)/2]
			return command{code: 8, x: mid.X, y: mid.Y, why: "shield over the " + ship.ShipType}, true
		}
	}
	return command{}, false
}
