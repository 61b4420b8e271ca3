package hitandsunk

import "fmt"

// ShipType is one of the five ship classes a bot may choose on its first call.
type ShipType struct {
	// Choice is the number the bot prints to pick this class (1 to 5).
	Choice int
	Name   string
	Length int
	// Moves, Shots and Range are the per-turn allowances and the fire range
	// per axis.
	Moves int
	Shots int
	Range int
	// Mines is the number of mines for the whole game.
	Mines int
}

// The five ship classes, by choice number (ShipType.java of the controller).
var (
	Destroyer  = ShipType{Choice: 1, Name: "Destroyer", Length: 2, Moves: 3, Shots: 1, Range: 9, Mines: 4}
	Submarine  = ShipType{Choice: 2, Name: "Submarine", Length: 3, Moves: 2, Shots: 1, Range: 5, Mines: 4}
	Cruiser    = ShipType{Choice: 3, Name: "Cruiser", Length: 3, Moves: 1, Shots: 2, Range: 9, Mines: 2}
	Battleship = ShipType{Choice: 4, Name: "Battleship", Length: 4, Moves: 1, Shots: 3, Range: 7, Mines: 1}
	Carrier    = ShipType{Choice: 5, Name: "Carrier", Length: 5, Moves: 1, Shots: 1, Range: 7, Mines: 3}
)

// ShipTypeByChoice returns the class a bot picks by printing choice.
func ShipTypeByChoice(choice int) (ShipType, error) {
	switch choice {
	case 1:
		return Destroyer, nil
	case 2:
		return Submarine, nil
	case 3:
		return Cruiser, nil
	case 4:
		return Battleship, nil
	case 5:
		return Carrier, nil
	}
	return ShipType{}, fmt.Errorf("ship choice %d is not between 1 and 5", choice)
}

// Facing codes as the protocol sends them.
const (
	FacingUp    = 0
	FacingRight = 1
	FacingDown  = 2
	FacingLeft  = 3
)

// Cooldowns and the submarine's dive limit.
const (
	skillCooldown = 3
	// maxUnderwater is how many of its own turns a submarine may start
	// submerged before it surfaces by itself.
	maxUnderwater = 5
)

// forward is the unit step a facing moves the bow by.
func forward(facing int) (dx, dy int) {
	switch facing {
	case FacingUp:
		return 0, -1
	case FacingRight:
		return 1, 0
	case FacingDown:
		return 0, 1
	default:
		return -1, 0
	}
}

// Ship is one bot's ship and its running score.
type Ship struct {
	// ID is the bot's seat index, sent as the protocol's player id.
	ID     int
	Type   ShipType
	X, Y   int // the bow
	Facing int
	// Hull holds one flag per segment from bow to stern: true is intact.
	Hull []bool

	// Per-turn allowances, reset at the start of each of the ship's turns.
	// Moves may go negative (Destroyer rotations) and actions too (volleys).
	Moves    int
	Shots    int
	Actions  int
	Shooting bool

	Mines    int
	Cooldown int

	Underwater bool
	// UnderTurns counts the ship's own turns started under water.
	UnderTurns int
	Shield     bool
	Scan       bool

	Hits   int
	Sunken int
	Damage int

	// ShotsFired counts shots spent; ShotsLanded those that destroyed at
	// least one segment.
	ShotsFired  int
	ShotsLanded int
}

// Alive reports whether at least one segment is intact.
func (s *Ship) Alive() bool {
	for _, ok := range s.Hull {
		if ok {
			return true
		}
	}
	return false
}

// Cell returns the grid position of hull segment i.
func (s *Ship) Cell(i int) (x, y int) {
	return cellOf(s.X, s.Y, s.Facing, i)
}

// cellOf is the position of segment i of a ship with its bow at (x, y).
func cellOf(x, y, facing, i int) (int, int) {
	dx, dy := forward(facing)
	return x - dx*i, y - dy*i
}

// SegmentAt returns the hull index at (x, y), or -1 if the ship does not
// cover that cell.
func (s *Ship) SegmentAt(x, y int) int {
	for i := range s.Hull {
		if cx, cy := s.Cell(i); cx == x && cy == y {
			return i
		}
	}
	return -1
}

// Score is hits + 5·sunken − damage − 10 if sunk.
func (s *Ship) Score() int {
	score := s.Hits + 5*s.Sunken - s.Damage
	if !s.Alive() {
		score -= 10
	}
	return score
}
