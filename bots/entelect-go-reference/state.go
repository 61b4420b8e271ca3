package main

// State is the part of state.json this bot reads (the engine writes more).
type State struct {
	PlayerMap    PlayerMap   `json:"PlayerMap"`
	OpponentMap  OpponentMap `json:"OpponentMap"`
	Round        int         `json:"Round"`
	MapDimension int         `json:"MapDimension"`
	Phase        int         `json:"Phase"`
}

// PlayerMap is the bot's own map.
type PlayerMap struct {
	Cells     []Cell `json:"Cells"`
	Owner     Player `json:"Owner"`
	MapWidth  int    `json:"MapWidth"`
	MapHeight int    `json:"MapHeight"`
}

// Cell is one cell of the bot's own map.
type Cell struct {
	Occupied  bool `json:"Occupied"`
	Hit       bool `json:"Hit"`
	X         int  `json:"X"`
	Y         int  `json:"Y"`
	Shielded  bool `json:"Shielded"`
	ShieldHit bool `json:"ShieldHit"`
}

// Player is the bot's own player record.
type Player struct {
	Name           string `json:"Name"`
	Ships          []Ship `json:"Ships"`
	Points         int    `json:"Points"`
	Energy         int    `json:"Energy"`
	Killed         bool   `json:"Killed"`
	Shield         Shield `json:"Shield"`
	ShipsRemaining int    `json:"ShipsRemaining"`
	Key            string `json:"Key"`
}

// Ship is one of the bot's own ships; Cells are null before placement.
type Ship struct {
	Cells     []*Cell  `json:"Cells"`
	Destroyed bool     `json:"Destroyed"`
	Placed    bool     `json:"Placed"`
	ShipType  string   `json:"ShipType"`
	Weapons   []Weapon `json:"Weapons"`
}

// Weapon is a weapon of a ship and its energy cost.
type Weapon struct {
	WeaponType     string `json:"WeaponType"`
	EnergyRequired int    `json:"EnergyRequired"`
}

// Shield is the bot's shield.
type Shield struct {
	CurrentCharges int  `json:"CurrentCharges"`
	Active         bool `json:"Active"`
	CurrentRadius  int  `json:"CurrentRadius"`
}

// OpponentMap is what the bot sees of the opponent.
type OpponentMap struct {
	Ships  []OpponentShip `json:"Ships"`
	Alive  bool           `json:"Alive"`
	Points int            `json:"Points"`
	Name   string         `json:"Name"`
	Cells  []OpponentCell `json:"Cells"`
}

// OpponentShip says whether a ship of the opponent is sunk.
type OpponentShip struct {
	Destroyed bool   `json:"Destroyed"`
	ShipType  string `json:"ShipType"`
}

// OpponentCell is one cell of the opponent's map as far as the bot knows.
type OpponentCell struct {
	Damaged   bool `json:"Damaged"`
	Missed    bool `json:"Missed"`
	X         int  `json:"X"`
	Y         int  `json:"Y"`
	ShieldHit bool `json:"ShieldHit"`
}

// shipLength is the length of each ship type.
func shipLength(t string) int {
	switch t {
	case "Carrier":
		return 5
	case "Battleship":
		return 4
	case "Cruiser", "Submarine":
		return 3
	case "Destroyer":
		return 2
	}
	return 0
}
