// Package entelect hosts the Entelect Challenge 2017 "Battleships" rule set,
// release 1.2.2: the pure rules (this file and its siblings state, place,
// fire and round), the state views and map.txt renderer the original engine
// writes, the file protocol that runs one fresh bot process per round, and
// the replay folder writer.
//
// The rules take no I/O, no clock and no global randomness: a State changes
// only through Place/Step, driven by the two players' commands.
package entelect

// MaxN is the side of the largest map (size 3).
const MaxN = 14

// allShips is the changed mask of every ship.
const allShips = 1<<numShips - 1

// maxCells is the number of cells of the largest map.
const maxCells = MaxN * MaxN

// noShot is FirstShotLanded for a player who never landed a hit
// (int.MaxValue in the original).
const noShot = 1<<31 - 1

// Points per event (original Settings.settings).
const (
	pointsHit    = 10
	pointsSunk   = 30
	pointsKilled = 100
)

// Kill thresholds applied by the harness at the start of a player's turn.
const (
	maxDoNothings       = 20
	maxFailedPlacements = 5
	shieldChargeTime    = 7
)

// ShipType is one of the five ships, in the fixed order the original lists
// them in (Submarine, Destroyer, Battleship, Carrier, Cruiser).
type ShipType int8

// The five ships, in the original's list order.
const (
	Submarine ShipType = iota
	Destroyer
	Battleship
	Carrier
	Cruiser
	numShips
)

// shipInfo describes a ship type: its JSON name, length, map letter,
// friendly name, special weapon name and that weapon's cost in rounds of
// energy.
type shipInfo struct {
	name, friendly, weapon string
	length                 int
	letter                 byte
	costRounds             int
}

var ships = [numShips]shipInfo{
	Submarine:  {"Submarine", "Submarine", "SeekerMissile", 3, 'S', 12},
	Destroyer:  {"Destroyer", "Destroyer", "DoubleShot", 2, 'D', 8},
	Battleship: {"Battleship", "Battle Ship", "DiagonalCrossShot", 4, 'B', 12},
	Carrier:    {"Carrier", "Carrier", "CornerShot", 5, 'C', 10},
	Cruiser:    {"Cruiser", "Cruiser", "CrossShot", 3, 'R', 14},
}

// String returns the ship's JSON name ("Battleship").
func (t ShipType) String() string { return ships[t].name }

// Length returns how many cells the ship occupies.
func (t ShipType) Length() int { return ships[t].length }

// Direction is the way a ship extends from its start cell.
type Direction int8

// The four directions; North is +y.
const (
	North Direction = iota
	East
	South
	West
)

var directionNames = [4]string{"North", "East", "South", "West"}

// String returns the direction as place.txt spells it.
func (d Direction) String() string { return directionNames[d] }

func (d Direction) delta() (dx, dy int) {
	switch d {
	case North:
		return 0, 1
	case East:
		return 1, 0
	case South:
		return 0, -1
	default:
		return -1, 0
	}
}

// sizeInfo holds what depends on the map size (-s 1, 2, 3).
type sizeInfo struct {
	n, energy, maxRadius int
}

var sizes = [4]sizeInfo{
	1: {7, 2, 1},
	2: {10, 3, 2},
	3: {14, 4, 3},
}

// NormalizeSize maps any size the original accepted to 1, 2 or 3: anything
// but 1 or 3 means the default medium map (§9).
func NormalizeSize(size int) int {
	if size == 1 || size == 3 {
		return size
	}
	return 2
}

// Code is a command code as command.txt writes it (0 to 8); PlaceShips is
// the engine's own code for a place.txt.
type Code int8

// Command codes (§1).
const (
	DoNothing Code = iota
	FireShot
	DoubleShotVertical
	DoubleShotHorizontal
	CornerShot
	CrossShotDiagonal
	CrossShotHorizontal
	SeekerMissile
	PlaceShield
	PlaceShips
)

// issued is the CommandIssued string of roundCommand.json per code.
var issued = [...]string{
	DoNothing:            "DoNothing",
	FireShot:             "FireSingleShot",
	DoubleShotVertical:   "FireDoubleShotVertical",
	DoubleShotHorizontal: "FireDoubleShotHorizontal",
	CornerShot:           "FireCornerShot",
	CrossShotDiagonal:    "FireCrossShotDiagonal",
	CrossShotHorizontal:  "FireCrossShotNormal",
	SeekerMissile:        "FireSeekerMissile",
	PlaceShield:          "PlaceShield",
	PlaceShips:           "PlaceShip",
}

// engineNames is the command class name the engine log prints: the
// original's ToString, which the double shot and the shield do not
// override, so the full type name shows for them.
var engineNames = [...]string{
	DoNothing:            "DoNothingCommand",
	FireShot:             "FireSingleShotCommand",
	DoubleShotVertical:   "GameEngine.Commands.PlayerCommands.FireDoubleShotCommand",
	DoubleShotHorizontal: "GameEngine.Commands.PlayerCommands.FireDoubleShotCommand",
	CornerShot:           "FireCornerrShotCommand",
	CrossShotDiagonal:    "FireCrossShotCommand",
	CrossShotHorizontal:  "FireCrossShotCommand",
	SeekerMissile:        "FireSeekerMissileCommand",
	PlaceShield:          "GameEngine.Commands.PlayerCommands.PlaceShieldCommand",
	PlaceShips:           "PlaceShipCommand",
}

// String returns the CommandIssued name of the code.
func (c Code) String() string {
	if c < 0 || int(c) >= len(issued) {
		return "DoNothing"
	}
	return issued[c]
}

// weaponShip is the ship whose special weapon a fire code uses; -1 for the
// single shot, which any ship carries.
func (c Code) weaponShip() ShipType {
	switch c {
	case DoubleShotVertical, DoubleShotHorizontal:
		return Destroyer
	case CornerShot:
		return Carrier
	case CrossShotDiagonal:
		return Battleship
	case CrossShotHorizontal:
		return Cruiser
	case SeekerMissile:
		return Submarine
	}
	return -1
}

// ShipPlacement is one line of place.txt.
type ShipPlacement struct {
	Type ShipType
	X, Y int
	Dir  Direction
}

// Command is one player's move for a round.
type Command struct {
	Code Code
	X, Y int
	// Ships is the layout of a PlaceShips command, in file order.
	Ships []ShipPlacement
	// PlaceText is the place.txt lines joined as roundCommand.json shows
	// them.
	PlaceText string
}
