package jobs_test

import (
	"context"
	"testing"
	"time"
)

// TestWorkerPublishesRounds plays a match through the worker and follows it
// as a portal does (announced on match_watch, read on match_events): every
// round is announced in order as it is played, in batches of the rounds
// since the last announcement, then the end; the live rounds go with the
// match. A match nobody follows publishes no round.
func TestWorkerPublishesRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and plays real bots")
	}
	e := setup(t)
	startWorker(t, e, t.TempDir())
	a := e.upload(t, "Left", zipDir(t, "../../bots/entelect-python3", nil))
	b := e.upload(t, "Right", zipDir(t, "../../bots/entelect-python3", nil))
	for _, v := range []int64{a, b} {
		if got := e.waitBuilt(t, v, 3*time.Minute); got.BuildStatus != "ok" {
			t.Fatalf("version %d: %s\n%s", v, got.BuildStatus, got.BuildLog)
		}
	}
	av, _ := e.st.BotVersionGetByID(e.ctx, a)
	bv, _ := e.st.BotVersionGetByID(e.ctx, b)

	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Minute)
	defer cancel()
	events := listenMatchEvents(t, e)
	id := e.createGameMatch(t, "entelect", 1, 9, av.BotID, bv.BotID)
	events.follow(ctx, id)
	var rounds []int
	var status []string
	announced := 0
	for len(status) == 0 || (status[len(status)-1] != "finished" && status[len(status)-1] != "failed") {
		ev := events.next(t, ctx, id)
		if ev.Round != nil {
			if ev.First == nil || *ev.First > *ev.Round {
				t.Fatalf("round event without its first round: first %v, last %d", ev.First, *ev.Round)
			}
			for r := *ev.First; r <= *ev.Round; r++ {
				rounds = append(rounds, r)
			}
			announced++
		} else {
			status = append(status, ev.Status)
		}
	}
	m := e.waitMatch(t, id, 10*time.Minute)
	if m.Status != "finished" || status[0] != "running" {
		t.Fatalf("match %s (%s), statuses %v", m.Status, m.Error, status)
	}
	// Round folders 0 to the last played, then the final root-only
	// folder, whose number is the match's rounds.
	if len(rounds) != m.Rounds+1 {
		t.Errorf("%d rounds announced for a match of %d rounds: %v", len(rounds), m.Rounds, rounds)
	}
	for i, r := range rounds {
		if r != i {
			t.Fatalf("rounds announced out of order: %v", rounds)
		}
	}
	t.Logf("%d rounds announced in %d events", len(rounds), announced)
	if n := e.count(t, `SELECT count(*) FROM match_live_rounds WHERE match_id = $1`, id); n != 0 {
		t.Errorf("%d live rounds left after the match", n)
	}

	// A match nobody follows is played without a round published.
	quiet := e.createGameMatch(t, "entelect", 1, 10, av.BotID, bv.BotID)
	for {
		ev := events.next(t, ctx, quiet)
		if ev.Round != nil {
			t.Fatalf("round %d of a match nobody follows was published", *ev.Round)
		}
		if ev.Status == "finished" || ev.Status == "failed" {
			break
		}
	}
	if m := e.waitMatch(t, quiet, 10*time.Minute); m.Status != "finished" {
		t.Fatalf("the unfollowed match %s: %s", m.Status, m.Error)
	}
}
