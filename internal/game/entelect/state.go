package entelect

// Cell is one square of a player's own map.
type Cell struct {
	// Occupied means a ship lies on the cell.
	Occupied bool
	// Hit means a shot not absorbed by a shield landed here.
	Hit bool
	// Shielded means the owner's active shield covers the cell.
	Shielded bool
	// ShieldHit means the shield absorbed a shot here while active.
	ShieldHit bool
	// ship is the index in Player.Ships of the ship on the cell, if any.
	ship int8
}

// Ship is one of a player's five ships.
type Ship struct {
	Type ShipType
	// cells are the map indexes of the ship, start cell first. They stay
	// from the last placement attempt even when Placed is false, as the
	// original keeps them (§2 "stale ship cells").
	cells [5]int16
	// HasCells is false until the ship was placed once; the original then
	// lists its cells as null.
	HasCells  bool
	Placed    bool
	Destroyed bool
}

// Shield is a player's shield (§7).
type Shield struct {
	RoundLastUsed int
	Charges       int
	Radius        int
	MaxRadius     int
	Active        bool
	CenterX       int
	CenterY       int
}

// Move is what roundCommand.json records of a player's last processed
// command. It persists across rounds, as in the original.
type Move struct {
	Successful bool
	// Issued is the command's code; HasIssued is false before the first.
	Issued    Code
	HasIssued bool
	CenterX   int
	CenterY   int
	// PlaceText is the last place.txt, joined; HasPlace is false before the
	// first.
	PlaceText string
	HasPlace  bool
}

// Player is one side of the match.
type Player struct {
	Map        [maxCells]Cell
	Ships      [numShips]Ship
	Points     int
	Energy     int
	Killed     bool
	ShotsFired int
	ShotsHit   int
	Shield     Shield
	// FailedPlacements is FailedFirstPhaseCommands.
	FailedPlacements int
	// FirstShotLanded is the round of the first landed hit (noShot if none).
	FirstShotLanded int
	// DoNothings is the current streak of DoNothing commands.
	DoNothings int
	// KillReason says why the harness killed the player (DoNothing streak or
	// failed placements); empty otherwise.
	KillReason string
	Move       Move
}

// State is a whole match: both maps and counters.
type State struct {
	// Size is 1, 2 or 3; N is the map side (7, 10 or 14).
	Size  int
	N     int
	Round int
	Phase int
	// Players are A (0) and B (1).
	Players [2]Player
	// changed marks, per player, the ships (bit per ShipType) whose cells
	// changed since the last destroyShips, which only rechecks those.
	changed [2]uint8
}

// NewState returns the state at the start of a match of the given size.
func NewState(size int) State {
	var s State
	s.Reset(size)
	return s
}

// Reset sets s to the start of a match without allocating.
func (s *State) Reset(size int) {
	size = NormalizeSize(size)
	info := sizes[size]
	*s = State{Size: size, N: info.n, Phase: 1}
	for i := range s.Players {
		p := &s.Players[i]
		for c := range p.Map {
			p.Map[c].ship = -1
		}
		for t := range p.Ships {
			p.Ships[t].Type = ShipType(t)
		}
		p.Energy = info.energy
		p.FirstShotLanded = noShot
		p.Shield.MaxRadius = info.maxRadius
	}
}

// Key returns the player key, "A" or "B".
func Key(i int) string {
	if i == 0 {
		return "A"
	}
	return "B"
}

// index returns the map index of (x, y): x-major, as the original stores
// cells.
func (s *State) index(x, y int) int { return x*s.N + y }

// onMap reports whether (x, y) lies on the map.
func (s *State) onMap(x, y int) bool { return x >= 0 && y >= 0 && x < s.N && y < s.N }

// Cell returns player p's cell at (x, y), which must be on the map.
func (s *State) Cell(p, x, y int) Cell { return s.Players[p].Map[s.index(x, y)] }

// ShipCells returns the (x, y) of each cell of ship t of player p, start
// cell first; nil when the ship has never been placed.
func (s *State) ShipCells(p int, t ShipType) [][2]int {
	sh := &s.Players[p].Ships[t]
	if !sh.HasCells {
		return nil
	}
	out := make([][2]int, t.Length())
	for i := range out {
		c := int(sh.cells[i])
		out[i] = [2]int{c / s.N, c % s.N}
	}
	return out
}

// ShipsRemaining counts player p's ships not destroyed.
func (s *State) ShipsRemaining(p int) int {
	n := 0
	for _, sh := range s.Players[p].Ships {
		if !sh.Destroyed {
			n++
		}
	}
	return n
}

// WeaponCost returns the energy a command costs on this map.
func (s *State) WeaponCost(c Code) int {
	t := c.weaponShip()
	if t < 0 {
		return 1
	}
	return ships[t].costRounds * sizes[s.Size].energy
}

// LastRound is the last playable round index (N*N+5).
func (s *State) LastRound() int { return s.N*s.N + 5 }

// Over reports whether the match has ended: at most one player alive, or
// the round cap passed (§8).
func (s *State) Over() bool {
	alive := 0
	for i := range s.Players {
		if !s.Players[i].Killed {
			alive++
		}
	}
	return alive <= 1 || s.Round > s.LastRound()
}

// Leaderboard returns the player indexes best first: alive before killed,
// more points, earlier first landed hit, fewer failed placements, then A
// before B (§8).
func (s *State) Leaderboard() [2]int {
	if s.better(1, 0) {
		return [2]int{1, 0}
	}
	return [2]int{0, 1}
}

// better reports whether player i ranks strictly above player j.
func (s *State) better(i, j int) bool {
	a, b := &s.Players[i], &s.Players[j]
	switch {
	case a.Killed != b.Killed:
		return !a.Killed
	case a.Points != b.Points:
		return a.Points > b.Points
	case a.FirstShotLanded != b.FirstShotLanded:
		return a.FirstShotLanded < b.FirstShotLanded
	case a.FailedPlacements != b.FailedPlacements:
		return a.FailedPlacements < b.FailedPlacements
	}
	return false
}
