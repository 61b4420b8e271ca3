package competition_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/competition"
)

// TestEditBattleChecksUnderLock: the edit checks who edits and the
// battle's status itself, whatever the caller checked before, and a
// refused edit changes nothing.
func TestEditBattleChecksUnderLock(t *testing.T) {
	f := newFixture(t, "entelect", 2)
	id := f.battle(t, "round_robin", "entelect", 1)
	start := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Minute)
	p := competition.BattleParams{
		Name: "Renamed", Format: "round_robin", Game: "entelect", MapSize: 1, GamesPerPairing: 1,
		StartAt: start, EntryDeadline: start.Add(-time.Hour),
	}
	games := []string{"entelect"}

	bot, err := f.st.BotGetByID(f.ctx, f.bots[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.EditBattle(f.ctx, bot.OwnerID, id, p, games); !errors.Is(err, competition.ErrNotOrganiser) {
		t.Errorf("edit by a player: got %v, want ErrNotOrganiser", err)
	}
	if err := f.svc.StartBattle(f.ctx, id); err != nil {
		t.Fatal(err)
	}
	err = f.svc.EditBattle(f.ctx, f.org, id, p, games)
	if !competition.IsRefusal(err) || !strings.Contains(err.Error(), "only be edited before it starts") {
		t.Errorf("edit of a running battle: got %v, want a refusal", err)
	}
	b, err := f.st.BattleGetByID(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name == "Renamed" || b.Status != "running" || b.StartAt.Equal(start) {
		t.Errorf("refused edits changed the battle: %+v", b)
	}
}
