package page

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// TestMatchFreeForAllPlacing: a free-for-all's players read their placing
// ("2nd of 4"), not a bare "loss"; a duel still reads win and loss.
func TestMatchFreeForAllPlacing(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	seat := func(seat, rank int, outcome string) store.MatchPlayerRow {
		return store.MatchPlayerRow{Seat: seat, Key: itoa(seat), BotID: int64(10 + seat), BotName: "Bot" + itoa(seat), Owner: "ann",
			VersionNumber: 1, Outcome: outcome, Rank: rank}
	}
	render := func(players ...store.MatchPlayerRow) string {
		m := store.MatchRow{ID: 7, Game: "hitandsunk", Kind: "ladder", Ranked: true, Status: "finished", Rounds: 40, Seed: 1,
			CreatedAt: now, FinishedAt: &now, Players: players}
		var out strings.Builder
		if err := Match(MatchView{Base: Base{Title: "Match"}, Match: &m}).Render(context.Background(), &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	outcomes := func(html string) []string {
		var got []string
		for _, cell := range strings.Split(html, `<td class="outcome">`)[1:] {
			text, _, _ := strings.Cut(cell, "</td>")
			got = append(got, strings.TrimSpace(text))
		}
		return got
	}
	ffa := outcomes(render(seat(0, 2, "loss"), seat(1, 1, "win"), seat(2, 4, "loss"), seat(3, 3, "loss")))
	if want := []string{"2nd of 4", "1st of 4", "4th of 4", "3rd of 4"}; strings.Join(ffa, "|") != strings.Join(want, "|") {
		t.Errorf("free-for-all outcomes %q, want %q", ffa, want)
	}
	duel := outcomes(render(seat(0, 1, "win"), seat(1, 2, "loss")))
	if want := []string{"win", "loss"}; strings.Join(duel, "|") != strings.Join(want, "|") {
		t.Errorf("duel outcomes %q, want %q", duel, want)
	}
}
