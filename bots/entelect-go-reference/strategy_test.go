package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// newState builds a state with an n×n opponent map, all ships afloat.
func newState(n, energy int) *State {
	s := &State{MapDimension: n, Phase: 2}
	for x := 0; x < n; x++ {
		for y := 0; y < n; y++ {
			s.OpponentMap.Cells = append(s.OpponentMap.Cells, OpponentCell{X: x, Y: y})
		}
	}
	for _, t := range placeOrder {
		s.OpponentMap.Ships = append(s.OpponentMap.Ships, OpponentShip{ShipType: t})
	}
	s.PlayerMap.Owner.Energy = energy
	s.PlayerMap.Owner.Ships = []Ship{{ShipType: "Destroyer", Placed: true, Weapons: []Weapon{
		{WeaponType: "SingleShot", EnergyRequired: 1}, {WeaponType: "DoubleShot", EnergyRequired: 24}}}}
	return s
}

func (s *State) opp(x, y int) *OpponentCell {
	return &s.OpponentMap.Cells[x*s.MapDimension+y]
}

func TestPlaceShipsIsLegal(t *testing.T) {
	for _, n := range []int{7, 10, 14} {
		for seed := int64(0); seed < 200; seed++ {
			out := placeShips(n, rand.New(rand.NewSource(seed)))
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 5 {
				t.Fatalf("n=%d: %d lines", n, len(lines))
			}
			taken := map[[2]int]bool{}
			for _, l := range lines {
				var ship, dir string
				var x, y int
				if _, err := fmt.Sscan(l, &ship, &x, &y, &dir); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < shipLength(ship); i++ {
					c := [2]int{x, y}
					for _, d := range directions {
						if d.name == dir {
							c = [2]int{x + i*d.dx, y + i*d.dy}
						}
					}
					if c[0] < 0 || c[1] < 0 || c[0] >= n || c[1] >= n || taken[c] {
						t.Fatalf("n=%d seed=%d: illegal %q", n, seed, out)
					}
					taken[c] = true
				}
			}
		}
	}
}

func TestTargetsAroundAHit(t *testing.T) {
	s := newState(10, 1)
	s.opp(4, 4).Damaged = true
	c := chooseCommand(s, rand.New(rand.NewSource(1)))
	if c.code != 1 || abs(c.x-4)+abs(c.y-4) != 1 {
		t.Errorf("after a hit at (4,4) fired %+v, want a single shot next to it", c)
	}
}

func TestHitsOfSunkShipsAreIgnored(t *testing.T) {
	s := newState(10, 1)
	s.opp(0, 0).Damaged, s.opp(0, 1).Damaged = true, true
	s.OpponentMap.Ships[3].Destroyed = true // the Destroyer, 2 cells: both hits explained
	c := chooseCommand(s, rand.New(rand.NewSource(1)))
	if c.x <= 1 && c.y <= 2 {
		t.Errorf("fired %+v next to a sunk ship", c)
	}
}

func TestUsesAffordableSpecial(t *testing.T) {
	s := newState(10, 30)
	c := chooseCommand(s, rand.New(rand.NewSource(1)))
	if c.code != 2 && c.code != 3 {
		t.Errorf("with 30 energy fired %+v, want a double shot", c)
	}
}

func TestShieldsDamagedShip(t *testing.T) {
	s := newState(10, 1)
	s.PlayerMap.Owner.Shield = Shield{CurrentCharges: 1, CurrentRadius: 1}
	s.PlayerMap.Owner.Ships[0].Cells = []*Cell{{X: 2, Y: 2, Hit: true, Occupied: true}, {X: 2, Y: 3, Occupied: true}}
	if c := chooseCommand(s, rand.New(rand.NewSource(1))); c.code != 8 || c.x != 2 || c.y != 3 {
		t.Errorf("chose %+v, want a shield at (2,3)", c)
	}
	s.PlayerMap.Owner.Shield.Active = true
	if c := chooseCommand(s, rand.New(rand.NewSource(1))); c.code == 8 {
		t.Errorf("raised an active shield again")
	}
}

func TestReadsEngineState(t *testing.T) {
	data := `{"PlayerMap":{"Cells":[],"Owner":{"Name":"a","Ships":[{"Cells":[null,null],"Destroyed":false,"Placed":false,` +
		`"ShipType":"Destroyer","Weapons":[]}],"Energy":3,"Shield":{"CurrentCharges":0,"Active":false,"CenterPoint":"0, 0"},"Key":"A"},` +
		`"MapWidth":7,"MapHeight":7},"OpponentMap":{"Ships":[],"Alive":true,"Cells":[]},"Round":0,"MapDimension":7,"Phase":1}`
	var s State
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		t.Fatal(err)
	}
	if s.Phase != 1 || s.MapDimension != 7 || s.PlayerMap.Owner.Ships[0].Cells[0] != nil {
		t.Errorf("state = %+v", s)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// BenchmarkChooseCommandLarge is one phase-2 decision on the 14×14 map with
// every special weapon affordable: the bot's own share of its 2 s budget.
func BenchmarkChooseCommandLarge(b *testing.B) {
	s := newState(14, 100)
	s.PlayerMap.Owner.Ships = nil
	for _, t := range []string{"Submarine", "Destroyer", "Battleship", "Carrier", "Cruiser"} {
		s.PlayerMap.Owner.Ships = append(s.PlayerMap.Owner.Ships, Ship{ShipType: t, Placed: true, Weapons: []Weapon{
			{WeaponType: "SingleShot", EnergyRequired: 1}, {WeaponType: map[string]string{
				"Submarine": "SeekerMissile", "Destroyer": "DoubleShot", "Battleship": "DiagonalCrossShot",
				"Carrier": "CornerShot", "Cruiser": "CrossShot"}[t], EnergyRequired: 50}}})
	}
	s.opp(6, 6).Damaged = true
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < b.N; i++ {
		chooseCommand(s, rng)
	}
}
