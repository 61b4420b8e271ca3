package jobs_test

import (
	"archive/zip"
	"bytes"
	"io"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/game/entelect"
	"github.com/broadside/broadside/internal/testenv"
)

// TestHostileReplayFiller plays a bot that writes 640 KiB and 100 empty
// files into its round folder every turn, against its twin on the medium
// map to the round cap, and checks that the stored replay keeps no more
// of each bot's files than the caps allow, that the bot's log says what
// was left out, and that the match ends normally.
func TestHostileReplayFiller(t *testing.T) {
	if testing.Short() {
		t.Skip("plays real bots in the sandbox")
	}
	testenv.RequireProgram(t, "python3")
	e := setup(t)
	startWorker(t, e, t.TempDir())

	// Two bots of the same code: a ladder match is between two bots.
	var botIDs []int64
	for _, name := range []string{"Filler", "Stuffer"} {
		v := e.upload(t, name, zipDir(t, "testdata/hostile/entelect-replay-filler", nil))
		if got := e.waitBuilt(t, v, 2*time.Minute); got.BuildStatus != "ok" {
			t.Fatalf("build of %s: %s\n%s", name, got.BuildStatus, got.BuildLog)
		}
		bv, _ := e.st.BotVersionGetByID(e.ctx, v)
		botIDs = append(botIDs, bv.BotID)
	}
	id := e.createGameMatch(t, "entelect", 2, 1, botIDs...)
	m := e.waitMatch(t, id, 30*time.Minute)
	if m.Status != "finished" {
		t.Fatalf("match %s: %s", m.Status, m.Error)
	}
	// Nobody sinks anything: the match runs to the medium map's round cap.
	if m.Rounds < 100 {
		t.Fatalf("%d rounds, want the round cap", m.Rounds)
	}

	r, err := blob.Get(e.ctx, e.bucket, blob.ReplayKey(id))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	protocol := map[string]bool{"state.json": true, "map.txt": true, "place.txt": true, "command.txt": true, "log.txt": true}
	var engineBytes int64
	botBytes := map[string]int64{}   // by seat key
	roundBytes := map[string]int64{} // by round folder and key
	roundFiles := map[string]int{}
	cutNotes := 0
	for _, f := range zr.File {
		parts := strings.Split(f.Name, "/")
		size := int64(f.UncompressedSize64)
		if len(parts) != 3 || protocol[parts[2]] {
			engineBytes += size
			if len(parts) == 3 && parts[2] == "log.txt" {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(rc)
				rc.Close()
				if strings.Contains(string(body), "left out of the replay") {
					cutNotes++
				}
			}
			continue
		}
		round := path.Join(parts[0], parts[1])
		botBytes[parts[1]] += size
		roundBytes[round] += size
		roundFiles[round]++
	}
	t.Logf("replay zip: %d bytes, %d entries; bot files A %d, B %d; engine's own files %d (uncompressed)",
		len(data), len(zr.File), botBytes["A"], botBytes["B"], engineBytes)
	for _, key := range []string{"A", "B"} {
		// The bot fills every round to the cap: the match's cap is reached,
		// and met to within one round's worth.
		if got := botBytes[key]; got > entelect.MaxReplayMatchBytes || got < entelect.MaxReplayMatchBytes-entelect.MaxReplayRoundBytes {
			t.Errorf("bot %s kept %d bytes of its files, want at most %d and close to it", key, got, entelect.MaxReplayMatchBytes)
		}
	}
	over := 0
	for round, n := range roundBytes {
		if n > entelect.MaxReplayRoundBytes || roundFiles[round] > entelect.MaxReplayRoundFiles {
			if over++; over == 1 {
				t.Errorf("%s kept %d bytes in %d files, over the round's cap", round, n, roundFiles[round])
			}
		}
	}
	if over > 1 {
		t.Errorf("%d round folders in all kept more than the round's cap", over)
	}
	if limit := int64(2*entelect.MaxReplayMatchBytes) + engineBytes; int64(len(data)) > limit {
		t.Errorf("replay zip is %d bytes, over %d (the caps of both bots plus the engine's own files)", len(data), limit)
	}
	// Every turn leaves something out (big.bin alone is over a round's cap).
	if cutNotes < m.Rounds {
		t.Errorf("%d of the bots' round logs say what was left out, want every turn's (%d rounds)", cutNotes, m.Rounds)
	}
	for _, p := range m.Players {
		if !strings.Contains(p.Log, "left out of the replay") {
			t.Errorf("seat %d's match log does not say what was left out", p.Seat)
		}
	}
}
