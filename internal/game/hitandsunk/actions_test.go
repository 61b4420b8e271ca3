package hitandsunk

import (
	"fmt"
	"strings"
	"testing"
)

const (
	up, right, down, left = FacingUp, FacingRight, FacingDown, FacingLeft
)

// TestApply runs one action string for ship 0 and checks its effects. Each
// case names the rule of docs/hitandsunk.md (and the spec section) it pins.
func TestApply(t *testing.T) {
	bs := func() *Ship { return testShip(0, Battleship, 5, 5, up) } // cells (5,5)..(5,8)
	tests := []struct {
		name  string
		rule  string
		ships []*Ship
		mines [][2]int
		reply string
		check func(t *testing.T, g *Game, res TurnResult)
	}{
		{
			name: "fire offset is relative to the bow, + is east and south", rule: "§8.1",
			ships: []*Ship{bs(), testShip(1, Cruiser, 8, 3, right)}, reply: "F+3-2",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "011")
				wantInt(t, "hits", g.Ship(0).Hits, 1)
				wantInt(t, "damage of target", g.Ship(1).Damage, 1)
			},
		},
		{
			name: "any sign other than + is negative", rule: "§8.1",
			ships: []*Ship{bs(), testShip(1, Cruiser, 2, 3, left)}, reply: "F*3=2",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantHull(t, g, 1, "011") },
		},
		{
			name: "range is per axis: a diagonal 7,7 is in range of a Battleship", rule: "§8.1",
			ships: []*Ship{bs(), testShip(1, Cruiser, 12, 12, up)}, reply: "F+7+7",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantHull(t, g, 1, "011") },
		},
		{
			name: "out of range still spends the shot and the action", rule: "§3, §8.2",
			ships: []*Ship{bs(), testShip(1, Cruiser, 13, 5, up)}, reply: "F+8+0S",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "111")
				wantBool(t, "scan", g.Ship(0).Scan, false)
				wantInt(t, "shots fired", g.Ship(0).ShotsFired, 1)
			},
		},
		{
			name: "past 16 rejected actions the replay counts the rest in one event", rule: "Platform policy (replay size)",
			ships: []*Ship{bs(), testShip(1, Cruiser, 12, 12, up)}, reply: strings.Repeat("S", 100) + "M",
			check: func(t *testing.T, g *Game, res TurnResult) {
				// The move after the rejects is still made and recorded.
				wantPos(t, g, 0, 5, 4, up)
				var kinds []string
				rejects := 0
				for _, e := range res.Events {
					if e.Kind == "reject" {
						rejects++
					} else {
						kinds = append(kinds, e.Kind)
					}
				}
				wantInt(t, "reject events", rejects, maxRejectEvents+1)
				if got := strings.Join(kinds, ","); got != "scan,move" {
					t.Errorf("other events %s, want scan,move", got)
				}
				last := res.Events[len(res.Events)-1]
				if want := fmt.Sprintf("%d more rejected actions left out of the replay", 99-maxRejectEvents); last.Note != want {
					t.Errorf("last event %+v, want the note %q", last, want)
				}
			},
		},
		{
			name: "one action per turn: a scan blocks a later volley", rule: "§8.2",
			ships: []*Ship{bs(), testShip(1, Cruiser, 8, 3, right)}, reply: "SF+3-2",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "111")
				wantBool(t, "scan", g.Ship(0).Scan, true)
			},
		},
		{
			name: "a volley holds the ship's shots and no more", rule: "§3",
			ships: []*Ship{bs(), testShip(1, Carrier, 7, 2, left)}, reply: "F+2-3F+3-3F+4-3F+5-3",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "00011")
				wantInt(t, "shots fired", g.Ship(0).ShotsFired, 3)
			},
		},
		{
			name: "movement interleaves with a volley", rule: "§3",
			ships: []*Ship{testShip(0, Cruiser, 5, 5, up), testShip(1, Carrier, 7, 2, left)}, reply: "F+2-3MF+3-2",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantPos(t, g, 0, 5, 4, up)
				wantHull(t, g, 1, "00111")
			},
		},
		{
			name: "repair needs the action unused but does not use it", rule: "§8.2",
			ships: []*Ship{damaged(testShip(0, Cruiser, 5, 5, up), "101"), testShip(1, Battleship, 8, 3, right)}, reply: "RF+3-2",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 0, "111")
				wantHull(t, g, 1, "0111")
				wantInt(t, "cooldown", g.Ship(0).Cooldown, skillCooldown)
			},
		},
		{
			name: "repair after a volley is rejected", rule: "§8.2",
			ships: []*Ship{damaged(testShip(0, Cruiser, 5, 5, up), "101"), testShip(1, Battleship, 8, 3, right)}, reply: "F+3-2R",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantHull(t, g, 0, "101") },
		},
		{
			name: "repair always sets the cooldown, so RR repairs one segment", rule: "Platform policy (§3 R)",
			ships: []*Ship{damaged(testShip(0, Cruiser, 5, 5, up), "001")}, reply: "RR",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantHull(t, g, 0, "101") },
		},
		{
			name: "ram destroys the segment ahead, spends all moves, keeps the action", rule: "§8.2",
			ships: []*Ship{testShip(0, Destroyer, 5, 5, right), testShip(1, Cruiser, 6, 4, up)}, reply: "AF+1-1M",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "001")
				wantPos(t, g, 0, 5, 5, right)
				wantInt(t, "moves", g.Ship(0).Moves, 0)
			},
		},
		{
			name: "ram after a move is rejected", rule: "§8.2",
			ships: []*Ship{testShip(0, Destroyer, 4, 5, right), testShip(1, Cruiser, 6, 4, up)}, reply: "MA",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantPos(t, g, 0, 5, 5, right)
				wantHull(t, g, 1, "111")
			},
		},
		{
			name: "a submerged ship dodges shots", rule: "§5",
			ships: []*Ship{bs(), underwater(testShip(1, Submarine, 8, 3, right))}, reply: "F+3-2",
			check: func(t *testing.T, g *Game, res TurnResult) {
				wantHull(t, g, 1, "111")
				wantBool(t, "dodge event", hasEvent(res, "dodge"), true)
			},
		},
		{
			name: "a shield absorbs one shot and is spent", rule: "§4",
			ships: []*Ship{bs(), shielded(testShip(1, Battleship, 8, 3, right))}, reply: "F+3-2F+3-2",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "0111")
				wantBool(t, "shield", g.Ship(1).Shield, false)
			},
		},
		{
			name: "a malformed F drops the rest of the string after spending the action", rule: "§8.2",
			ships: []*Ship{bs()}, reply: "F+x+1M",
			check: func(t *testing.T, g *Game, res TurnResult) {
				wantPos(t, g, 0, 5, 5, up)
				wantInt(t, "shots fired", g.Ship(0).ShotsFired, 1)
				wantBool(t, "aborted", res.Aborted, true)
			},
		},
		{
			name: "fewer than four target characters drop the rest, earlier actions stand", rule: "§3",
			ships: []*Ship{bs()}, reply: "MF+1",
			check: func(t *testing.T, g *Game, res TurnResult) {
				wantPos(t, g, 0, 5, 4, up)
				wantBool(t, "aborted", res.Aborted, true)
			},
		},
		{
			name: "a rejected F skips its four characters without reading them", rule: "§3",
			ships: []*Ship{bs()}, reply: "SFabcdM",
			check: func(t *testing.T, g *Game, res TurnResult) {
				wantPos(t, g, 0, 5, 4, up)
				wantBool(t, "aborted", res.Aborted, false)
			},
		},
		{
			name: "a failed drop still spends the mine and the action", rule: "§3",
			ships: []*Ship{bs()}, reply: "N+5+5S",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantInt(t, "mines left", g.Ship(0).Mines, 0)
				wantBool(t, "scan", g.Ship(0).Scan, false)
				wantInt(t, "mines on grid", len(g.Mines()), 0)
			},
		},
		{
			name: "a mine may go next to the stern", rule: "Platform policy (§3 N)",
			ships: []*Ship{bs()}, reply: "N+1+3",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				if m := g.Mines(); len(m) != 1 || m[0] != [2]int{6, 8} {
					t.Errorf("mines = %v, want [[6 8]]", m)
				}
			},
		},
		{
			name: "a mine may go diagonally next to the bow", rule: "Platform policy (§3 N)",
			ships: []*Ship{bs()}, reply: "N-1-1",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantInt(t, "mines on grid", len(g.Mines()), 1) },
		},
		{
			name: "a mine two cells ahead is rejected", rule: "Platform policy (§3 N)",
			ships: []*Ship{bs()}, reply: "N+0-2",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantInt(t, "mines on grid", len(g.Mines()), 0) },
		},
		{
			name: "a mine needs empty water", rule: "§3",
			ships: []*Ship{bs(), testShip(1, Destroyer, 6, 5, up)}, reply: "N+1+0",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantInt(t, "mines on grid", len(g.Mines()), 0) },
		},
		{
			name: "moving forward onto a mine destroys segment 1, credited to the mover", rule: "§5, §8.4",
			ships: []*Ship{bs()}, mines: [][2]int{{5, 4}}, reply: "M",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantPos(t, g, 0, 5, 4, up)
				wantHull(t, g, 0, "1011")
				wantInt(t, "hits", g.Ship(0).Hits, 1)
				wantInt(t, "damage", g.Ship(0).Damage, 1)
				wantInt(t, "mines on grid", len(g.Mines()), 0)
			},
		},
		{
			name: "backing onto a mine destroys segment len-2", rule: "§5",
			ships: []*Ship{bs()}, mines: [][2]int{{5, 9}}, reply: "B",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantPos(t, g, 0, 5, 6, up)
				wantHull(t, g, 0, "1101")
			},
		},
		{
			name: "rotating onto a mine can destroy the bow", rule: "§5",
			ships: []*Ship{testShip(0, Destroyer, 5, 5, up)}, mines: [][2]int{{4, 5}}, reply: "K",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantPos(t, g, 0, 5, 5, right)
				wantHull(t, g, 0, "01")
			},
		},
		{
			name: "K turns clockwise and C counter-clockwise", rule: "§3",
			ships: []*Ship{testShip(0, Destroyer, 5, 5, up)}, reply: "KKC",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantPos(t, g, 0, 5, 5, right) },
		},
		{
			name: "chains of mines are credited to the shooter", rule: "§5, §8.4",
			ships: []*Ship{bs(), testShip(1, Cruiser, 13, 13, up)},
			mines: [][2]int{{10, 10}, {11, 11}, {12, 12}},
			reply: "F+5+5",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "011")
				wantInt(t, "hits", g.Ship(0).Hits, 1)
				wantInt(t, "mines on grid", len(g.Mines()), 0)
			},
		},
		{
			name: "a blast hurts a submerged ship", rule: "§5, §8.4",
			ships: []*Ship{bs(), underwater(testShip(1, Submarine, 11, 10, up))}, mines: [][2]int{{10, 10}}, reply: "F+5+5",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "001")
				wantInt(t, "hits", g.Ship(0).Hits, 2)
			},
		},
		{
			name: "a shield stops one cell of a blast only", rule: "§4, §8.4",
			ships: []*Ship{bs(), shielded(testShip(1, Battleship, 11, 9, up))}, mines: [][2]int{{10, 10}}, reply: "F+5+5",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantHull(t, g, 1, "1001") },
		},
		{
			name: "sinking a ship counts a hit and a sinking", rule: "§6",
			ships: []*Ship{bs(), damaged(testShip(1, Cruiser, 8, 3, right), "100")}, reply: "F+3-2",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantInt(t, "sunken", g.Ship(0).Sunken, 1)
				wantInt(t, "score of sinker", g.Ship(0).Score(), 6)
				wantInt(t, "score of sunk", g.Ship(1).Score(), -11) // 0 + 0 - 1 - 10
				if c := g.at(8, 3); c.kind != cellWreck {
					t.Errorf("sunk ship's cell is %v, want wreckage", c.kind)
				}
			},
		},
		{
			name: "the Carrier's splash hits both neighbours of the struck segment", rule: "Platform policy (§4 Carrier)",
			ships: []*Ship{testShip(0, Carrier, 5, 5, up), testShip(1, Battleship, 8, 2, up)}, reply: "F+3-2",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "0001")
				wantInt(t, "hits", g.Ship(0).Hits, 3)
			},
		},
		{
			name: "the Carrier's splash works on a ship facing left too", rule: "Platform policy (§4 Carrier)",
			ships: []*Ship{testShip(0, Carrier, 5, 5, up), testShip(1, Battleship, 8, 2, left)}, reply: "F+5-3",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantHull(t, g, 1, "1000") },
		},
		{
			name: "a submerged submarine may only move", rule: "Platform policy (§3 P)",
			ships: []*Ship{underwater(testShip(0, Submarine, 5, 5, up)), testShip(1, Cruiser, 8, 3, right)}, reply: "F+3-2SAM",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 1, "111")
				wantBool(t, "scan", g.Ship(0).Scan, false)
				wantPos(t, g, 0, 5, 4, up)
			},
		},
		{
			name: "surfacing takes the action and sets the cooldown", rule: "§3 P",
			ships: []*Ship{underwater(testShip(0, Submarine, 5, 5, up))}, reply: "PP",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantBool(t, "underwater", g.Ship(0).Underwater, false)
				wantInt(t, "cooldown", g.Ship(0).Cooldown, skillCooldown)
			},
		},
		{
			name: "a Destroyer rotates with no moves left, its moves going negative", rule: "§1 Destroyer",
			ships: []*Ship{testShip(0, Destroyer, 5, 5, up)}, reply: "MMMKM",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantPos(t, g, 0, 5, 2, right)
				wantInt(t, "moves", g.Ship(0).Moves, -1)
			},
		},
		{
			name: "a blocked rotation still costs a move", rule: "§3",
			ships: []*Ship{testShip(0, Cruiser, 5, 5, up), testShip(1, Destroyer, 4, 5, up)}, reply: "KM",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantPos(t, g, 0, 5, 5, up) },
		},
		{
			name: "wreckage blocks movement", rule: "§2",
			ships: []*Ship{bs(), damaged(testShip(1, Destroyer, 5, 4, right), "00")}, reply: "M",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantPos(t, g, 0, 5, 5, up) },
		},
		{
			name: "a submerged ship blocks movement", rule: "§3 M",
			ships: []*Ship{bs(), underwater(testShip(1, Submarine, 5, 4, right))}, reply: "M",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantPos(t, g, 0, 5, 5, up) },
		},
		{
			name: "the edge of the grid blocks movement", rule: "§3 M",
			ships: []*Ship{testShip(0, Battleship, 5, 0, up)}, reply: "M",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantPos(t, g, 0, 5, 0, up) },
		},
		{
			name: "firing at your own hull hurts and counts", rule: "§3 F",
			ships: []*Ship{bs()}, reply: "F+0+1",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantHull(t, g, 0, "1011")
				wantInt(t, "hits", g.Ship(0).Hits, 1)
				wantInt(t, "damage", g.Ship(0).Damage, 1)
			},
		},
		{
			name: "a ship that sinks itself does nothing more", rule: "§5",
			ships: []*Ship{damaged(testShip(0, Destroyer, 5, 5, up), "10")}, mines: [][2]int{{4, 4}}, reply: "F-1-1M",
			check: func(t *testing.T, g *Game, _ TurnResult) {
				wantPos(t, g, 0, 5, 5, up)
				wantBool(t, "alive", g.Ship(0).Alive(), false)
				wantInt(t, "self-sinking", g.Ship(0).Sunken, 1)
			},
		},
		{
			name: "unknown characters and spaces are waits", rule: "§3 W",
			ships: []*Ship{bs()}, reply: "w x;Z\tM",
			check: func(t *testing.T, g *Game, _ TurnResult) { wantPos(t, g, 0, 5, 4, up) },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := testGame(20, tc.ships...)
			for _, m := range tc.mines {
				g.addMine(m[0], m[1])
			}
			res := g.Apply(0, tc.reply)
			t.Logf("rule %s; events: %v", tc.rule, res.Events)
			tc.check(t, g, res)
		})
	}
}
