package competition_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
)

// stopAfter is the test's LADDER_PAUSE_AFTER.
const stopAfter = 3

// playRanked records one finished ranked match of a against b: a loses
// for reason (a crash when it names one) unless aWins.
func playRanked(t *testing.T, f *fixture, game string, a, b int64, aWins bool, reason string) int64 {
	t.Helper()
	var seats []store.MatchPlayerParams
	for _, id := range []int64{a, b} {
		bot, err := f.st.BotGetByID(f.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		seats = append(seats, store.MatchPlayerParams{BotID: id, BotVersionID: *bot.CurrentVersionID})
	}
	m, err := f.st.MatchCreate(f.ctx, store.MatchCreateParams{Game: game, MapSize: 1, Seed: 1, Kind: "ladder", Ranked: true, Players: seats})
	if err != nil {
		t.Fatal(err)
	}
	aOut, bOut, aReason, bReason := "loss", "win", reason, ""
	if aWins {
		aOut, bOut, aReason, bReason = "win", "loss", "", "all ships destroyed"
	}
	res := []store.MatchPlayerResult{
		{Seat: 0, Key: "A", Outcome: aOut, Rank: 1, Reason: aReason, Fault: store.FaultOf(aOut, aReason)},
		{Seat: 1, Key: "B", Outcome: bOut, Rank: 2, Reason: bReason, Fault: store.FaultOf(bOut, bReason)},
	}
	if !aWins {
		res[0].Rank, res[1].Rank = 2, 1
	}
	if err := f.st.MatchFinish(f.ctx, store.MatchFinishParams{ID: m.ID, Summary: json.RawMessage(`{}`), Players: res, StopAfter: stopAfter}); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// onLadder tells whether the matchmaker would queue the bot: the ladder's
// own candidates and queue.
func onLadder(t *testing.T, f *fixture, game string, bot int64) bool {
	t.Helper()
	st, err := f.svc.Status(f.ctx, game)
	if err != nil {
		t.Fatal(err)
	}
	_, ok := st.Position[bot]
	return ok
}

func TestLadderStopsFailingBot(t *testing.T) {
	const game = "faultstop"
	f := newFixture(t, game, 3)
	bad, good, house := f.bots[0], f.bots[1], f.bots[2]
	if _, err := f.st.DB().Exec(f.ctx, `UPDATE bots SET house = true WHERE id = $1`, house); err != nil {
		t.Fatal(err)
	}

	// Faults one short of the limit, a win, faults one short again: the
	// win starts the count again, so the bot plays on.
	for range stopAfter - 1 {
		playRanked(t, f, game, bad, good, false, "crashed (exit code 1)")
	}
	playRanked(t, f, game, bad, good, true, "")
	for range stopAfter - 1 {
		playRanked(t, f, game, bad, good, false, "timed out after 2s")
	}
	if !onLadder(t, f, game, bad) {
		t.Fatal("a win between the faults did not reset the count: the bot left the ladder")
	}
	// A loss in play is no fault: it breaks the run too.
	playRanked(t, f, game, bad, good, false, "all ships destroyed")
	for range stopAfter - 1 {
		playRanked(t, f, game, bad, good, false, "killed after 5 failed ship placements")
	}
	if !onLadder(t, f, game, bad) {
		t.Fatal("a loss in play did not reset the count")
	}
	last := playRanked(t, f, game, bad, good, false, "killed after 20 DoNothing commands in a row")
	if onLadder(t, f, game, bad) {
		t.Fatalf("%d faults in a row: the matchmaker still queues the bot", stopAfter)
	}
	if !onLadder(t, f, game, good) {
		t.Fatal("the winner left the ladder")
	}
	var fault *string
	if err := f.st.DB().QueryRow(f.ctx, `SELECT fault FROM match_players WHERE match_id = $1 AND seat = 0`, last).Scan(&fault); err != nil {
		t.Fatal(err)
	}
	if fault == nil || *fault != store.FaultForfeit {
		t.Errorf("recorded fault of the last match: %v, want forfeit", fault)
	}
	bl, err := f.svc.BotLadder(f.ctx, bad)
	if err != nil {
		t.Fatal(err)
	}
	if bl.State != competition.LadderStopped || !strings.Contains(bl.StopReason, fmt.Sprintf("match %d", last)) {
		t.Errorf("bot page ladder line: %+v; want stopped, naming match %d", bl, last)
	}
	stopped, err := f.st.FaultStoppedBots(f.ctx, 10)
	if err != nil || len(stopped) != 1 || stopped[0].ID != bad {
		t.Errorf("admin list: %+v, %v; want the stopped bot", stopped, err)
	}

	// The owner's click brings it back, once.
	if err := f.st.BotLadderRestart(f.ctx, bad); err != nil {
		t.Fatal(err)
	}
	if !onLadder(t, f, game, bad) {
		t.Fatal("back on the ladder by its owner, but not queued")
	}
	if err := f.st.BotLadderRestart(f.ctx, bad); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second restart: %v, want ErrConflict", err)
	}

	// Stopped again, then a new version that builds brings it back; one
	// whose build fails does not.
	for range stopAfter {
		playRanked(t, f, game, bad, good, false, "no ship: ship choice failed: crashed (signal 9)")
	}
	if onLadder(t, f, game, bad) {
		t.Fatal("restarted bot not stopped again after its faults")
	}
	if newVersion(t, f, bad, false); onLadder(t, f, game, bad) {
		t.Fatal("a failed build brought the bot back")
	}
	if newVersion(t, f, bad, true); !onLadder(t, f, game, bad) {
		t.Fatal("a new built version did not bring the bot back")
	}

	// House bots are yardsticks: never stopped.
	for range stopAfter + 2 {
		playRanked(t, f, game, house, good, false, "crashed (exit code 2)")
	}
	hb, err := f.st.BotGetByID(f.ctx, house)
	if err != nil {
		t.Fatal(err)
	}
	if hb.FaultStoppedAt != nil {
		t.Errorf("house bot stopped: %s", hb.FaultStopReason)
	}
	if bl, err := f.svc.BotLadder(f.ctx, house); err != nil || bl.State != competition.LadderHouse {
		t.Errorf("house bot ladder line: %+v, %v", bl, err)
	}
}

// newVersion uploads and builds a new version of a bot.
func newVersion(t *testing.T, f *fixture, botID int64, ok bool) {
	t.Helper()
	bot, err := f.st.BotGetByID(f.ctx, botID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.st.UploadRecord(f.ctx, store.UploadParams{
		OwnerID: bot.OwnerID, Name: bot.Name, Game: bot.Game, Language: "Python3", BotType: "Python3",
		Manifest: json.RawMessage(`{}`), SourceSHA256: "01", SourceSize: 1, SourceKey: blob.SourceKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.BotVersionFinishBuild(f.ctx, res.VersionID, store.BuildResult{OK: ok, ArtifactKey: "b"}); err != nil {
		t.Fatal(err)
	}
}

// TestLadderFaultEvents: the owner hears of the first crash or time-out
// after a clean run (not of the next ones, nor of forfeits) and of the
// ladder stopping the bot, each once, in the transaction of the result.
func TestLadderFaultEvents(t *testing.T) {
	const game = "faultevents"
	f := newFixture(t, game, 2)
	bad, good := f.bots[0], f.bots[1]
	first := playRanked(t, f, game, bad, good, false, "crashed (exit code 1)")
	playRanked(t, f, game, bad, good, false, "timed out after 2s")
	last := playRanked(t, f, game, bad, good, false, "timed out after 2s")
	if err := f.st.BotLadderRestart(f.ctx, bad); err != nil {
		t.Fatal(err)
	}
	playRanked(t, f, game, bad, good, false, "killed after 5 failed ship placements")
	playRanked(t, f, game, bad, good, false, "crashed (exit code 1)")

	rows, err := f.st.DB().Query(f.ctx, `SELECT e.user_id, e.type, e.data FROM notify_events e WHERE e.type LIKE 'bot.%' ORDER BY e.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	owner, _ := f.st.BotGetByID(f.ctx, bad)
	var got []string
	for rows.Next() {
		var user int64
		var typ string
		var data map[string]any
		if err := rows.Scan(&user, &typ, &data); err != nil {
			t.Fatal(err)
		}
		bot, _ := data["bot"].(map[string]any)
		if user != owner.OwnerID || bot["id"] != float64(bad) {
			t.Errorf("event %s for user %d about bot %v", typ, user, bot["id"])
		}
		switch typ {
		case "bot.faulted":
			got = append(got, fmt.Sprintf("%s %v %v", typ, data["match_id"], data["fault"]))
		case "bot.paused":
			got = append(got, fmt.Sprintf("%s %v", typ, strings.Contains(data["reason"].(string), fmt.Sprintf("match %d", last))))
		default:
			got = append(got, typ)
		}
	}
	want := []string{fmt.Sprintf("bot.faulted %d crash", first), "bot.paused true"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("events: %q, want %q", got, want)
	}
}
