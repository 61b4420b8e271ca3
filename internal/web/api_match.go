package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/repro"
	"github.com/broadside/broadside/internal/store"
)

// apiMatchHead is what API match lists and match answers both start with.
type apiMatchHead struct {
	ID     int64  `json:"id"`
	Game   string `json:"game"`
	Kind   string `json:"kind"`
	Ranked bool   `json:"ranked"`
	Status string `json:"status"`
	Rounds int    `json:"rounds"`
}

type apiMatch struct {
	apiMatchHead
	MapSize int   `json:"map_size"`
	Seed    int64 `json:"seed"`
	// ReplayCommand is the battleship command that plays the match again
	// (internal/repro): the seed whole, where a JSON number read as a
	// double would round it.
	ReplayCommand string           `json:"replay_command"`
	Players       []apiMatchPlayer `json:"players"`
	Summary       json.RawMessage  `json:"summary"`
	ReplayURL     *string          `json:"replay_url"`
	CreatedAt     time.Time        `json:"created_at"`
	FinishedAt    *time.Time       `json:"finished_at"`
}

type apiMatchPlayer struct {
	Seat        int     `json:"seat"`
	Key         string  `json:"key"`
	BotID       int64   `json:"bot_id"`
	BotName     string  `json:"bot_name"`
	Owner       string  `json:"owner"`
	Version     int     `json:"version"`
	Outcome     string  `json:"outcome"`
	Rank        int     `json:"rank"`
	Points      int     `json:"points"`
	ShipsLeft   int     `json:"ships_left"`
	ShotsFired  int     `json:"shots_fired"`
	ShotsLanded int     `json:"shots_landed"`
	Killed      bool    `json:"killed"`
	Reason      string  `json:"reason"`
	Log         *string `json:"log,omitempty"`
}

func toAPIMatchHead(m *store.MatchRow) apiMatchHead {
	return apiMatchHead{ID: m.ID, Game: m.Game, Kind: m.Kind, Ranked: m.Ranked, Status: m.Status, Rounds: m.Rounds}
}

// toAPIMatchPlayers gives each player's own log to its owner only.
func toAPIMatchPlayers(m *store.MatchRow, viewerID int64) []apiMatchPlayer {
	out := []apiMatchPlayer{}
	for _, p := range m.Players {
		ap := apiMatchPlayer{Seat: p.Seat, Key: p.Key, BotID: p.BotID, BotName: p.BotName, Owner: p.Owner,
			Version: p.VersionNumber, Outcome: p.Outcome, Rank: p.Rank, Points: p.Points, ShipsLeft: p.ShipsLeft,
			ShotsFired: p.ShotsFired, ShotsLanded: p.ShotsLanded, Killed: p.Killed, Reason: p.Reason}
		if viewerID != 0 && p.OwnerID == viewerID {
			ap.Log = &p.Log
		}
		out = append(out, ap)
	}
	return out
}

func toAPIMatch(m *store.MatchRow, viewerID int64, rules *game.Registry) apiMatch {
	out := apiMatch{apiMatchHead: toAPIMatchHead(m), MapSize: m.MapSize, Seed: m.Seed, Summary: m.Summary,
		ReplayCommand: repro.Command(repro.ForMatch(m, rules)),
		CreatedAt:     m.CreatedAt, FinishedAt: m.FinishedAt, Players: toAPIMatchPlayers(m, viewerID)}
	if len(out.Summary) == 0 {
		out.Summary = json.RawMessage("null")
	}
	if m.ReplayKey != "" {
		u := "/matches/" + strconv.FormatInt(m.ID, 10) + "/replay.zip"
		out.ReplayURL = &u
	}
	return out
}

func (h *Handler) apiMatch(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	viewer := apiViewerID(r)
	m, err := h.matchFor(r.Context(), id, viewer)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAPIMatch(m, viewer, h.cfg.Rules))
}

type apiLeaderboardRow struct {
	Rank     int    `json:"rank"`
	BotID    int64  `json:"bot_id"`
	BotName  string `json:"bot_name"`
	Owner    string `json:"owner"`
	Language string `json:"language"`
	House    bool   `json:"house"`
	*apiRating
}

func (h *Handler) apiLeaderboard(w http.ResponseWriter, r *http.Request) {
	game, err := h.leaderboardGame(r)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	n := pageNumber(r)
	rows, total, err := h.board.get(r.Context(), h.store, game, leaderboardPageSize, (n-1)*leaderboardPageSize)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	out := make([]apiLeaderboardRow, 0, len(rows))
	for _, l := range rows {
		out = append(out, apiLeaderboardRow{Rank: l.Rank, BotID: l.BotID, BotName: l.BotName, Owner: l.Owner,
			Language: l.Language, House: l.House, apiRating: toAPIRating(l.Rating)})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"game": game, "page": n, "per_page": leaderboardPageSize, "total": total, "bots": out,
	})
}
