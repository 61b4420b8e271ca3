package brainjar

import (
	"fmt"
	"io"
	"strings"

	"github.com/broadside/broadside/internal/game"
)

// ReplayVersion is the version of the replay.json format; it changes only
// when a field changes meaning.
const ReplayVersion = 1

// ReplayFile is the replay's file name inside Options.ReplayDir.
const ReplayFile = "replay.json"

// Replay is the whole game as written to replay.json. It holds nothing a bot
// printed besides its placement and moves, so it can be shown to anyone.
type Replay struct {
	Game    string         `json:"game"`
	Version int            `json:"version"`
	Seed    int64          `json:"seed"`
	Players []ReplayPlayer `json:"players"`
	// First is the index of the first shooter, -1 when no shot was played.
	First int          `json:"first"`
	Shots []ReplayShot `json:"shots"`
	// Moves is the shared history exactly as bots received it.
	Moves  []string `json:"moves"`
	Winner *string  `json:"winner"`
}

// ReplayPlayer is one seat with its fleet, or why it has none.
type ReplayPlayer struct {
	Key   string       `json:"key"`
	Name  string       `json:"name"`
	Ships []ReplayShip `json:"ships"`
	// Error is why the player lost before the first shot (its placement
	// was rejected or it failed to answer init).
	Error string `json:"error,omitempty"`
}

// ReplayShip is a placed ship and its cells in "XY" form.
type ReplayShip struct {
	Size  int      `json:"size"`
	Cells []string `json:"cells"`
}

// ReplayShot is one legal shot in order.
type ReplayShot struct {
	Player int    `json:"player"`
	Cell   string `json:"cell"`
	// Result is "miss", "hit" or "sink".
	Result string `json:"result"`
}

func replayShips(f Fleet) []ReplayShip {
	out := make([]ReplayShip, 0, len(f))
	for _, s := range f {
		rs := ReplayShip{Size: s.Size}
		for _, c := range s.Cells {
			rs.Cells = append(rs.Cells, c.String())
		}
		out = append(out, rs)
	}
	return out
}

// writeReplay writes replay.json whole or not at all.
func writeReplay(dir string, r *Replay) error {
	if r.Shots == nil {
		r.Shots = []ReplayShot{}
	}
	if r.Moves == nil {
		r.Moves = []string{}
	}
	return game.WriteReplayJSON(dir, ReplayFile, r)
}

// drawGrids draws both players' waters side by side: S a ship, X a hit ship
// cell, o a miss, . open water.
func drawGrids(w io.Writer, g *Game, name0, name1 string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s  %-20s\n", name0, name1)
	for row := -1; row < Size; row++ {
		for p := range 2 {
			if row < 0 {
				b.WriteString("   0 1 2 3 4 5 6 7    ")
				continue
			}
			fmt.Fprintf(&b, "%d ", row)
			gr := &g.grids[p]
			for col := range Size {
				c := Cell{Col: col, Row: row}
				ch := "."
				switch {
				case gr.hits[col][row]:
					ch = "X"
				case gr.shot[col][row]:
					ch = "o"
				case gr.shipAt(c) >= 0:
					ch = "S"
				}
				b.WriteString(" " + ch)
			}
			b.WriteString("    ")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	_, _ = io.WriteString(w, b.String())
}
