package hitandsunk

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// field returns field i (0-based) of a request.
func field(req string, i int) string {
	return strings.Split(req, ";")[i]
}

func TestTurnSequence(t *testing.T) {
	t.Run("§4 a shield lasts through other turns until the owner's next reply", func(t *testing.T) {
		g := testGame(20, testShip(0, Battleship, 5, 5, up), testShip(1, Cruiser, 8, 5, up))
		g.Apply(0, "D")
		g.BeginTurn(1)
		g.Apply(1, "F-3+0")
		wantHull(t, g, 0, "1111")
		g.BeginTurn(0)
		if got := field(g.Request(0), 6); got != "0,0,0" {
			t.Errorf("after absorbing: flags %q, want 0,0,0", got)
		}
		g.Apply(0, "W")
		g.BeginTurn(0)
		wantInt(t, "cooldown two turns after D", g.Ship(0).Cooldown, 1)
	})
	t.Run("§4 an unspent shield shows in the next request and is cleared by the reply", func(t *testing.T) {
		g := testGame(20, testShip(0, Battleship, 5, 5, up), testShip(1, Cruiser, 8, 5, up))
		g.Apply(0, "D")
		g.BeginTurn(0)
		req := g.Request(0)
		if got := field(req, 6); got != "0,1,0" {
			t.Errorf("flags %q, want 0,1,0", got)
		}
		if got := field(req, 4); got != "1,3,1,2" {
			t.Errorf("moves,shots,mines,cooldown = %q, want 1,3,1,2 (cooldown ticked at turn start)", got)
		}
		g.Apply(0, "W")
		wantBool(t, "shield after reply", g.Ship(0).Shield, false)
	})
	t.Run("§4 a scan widens the next map only", func(t *testing.T) {
		g := testGame(40, testShip(0, Battleship, 20, 20, up), testShip(1, Cruiser, 28, 12, up))
		if strings.Contains(g.Map(0), "A") {
			t.Fatal("enemy 8 cells away visible without a scan")
		}
		g.Apply(0, "S")
		g.BeginTurn(0)
		m := g.Map(0)
		if strings.Contains(m, "U") || !strings.Contains(m, "A") {
			t.Errorf("scanned map hides cells or misses the enemy: %q", m)
		}
		g.Apply(0, "W")
		if !strings.Contains(g.Map(0), "U") {
			t.Error("scan still in effect after the next reply")
		}
	})
	t.Run("Platform policy: a submarine surfaces by itself after 5 turns under", func(t *testing.T) {
		g := testGame(20, testShip(0, Submarine, 5, 5, up), testShip(1, Cruiser, 10, 10, up))
		g.Apply(0, "P")
		for turn := 1; turn <= maxUnderwater; turn++ {
			g.BeginTurn(0)
			if !g.Ship(0).Underwater {
				t.Fatalf("surfaced at turn %d under water, want after %d", turn, maxUnderwater)
			}
			g.Apply(0, "W")
		}
		g.BeginTurn(0)
		wantBool(t, "underwater after the limit", g.Ship(0).Underwater, false)
		wantInt(t, "cooldown after surfacing", g.Ship(0).Cooldown, skillCooldown)
		if got := field(g.Request(0), 6); got != "0,0,0" {
			t.Errorf("flags %q, want 0,0,0", got)
		}
	})
	t.Run("§6 the game ends when at most one ship is afloat", func(t *testing.T) {
		g := testGame(20, testShip(0, Battleship, 5, 5, up), damaged(testShip(1, Cruiser, 8, 3, right), "100"))
		wantBool(t, "over before", g.Over(), false)
		g.Apply(0, "F+3-2")
		wantBool(t, "over after sinking", g.Over(), true)
	})
}

func TestRequestFormat(t *testing.T) {
	g := testGame(31, testShip(0, Cruiser, 1, 12, up), testShip(1, Destroyer, 3, 10, right))
	g.Ship(0).Hull[1] = false
	g.BeginTurn(0)
	req := g.Request(0)
	parts := strings.Split(req, ";")
	if len(parts) != 8 {
		t.Fatalf("request has %d fields, want 8: %q", len(parts), req)
	}
	want := "1;0;1,12,0;101;1,2,2,0;0,0,0;0,0,0;"
	if !strings.HasPrefix(req, want) {
		t.Errorf("request = %q, want prefix %q (§2 field order)", req[:len(want)], want)
	}
	m := parts[7]
	if len(m) != 361 {
		t.Fatalf("map has %d characters, want 361", len(m))
	}
	at := func(dx, dy int) byte { return m[(dy+9)*19+dx+9] }
	checks := []struct {
		rule   string
		dx, dy int
		want   byte
	}{
		{"§2 index 180 is the bow", 0, 0, 'O'},
		{"§8.5 own cells are O even when destroyed", 0, 1, 'O'},
		{"§2 off the grid is X", -2, 0, 'X'},
		{"§2 beyond 5 without a scan is U", 6, 0, 'U'},
		{"§2 enemy intact segment is A", 2, -2, 'A'},
		{"§2 empty water is .", 3, 3, '.'},
	}
	for _, c := range checks {
		if got := at(c.dx, c.dy); got != c.want {
			t.Errorf("%s: map at (%d,%d) = %c, want %c", c.rule, c.dx, c.dy, got, c.want)
		}
	}
}

func TestMapHidesWrecksAndSubmarines(t *testing.T) {
	g := testGame(20,
		testShip(0, Battleship, 5, 5, up),
		damaged(testShip(1, Destroyer, 7, 5, up), "00"),
		underwater(damaged(testShip(2, Submarine, 3, 5, up), "011")),
		damaged(testShip(3, Cruiser, 9, 5, up), "011"),
	)
	g.addMine(5, 3)
	at := func(dx, dy int) byte { return g.Map(0)[(dy+9)*19+dx+9] }
	tests := []struct {
		rule   string
		dx, dy int
		want   byte
	}{
		{"§2 wreckage shows as .", 2, 0, '.'},
		{"§2 a submerged enemy shows as . without a scan", -2, 0, '.'},
		{"§2 a destroyed enemy segment is B", 4, 0, 'B'},
		{"§2 a mine is M", 0, -2, 'M'},
	}
	for _, tc := range tests {
		if got := at(tc.dx, tc.dy); got != tc.want {
			t.Errorf("%s: got %c, want %c", tc.rule, got, tc.want)
		}
	}
	g.Ship(0).Scan = true
	if got, want := at(-2, 0), byte('D'); got != want {
		t.Errorf("§2 scanned submerged destroyed segment = %c, want %c", got, want)
	}
	if got, want := at(-2, 1), byte('C'); got != want {
		t.Errorf("§2 scanned submerged intact segment = %c, want %c", got, want)
	}
}

func TestRank(t *testing.T) {
	st := []Standing{
		{ID: 0, Score: 5, Dead: 0},
		{ID: 1, Score: 7},
		{ID: 2, Score: 5, Dead: 1, Sunken: 3},
		{ID: 3, Score: 5, Dead: 0, Sunken: 1},
		{ID: 4, Score: 5, Dead: 0, Sunken: 1, Hits: 2},
		{ID: 5, Score: 5, Dead: 0, Sunken: 1, Hits: 2, Damage: 1},
		{ID: 6, Score: 5, Dead: 0, Sunken: 1, Hits: 2},
	}
	ordered, ranks := Rank(st)
	var ids []int
	for _, s := range ordered {
		ids = append(ids, s.ID)
	}
	// §6: score, fewer deaths, more sunken, more hits, less damage; full
	// ties share a rank and keep seat order.
	if want := []int{1, 4, 6, 5, 3, 0, 2}; !reflect.DeepEqual(ids, want) {
		t.Errorf("order = %v, want %v", ids, want)
	}
	if want := []int{1, 2, 2, 4, 5, 6, 7}; !reflect.DeepEqual(ranks, want) {
		t.Errorf("ranks = %v, want %v", ranks, want)
	}
}

func TestNewGameIsSeeded(t *testing.T) {
	choices := []int{1, 2, 3, 4, 5, 0, 9, 3}
	a := NewGame(rand.New(rand.NewSource(42)), choices)
	b := NewGame(rand.New(rand.NewSource(42)), choices)
	if !reflect.DeepEqual(snapshot(a), snapshot(b)) {
		t.Error("same seed placed ships differently")
	}
	if a.Size != 30+len(choices) {
		t.Errorf("size = %d, want 30 + %d registered bots (§1)", a.Size, len(choices))
	}
	if a.Ship(5) != nil || a.Ship(6) != nil {
		t.Error("seats with an invalid choice got a ship")
	}
	if len(a.Ships()) != 6 {
		t.Errorf("%d ships, want 6", len(a.Ships()))
	}
	// §6: the order is reshuffled every round, the same way from one seed.
	orders := map[string]bool{}
	for r := 0; r < 5; r++ {
		oa, ob := a.StartRound(), b.StartRound()
		if !reflect.DeepEqual(oa, ob) {
			t.Errorf("round %d order %v vs %v from the same seed", r+1, oa, ob)
		}
		orders[fmt.Sprint(oa)] = true
	}
	if len(orders) < 2 {
		t.Error("five rounds played in the same order: the order is not reshuffled")
	}
	// Every ship lies fully on the grid without overlap.
	seen := map[[2]int]bool{}
	for _, s := range a.Ships() {
		for i := range s.Hull {
			x, y := s.Cell(i)
			if !a.onGrid(x, y) || seen[[2]int{x, y}] {
				t.Fatalf("ship %d segment %d at (%d,%d) off the grid or overlapping", s.ID, i, x, y)
			}
			seen[[2]int{x, y}] = true
		}
	}
}

func TestParseShipChoice(t *testing.T) {
	tests := []struct {
		out  string
		want int // 0: no ship
	}{
		{"3\n", 3},
		{"+3", 3},
		{"03 and then some debug text", 3},
		{"  \n 5", 5},
		{"6", 0},
		{"0", 0},
		{"", 0},
		{"three", 0},
		{"3.0", 0},
		{"99999999999999999999", 0},
	}
	for _, tc := range tests {
		st, err := ParseShipChoice(tc.out)
		if tc.want == 0 {
			if err == nil {
				t.Errorf("§2 ParseShipChoice(%q) = %s, want an error", tc.out, st.Name)
			}
			continue
		}
		if err != nil || st.Choice != tc.want {
			t.Errorf("§2 ParseShipChoice(%q) = %d, %v; want %d", tc.out, st.Choice, err, tc.want)
		}
	}
}

func TestNormalizeReply(t *testing.T) {
	tests := map[string]string{
		"MF+1+1\n":            "MF+1+1",
		"  M \n\n F+1+1 \r\n": "M F+1+1",
		"debug\tMoving\nM":    "debug Moving M",
		"":                    "",
	}
	for in, want := range tests {
		if got := NormalizeReply(in); got != want {
			t.Errorf("§2 NormalizeReply(%q) = %q, want %q", in, got, want)
		}
	}
}
