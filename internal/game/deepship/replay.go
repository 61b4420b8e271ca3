package deepship

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

// Replay is a whole round as written to replay.json. It holds nothing a bot
// printed besides its placements and shots, so it can be shown to anyone.
type Replay struct {
	Game    string         `json:"game"`
	Version int            `json:"version"`
	Seed    int64          `json:"seed"`
	Players []ReplayPlayer `json:"players"`
	Games   []ReplayGame   `json:"games"`
	// Winner is the key of the player with more points, null for a draw.
	Winner *string `json:"winner"`
}

// ReplayPlayer is one contestant and its round score.
type ReplayPlayer struct {
	Key    string `json:"key"`
	Name   string `json:"name"`
	Score  Score  `json:"score"`
	Points int    `json:"points"`
}

// ReplayGame is one game of the round.
type ReplayGame struct {
	Number int `json:"number"`
	// Starter is the index of the player who fired first.
	Starter int `json:"starter"`
	// Ships are each player's placement, null when it placed none.
	Ships  [2][]ReplayShip `json:"ships"`
	Events []ReplayEvent   `json:"events"`
	// End says how the game ended: sunk, placement, failure, forfeit or
	// turn limit.
	End    string  `json:"end"`
	Winner *string `json:"winner"`
}

// ReplayShip is a placed ship as the bot gave it, with its cells.
type ReplayShip struct {
	Size        int      `json:"size"`
	Orientation string   `json:"orientation"`
	At          string   `json:"at"`
	Cells       []string `json:"cells"`
}

// ReplayEvent is one turn's outcome: a shot, a skipped turn, an invalid
// shot, a late answer or a failure.
type ReplayEvent struct {
	Player  int    `json:"player"`
	Kind    string `json:"kind"`
	Coord   string `json:"coord,omitempty"`
	Result  string `json:"result,omitempty"`
	Penalty int    `json:"penalty,omitempty"`
	Note    string `json:"note,omitempty"`
}

func replayShips(ships []Ship) []ReplayShip {
	out := make([]ReplayShip, 0, len(ships))
	for _, s := range ships {
		rs := ReplayShip{Size: s.Size, Orientation: "horizontal", At: s.At.String()}
		if s.Vertical {
			rs.Orientation = "vertical"
		}
		for _, c := range s.Cells {
			rs.Cells = append(rs.Cells, c.String())
		}
		out = append(out, rs)
	}
	return out
}

// writeReplay writes replay.json whole or not at all.
func writeReplay(dir string, r *Replay) error {
	for i := range r.Games {
		if r.Games[i].Events == nil {
			r.Games[i].Events = []ReplayEvent{}
		}
	}
	return game.WriteReplayJSON(dir, ReplayFile, r)
}

// drawBoards draws both players' waters side by side: S a ship, X a hit
// ship cell, o a miss, . open water.
func drawBoards(w io.Writer, p0, p1 *player) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %s\n", p0.name, p1.name)
	for row := -1; row < Rows; row++ {
		for _, p := range []*player{p0, p1} {
			if row < 0 {
				b.WriteString("  01234567890" + strings.Repeat(" ", 28-2-Cols) + " ")
				continue
			}
			fmt.Fprintf(&b, "%c ", 'A'+row)
			for col := range Cols {
				b.WriteString(cellMark(p.board, Coord{Row: row, Col: col}))
			}
			b.WriteString(strings.Repeat(" ", 28-2-Cols) + " ")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	_, _ = io.WriteString(w, b.String())
}

func cellMark(bd *Board, c Coord) string {
	if bd == nil {
		return "?"
	}
	switch bd.fired[c.Row][c.Col].Outcome {
	case Hit, Sink:
		return "X"
	case Miss:
		return "o"
	}
	for _, s := range bd.ships {
		for _, sc := range s.Cells {
			if sc == c {
				return "S"
			}
		}
	}
	return "."
}
