package hitandsunk

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/broadside/broadside/internal/game"
)

// ReplayFile is the replay's name inside the replay folder.
const ReplayFile = "replay.json"

// ReplayVersion changes when the replay format changes incompatibly.
const ReplayVersion = 1

// Replay is the whole record of one game, written once at its end (see
// docs/hitandsunk.md). It holds what happened, never what bots printed.
type Replay struct {
	Game    string         `json:"game"`
	Version int            `json:"version"`
	Seed    int64          `json:"seed"`
	Size    int            `json:"size"`
	Rounds  int            `json:"rounds"`
	Players []ReplayPlayer `json:"players"`
	Start   Snapshot       `json:"start"`
	Turns   []ReplayTurn   `json:"turns"`
	Ends    []RoundEnd     `json:"roundEnds"`
	Result  *game.Summary  `json:"result"`
}

// ReplayPlayer is one seat: its protocol id, its ship class or why it has
// none.
type ReplayPlayer struct {
	ID     int    `json:"id"`
	Key    string `json:"key"`
	Name   string `json:"name"`
	Ship   string `json:"ship,omitempty"`
	NoShip string `json:"noShip,omitempty"`
}

// Snapshot is the board at one moment.
type Snapshot struct {
	Ships []ShipState `json:"ships"`
	Mines [][2]int    `json:"mines"`
}

// ShipState is one ship as the board holds it.
type ShipState struct {
	ID         int    `json:"id"`
	X          int    `json:"x"`
	Y          int    `json:"y"`
	Facing     int    `json:"facing"`
	Hull       string `json:"hull"`
	Alive      bool   `json:"alive"`
	Underwater bool   `json:"underwater"`
	Shield     bool   `json:"shield"`
	Mines      int    `json:"mines"`
	Cooldown   int    `json:"cooldown"`
	Hits       int    `json:"hits"`
	Sunken     int    `json:"sunken"`
	Damage     int    `json:"damage"`
	Score      int    `json:"score"`
}

// ReplayTurn is one ship's turn: its events in order, and why the bot's
// answer was replaced by a wait, if it was.
type ReplayTurn struct {
	Round   int     `json:"round"`
	Ship    int     `json:"ship"`
	Failure string  `json:"failure,omitempty"`
	Aborted bool    `json:"aborted,omitempty"`
	Events  []Event `json:"events"`
}

// RoundEnd is the play order of a round and the board after it.
type RoundEnd struct {
	Round int   `json:"round"`
	Order []int `json:"order"`
	Snapshot
}

type replay struct {
	r Replay
}

func newReplay(m *match) replay {
	r := Replay{Game: Name, Version: ReplayVersion, Seed: m.opts.Seed, Size: m.g.Size, Start: snapshot(m.g)}
	for _, s := range m.seats {
		p := ReplayPlayer{ID: s.id, Key: s.bot.Key, Name: s.bot.Name, NoShip: s.noShip}
		if ship := m.g.Ship(s.id); ship != nil {
			p.Ship = ship.Type.Name
		}
		r.Players = append(r.Players, p)
	}
	return replay{r: r}
}

func (r *replay) addTurn(round, id int, failure string, res TurnResult) {
	events := res.Events
	if events == nil {
		events = []Event{}
	}
	r.r.Turns = append(r.r.Turns, ReplayTurn{Round: round, Ship: id, Failure: failure, Aborted: res.Aborted, Events: events})
}

func (r *replay) endRound(g *Game, order []int) {
	r.r.Ends = append(r.r.Ends, RoundEnd{Round: g.Round, Order: order, Snapshot: snapshot(g)})
}

func snapshot(g *Game) Snapshot {
	sn := Snapshot{Ships: []ShipState{}, Mines: g.Mines()}
	if sn.Mines == nil {
		sn.Mines = [][2]int{}
	}
	for _, s := range g.Ships() {
		sn.Ships = append(sn.Ships, ShipState{
			ID: s.ID, X: s.X, Y: s.Y, Facing: s.Facing, Hull: hullString(s), Alive: s.Alive(),
			Underwater: s.Underwater, Shield: s.Shield, Mines: s.Mines, Cooldown: s.Cooldown,
			Hits: s.Hits, Sunken: s.Sunken, Damage: s.Damage, Score: s.Score(),
		})
	}
	return sn
}

// writeReplay writes the replay file whole or not at all.
func (m *match) writeReplay(dir string, sum *game.Summary) error {
	m.rep.r.Rounds = m.g.Round
	m.rep.r.Result = sum
	data, err := json.Marshal(m.rep.r)
	if err != nil {
		return fmt.Errorf("hitandsunk: encode replay: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".replay-*")
	if err != nil {
		return fmt.Errorf("hitandsunk: write replay: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("hitandsunk: write replay: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("hitandsunk: write replay: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("hitandsunk: write replay: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, ReplayFile)); err != nil {
		return fmt.Errorf("hitandsunk: write replay: %w", err)
	}
	return nil
}

// ReadReplay loads a replay written by Play.
func ReadReplay(path string) (*Replay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read replay: %w", err)
	}
	var r Replay
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read replay %s: %w", path, err)
	}
	if r.Game != Name {
		return nil, fmt.Errorf("read replay %s: game %q is not %s", path, r.Game, Name)
	}
	return &r, nil
}
