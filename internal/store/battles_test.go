package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

func TestBattleUpdate(t *testing.T) {
	b := setup(t)
	org := b.user(t)
	start := time.Date(2030, 5, 1, 18, 0, 0, 0, time.UTC)
	id, err := b.st.BattleCreate(b.ctx, store.BattleCreateParams{
		Name: "Spring cup", OrganiserID: org, Format: "round_robin", Game: "entelect", MapSize: 2,
		GamesPerPairing: 2, StartAt: start, EntryDeadline: start.Add(-time.Hour), Seed: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := store.BattleCreateParams{
		Name: "Summer cup", OrganiserID: b.user(t), Format: "swiss", Game: "entelect", MapSize: 3,
		GamesPerPairing: 1, SwissRounds: 4, StartAt: start.Add(24 * time.Hour), EntryDeadline: start.Add(23 * time.Hour),
		ResultsHidden: true, Seed: 99,
	}
	if err := b.st.BattleUpdate(b.ctx, id, want); err != nil {
		t.Fatal(err)
	}
	got, err := b.st.BattleGetByID(b.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != want.Name || got.Format != want.Format || got.MapSize != want.MapSize ||
		got.GamesPerPairing != want.GamesPerPairing || got.SwissRounds != want.SwissRounds ||
		!got.StartAt.Equal(want.StartAt) || !got.EntryDeadline.Equal(want.EntryDeadline) || !got.ResultsHidden {
		t.Errorf("after update: %+v, want the settings of %+v", got, want)
	}
	// The organiser and seed are not settings: they stay.
	if got.OrganiserID == nil || *got.OrganiserID != org || got.Seed != 7 || got.Status != "open" {
		t.Errorf("update changed organiser %v, seed %d or status %s", got.OrganiserID, got.Seed, got.Status)
	}
	if err := b.st.BattleUpdate(b.ctx, id+1000, want); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("update of a missing battle: got %v, want ErrNotFound", err)
	}
}
