package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
)

// apiBattleSummary is a battle in API answers: its settings and status.
type apiBattleSummary struct {
	ID              int64      `json:"id"`
	Name            string     `json:"name"`
	Game            string     `json:"game"`
	Format          string     `json:"format"`
	MapSize         int        `json:"map_size"`
	GamesPerPairing int        `json:"games_per_pairing"`
	SwissRounds     int        `json:"swiss_rounds"`
	Status          string     `json:"status"`
	ResultsHidden   bool       `json:"results_hidden"`
	Released        bool       `json:"released"`
	Entries         int        `json:"entries"`
	EntryDeadline   time.Time  `json:"entry_deadline"`
	StartAt         time.Time  `json:"start_at"`
	StartedAt       *time.Time `json:"started_at"`
	FinishedAt      *time.Time `json:"finished_at"`
	URL             string     `json:"url"`
}

// apiBattle is one battle with everything its page shows.
type apiBattle struct {
	apiBattleSummary
	// ShowResults is false while the results are hidden from the caller;
	// standings, bracket and final positions are then left out.
	ShowResults bool               `json:"show_results"`
	Entrants    []apiBattleEntrant `json:"entrants"`
	TieBreaks   []string           `json:"tie_breaks,omitempty"`
	Standings   []apiStanding      `json:"standings,omitempty"`
	Bracket     []apiBracketMatch  `json:"bracket,omitempty"`
	Games       []apiBattleGame    `json:"games"`
}

type apiBattleEntrant struct {
	BotID         int64     `json:"bot_id"`
	BotName       string    `json:"bot_name"`
	Owner         string    `json:"owner"`
	Version       *int      `json:"version"`
	Seed          *int      `json:"seed"`
	FinalPosition *int      `json:"final_position"`
	EnteredAt     time.Time `json:"entered_at"`
}

type apiStanding struct {
	Rank            int    `json:"rank"`
	BotID           int64  `json:"bot_id"`
	BotName         string `json:"bot_name"`
	Owner           string `json:"owner"`
	Played          int    `json:"played"`
	Wins            int    `json:"wins"`
	Draws           int    `json:"draws"`
	Losses          int    `json:"losses"`
	Score           int    `json:"score"`
	Buchholz        int    `json:"buchholz"`
	SonnebornBerger int    `json:"sonneborn_berger"`
	Points          int    `json:"points"`
}

type apiBracketMatch struct {
	Side    string    `json:"side"`
	Round   int       `json:"round"`
	Players [2]*int64 `json:"players"`
	Bye     [2]bool   `json:"bye"`
	// Winner is the winning slot (0 or 1), null while undecided.
	Winner  *int    `json:"winner"`
	Played  bool    `json:"played"`
	Decided bool    `json:"decided"`
	Matches []int64 `json:"matches"`
}

type apiBattleGame struct {
	Round      int     `json:"round"`
	GameNumber int     `json:"game"`
	MatchID    int64   `json:"match_id"`
	Status     string  `json:"status"`
	URL        *string `json:"url"`
}

func toAPIBattleSummary(b *store.Battle) apiBattleSummary {
	return apiBattleSummary{ID: b.ID, Name: b.Name, Game: b.Game, Format: b.Format, MapSize: b.MapSize,
		GamesPerPairing: b.GamesPerPairing, SwissRounds: b.SwissRounds, Status: b.Status,
		ResultsHidden: b.ResultsHidden, Released: b.Released, Entries: b.Entries,
		EntryDeadline: b.EntryDeadline, StartAt: b.StartAt, StartedAt: b.StartedAt, FinishedAt: b.FinishedAt,
		URL: "/api" + battlePath(b.ID)}
}

// battleTieBreaks are the tie-breaks of a battle's standings, in the
// order the battle page states them.
func battleTieBreaks(format string) []string {
	switch format {
	case "free_for_all":
		return []string{"points"}
	case "swiss":
		return []string{"score", "buchholz", "sonneborn_berger", "points", "seed"}
	}
	return []string{"score", "head_to_head", "sonneborn_berger", "points", "seed"}
}

func (h *Handler) apiBattles(w http.ResponseWriter, r *http.Request) {
	list, err := h.store.BattleList(r.Context())
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	out := make([]apiBattleSummary, 0, len(list))
	for i := range list {
		out = append(out, toAPIBattleSummary(&list[i]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"battles": out})
}

// apiBattleGet shows one battle; hidden results are left out for everyone
// but organisers, as on the battle page.
func (h *Handler) apiBattleGet(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	rep, err := h.battleService().BattleReport(r.Context(), id)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	u := apiUserFrom(r)
	show := rep.Battle.ResultsVisible() || (u != nil && u.Role == "organiser")
	writeJSON(w, http.StatusOK, toAPIBattle(rep, show))
}

func toAPIBattle(rep *competition.BattleReport, show bool) apiBattle {
	b := rep.Battle
	out := apiBattle{apiBattleSummary: toAPIBattleSummary(b), ShowResults: show,
		Entrants: []apiBattleEntrant{}, Games: []apiBattleGame{}}
	for _, e := range rep.Entries {
		ae := apiBattleEntrant{BotID: e.BotID, BotName: e.BotName, Owner: e.Username, Version: e.VersionNumber,
			Seed: e.SeedPosition, EnteredAt: e.EnteredAt}
		if show && b.Status == "finished" {
			ae.FinalPosition = e.FinalPosition
		}
		out.Entrants = append(out.Entrants, ae)
	}
	for _, g := range rep.Games {
		ag := apiBattleGame{Round: g.Round, GameNumber: g.GameNumber, MatchID: g.MatchID, Status: g.MatchStatus}
		if show {
			u := "/api/matches/" + strconv.FormatInt(g.MatchID, 10)
			ag.URL = &u
		} else if g.MatchStatus != "queued" && g.MatchStatus != "running" {
			ag.Status = "played"
		}
		out.Games = append(out.Games, ag)
	}
	if !show {
		return out
	}
	if len(rep.Table) > 0 {
		out.TieBreaks = battleTieBreaks(b.Format)
	}
	for _, row := range rep.Table {
		out.Standings = append(out.Standings, apiStanding{Rank: row.Rank, BotID: row.Entry.BotID,
			BotName: row.Entry.BotName, Owner: row.Entry.Username, Played: row.Played, Wins: row.Wins,
			Draws: row.Draws, Losses: row.Losses, Score: row.Score, Buchholz: row.Buchholz,
			SonnebornBerger: row.SonnebornBerger, Points: row.Points})
	}
	for _, row := range rep.Bracket {
		am := apiBracketMatch{Side: string(row.Side), Round: row.Round, Bye: row.Bye, Played: row.Played,
			Decided: row.Decided, Matches: row.Matches}
		for slot, p := range row.Players {
			if p != nil {
				am.Players[slot] = &p.BotID
			}
		}
		if row.Winner >= 0 {
			am.Winner = &row.Winner
		}
		if am.Matches == nil {
			am.Matches = []int64{}
		}
		out.Bracket = append(out.Bracket, am)
	}
	return out
}
