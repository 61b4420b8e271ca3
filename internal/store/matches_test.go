package store_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/store"
)

func TestMatchLifecycle(t *testing.T) {
	t.Run("create seats the given versions in order", func(t *testing.T) {
		b := setup(t)
		a, va := b.builtBot(t, "entelect")
		c, vc := b.builtBot(t, "entelect")
		m := b.match(t, true, a.ID, c.ID)
		if m.Status != store.MatchQueued || len(m.Players) != 2 || m.Players[0].VersionID != va || m.Players[1].VersionID != vc {
			t.Fatalf("got %+v", m)
		}
		seats, err := b.st.MatchSeats(b.ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(seats) != 2 || seats[1].BotID != c.ID || seats[0].ArtifactKey == "" || seats[0].BuildStatus != store.BuildOK {
			t.Fatalf("seats %+v", seats)
		}
	})
	t.Run("a version of another bot is refused", func(t *testing.T) {
		b := setup(t)
		a, _ := b.builtBot(t, "entelect")
		_, vc := b.builtBot(t, "entelect")
		_, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{Game: "entelect", Seed: 1,
			Players: []store.MatchPlayerParams{{BotID: a.ID, BotVersionID: vc}, {BotID: a.ID, BotVersionID: vc}}})
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v, want ErrNotFound", err)
		}
	})
	t.Run("start counts attempts; finish records once", func(t *testing.T) {
		b := setup(t)
		a, _ := b.builtBot(t, "entelect")
		c, _ := b.builtBot(t, "entelect")
		m := b.match(t, true, a.ID, c.ID)
		for want := 1; want <= 2; want++ {
			got, err := b.st.MatchStart(b.ctx, m.ID)
			if err != nil || got != want {
				t.Fatalf("attempt %d: got %d, %v", want, got, err)
			}
		}
		p := store.MatchFinishParams{ID: m.ID, Rounds: 40, ReplayKey: "replays/1.zip", Summary: json.RawMessage(`{"game":"entelect"}`),
			Players: []store.MatchPlayerResult{
				{Seat: 0, Key: "A", Points: 300, Outcome: "win", Rank: 1, Log: "mine"},
				{Seat: 1, Key: "B", Points: 120, Outcome: "loss", Rank: 2, Reason: "all ships sunk", Killed: true},
			}}
		if err := b.st.MatchFinish(b.ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := b.st.MatchFinish(b.ctx, p); !errors.Is(err, store.ErrMatchDone) {
			t.Fatalf("second finish: got %v, want ErrMatchDone", err)
		}
		if _, err := b.st.MatchStart(b.ctx, m.ID); !errors.Is(err, store.ErrMatchDone) {
			t.Fatalf("start after finish: got %v, want ErrMatchDone", err)
		}
		if err := b.st.MatchFail(b.ctx, m.ID, "", "late"); !errors.Is(err, store.ErrMatchDone) {
			t.Fatalf("fail after finish: got %v, want ErrMatchDone", err)
		}
		got, err := b.st.MatchDetailGet(b.ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != store.MatchFinished || got.Rounds != 40 || got.ReplayKey != "replays/1.zip" ||
			got.Players[0].Outcome != "win" || got.Players[1].Reason != "all ships sunk" || got.Players[0].Log != "mine" {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("fail and cancel", func(t *testing.T) {
		b := setup(t)
		a, _ := b.builtBot(t, "entelect")
		c, _ := b.builtBot(t, "entelect")
		m1 := b.match(t, false, a.ID, c.ID)
		if err := b.st.MatchFail(b.ctx, m1.ID, store.FaultPlatform, "artifact missing"); err != nil {
			t.Fatal(err)
		}
		m2 := b.match(t, false, a.ID, c.ID)
		if err := b.st.MatchCancel(b.ctx, m2.ID); err != nil {
			t.Fatal(err)
		}
		if err := b.st.MatchCancel(b.ctx, m2.ID); !errors.Is(err, store.ErrMatchDone) {
			t.Fatalf("got %v", err)
		}
		if err := b.st.MatchCancel(b.ctx, -1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
		got, _ := b.st.MatchDetailGet(b.ctx, m1.ID)
		if got.Status != store.MatchFailed || got.Error != "artifact missing" {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("finish of an unknown seat rolls back", func(t *testing.T) {
		b := setup(t)
		a, _ := b.builtBot(t, "entelect")
		c, _ := b.builtBot(t, "entelect")
		m := b.match(t, true, a.ID, c.ID)
		err := b.st.InTx(b.ctx, func(_ pgx.Tx, st *store.Store) error {
			return st.MatchFinish(b.ctx, store.MatchFinishParams{ID: m.ID, Players: []store.MatchPlayerResult{{Seat: 7}}})
		})
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
		got, err := b.st.MatchDetailGet(b.ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != store.MatchQueued {
			t.Fatalf("half-written finish: status %s", got.Status)
		}
	})
}

func TestFaultOf(t *testing.T) {
	for _, tc := range []struct {
		outcome, reason, want string
	}{
		{"loss", "crashed (exit code 1)", store.FaultCrash},
		{"loss", "bot could not be loaded: no artifact", store.FaultCrash},
		{"loss", "could not start: exec format error", store.FaultCrash},
		{"loss", "timed out after 2s", store.FaultTimeout},
		{"loss", "no ship: ship choice failed: timed out after 1s", store.FaultTimeout},
		{"loss", "killed after 5 failed ship placements", store.FaultForfeit},
		{"loss", "killed after 20 DoNothing commands in a row", store.FaultForfeit},
		{"loss", "won 1 of 10 games, 0 penalty points; forfeited the round: bad output", store.FaultForfeit},
		{"loss", "no ship: no command to run", store.FaultForfeit},
		{"loss", "all ships destroyed", ""},
		{"loss", "fewer points when the round limit was reached", ""},
		{"loss", "illegal move: shot off the board", ""},
		{"loss", "sunk by Kraken", ""},
		{"win", "", ""},
		{"draw", "crashed (exit code 1)", ""},
	} {
		if got := store.FaultOf(tc.outcome, tc.reason); got != tc.want {
			t.Errorf("FaultOf(%q, %q) = %q, want %q", tc.outcome, tc.reason, got, tc.want)
		}
	}
}
