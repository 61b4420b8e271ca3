package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// TestLadderBotState reads a bot's ladder standing in one statement: its
// own flags, its place in the queue and the matchmaker's last run, each
// when there is one.
func TestLadderBotState(t *testing.T) {
	b := setup(t)
	x, _ := b.builtBot(t, "entelect")
	y, _ := b.builtBot(t, "entelect")
	const tick = "ladder_tick_state_test"

	st, err := b.st.LadderBotState(b.ctx, x.ID, tick)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bot.ID != x.ID || st.Bot.Game != "entelect" || st.Bot.CurrentVersionID == nil || st.Queue != nil || st.Tick != nil {
		t.Fatalf("before any queue or run: %+v", st)
	}

	if err := b.st.LadderQueueReplace(b.ctx, "entelect", []store.LadderQueueRow{
		{BotID: y.ID, Position: 1, GamesToday: 2, PlacementLeft: 0},
		{BotID: x.ID, Position: 2, GamesToday: 1, PlacementLeft: 3},
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.st.PeriodicRegister(b.ctx, tick, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.st.PeriodicStarted(b.ctx, tick); err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotSetPaused(b.ctx, x.ID, true); err != nil {
		t.Fatal(err)
	}
	m := b.match(t, false, x.ID, y.ID)

	st, err = b.st.LadderBotState(b.ctx, x.ID, tick)
	if err != nil {
		t.Fatal(err)
	}
	if q := st.Queue; q == nil || *q != (store.LadderQueueRow{BotID: x.ID, Position: 2, GamesToday: 1, PlacementLeft: 3}) {
		t.Errorf("queue row %+v", st.Queue)
	}
	if r := st.Tick; r == nil || r.Name != tick || r.Interval != time.Minute || r.LastStartedAt == nil {
		t.Errorf("tick %+v", st.Tick)
	}
	if !st.Bot.Paused {
		t.Errorf("bot %+v: want paused", st.Bot)
	}
	if st.MatchID != m.ID || st.MatchStatus != "queued" {
		t.Errorf("ladder match %d %q, want %d queued", st.MatchID, st.MatchStatus, m.ID)
	}

	if _, err := b.st.LadderBotState(b.ctx, -1, tick); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("no such bot: %v", err)
	}
}
