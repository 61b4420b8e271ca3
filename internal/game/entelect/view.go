package entelect

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/broadside/broadside/internal/game"
)

// point formats a System.Drawing.Point as its TypeConverter does.
func point(x, y int) string { return fmt.Sprintf("%d, %d", x, y) }

// PlayerStateJSON renders player p's state.json (§3.2): its own map and
// ships, and what it may see of the opponent. names are A's and B's
// display names.
func (s *State) PlayerStateJSON(p int, names [2]string) []byte {
	w := jsonWriter{b: make([]byte, 0, 192*s.N*s.N)}
	w.raw(`{"PlayerMap":`)
	s.writePlayerMap(&w, p, names[p])
	w.raw(`,"OpponentMap":`)
	s.writeOpponentMap(&w, 1-p, names[1-p])
	s.writeStateTail(&w)
	w.raw(`,"Player1Map":null,"Player2Map":null}`)
	return w.b
}

// RootStateJSON renders the round folder's state.json (§3.3): both full
// maps, ship positions included.
func (s *State) RootStateJSON(names [2]string) []byte {
	w := jsonWriter{b: make([]byte, 0, 240*s.N*s.N)}
	w.raw(`{"PlayerMap":null,"OpponentMap":null`)
	s.writeStateTail(&w)
	w.raw(`,"Player1Map":`)
	s.writePlayerMap(&w, 0, names[0])
	w.raw(`,"Player2Map":`)
	s.writePlayerMap(&w, 1, names[1])
	w.byte('}')
	return w.b
}

// marshal writes compact JSON like Newtonsoft: no HTML escaping, no
// trailing newline.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only plain structs of strings, ints and bools are encoded here.
		panic(fmt.Sprintf("entelect: encode view: %v", err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

type playerInfoJSON struct {
	Author   string
	NickName string
	Email    string
	BotType  string
}

type roundInfoJSON struct {
	MapSize     int
	Round       int
	Winner      playerInfoJSON
	LeaderBoard [2]playerInfoJSON
	Players     [2]playerInfoJSON
}

// RoundInfoJSON renders roundInfo.json (§3.4): the current leader as
// Winner, the leaderboard and the players in registration order.
func (s *State) RoundInfoJSON(infos [2]game.BotInfo) []byte {
	pi := func(i int) playerInfoJSON {
		b := infos[i]
		t := b.BotType
		if t == "" {
			t = "Unkown" // sic: the original's spelling for console players
		}
		return playerInfoJSON{b.Author, b.NickName, b.Email, t}
	}
	lb := s.Leaderboard()
	return marshal(roundInfoJSON{
		MapSize:     s.N,
		Round:       s.Round,
		Winner:      pi(lb[0]),
		LeaderBoard: [2]playerInfoJSON{pi(lb[0]), pi(lb[1])},
		Players:     [2]playerInfoJSON{pi(0), pi(1)},
	})
}

type moveJSON struct {
	SuccessfulMove       bool
	CommandIssued        *string
	CenterPoint          string
	ShieldRadius         int
	PlaceShipString      *string
	Energy               int
	RemainingShieldTurns int
}

type roundCommandJSON struct {
	Player1Move moveJSON
	Player2Move moveJSON
}

// RoundCommandJSON renders roundCommand.json (§3.4): each player's last
// processed command with its current energy and shield.
func (s *State) RoundCommandJSON() []byte {
	mv := func(p int) moveJSON {
		pl := &s.Players[p]
		m := pl.Move
		j := moveJSON{SuccessfulMove: m.Successful, CenterPoint: point(m.CenterX, m.CenterY),
			ShieldRadius: pl.Shield.Radius, Energy: pl.Energy, RemainingShieldTurns: pl.Shield.Charges}
		if m.HasIssued {
			name := m.Issued.String()
			j.CommandIssued = &name
		}
		if m.HasPlace {
			text := m.PlaceText
			j.PlaceShipString = &text
		}
		return j
	}
	return marshal(roundCommandJSON{mv(0), mv(1)})
}
