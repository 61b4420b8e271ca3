package entelect

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// trivialBot is a C bot that only writes a single shot to command.txt.
const trivialBot = `#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
	char path[4096];
	if (argc < 3 || strlen(argv[2]) > 4000) return 1;
	snprintf(path, sizeof path, "%s/command.txt", argv[2]);
	FILE *f = fopen(path, "w");
	if (!f) return 1;
	fputs("1,0,0\n", f);
	return fclose(f) != 0;
}
`

// BenchmarkTurnOverhead measures what the file protocol adds to a bot
// turn on a 10×10 map: writing state.json and map.txt, running the bot
// through the runner, reading its command and writing log.txt. Each
// iteration also runs the same bot bare through the same runner; the
// reported overhead is the median of the paired differences.
func BenchmarkTurnOverhead(b *testing.B) {
	testenv.RequireProgram(b, "cc")
	cc, err := exec.LookPath("cc")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	src, bin := filepath.Join(dir, "bot.c"), filepath.Join(dir, "bot")
	if err := os.WriteFile(src, []byte(trivialBot), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O2", "-o", bin, src).CombinedOutput(); err != nil {
		b.Fatalf("cc: %v\n%s", err, out)
	}
	host := sandbox.NewHost(sandbox.HostConfig{})
	bot := game.Bot{Name: "c", Dir: dir, Command: []string{bin}}
	m, err := newMatch([]game.Bot{bot, bot}, game.Options{ReplayDir: b.TempDir(), Size: 2, Runner: host})
	if err != nil {
		b.Fatal(err)
	}
	m.state = *started(b, 2, sampleLayout)
	ctx := context.Background()
	round := folder(&m.state)
	rawDir := b.TempDir()
	raw := sandbox.Cmd{Args: []string{bin, "A", rawDir}, Dir: dir, Limits: sandbox.Limits{WallTime: wallKill, OutputBytes: maxOutput}}
	// One player's turn as the round loop plays it.
	runTurn := func() (Command, error) {
		rel := filepath.Join(round, m.seats[0].key)
		if err := m.writePlayerFiles(rel, 0); err != nil {
			return Command{}, err
		}
		var t turnResult
		if err := m.runTurn(ctx, 0, round, &t); err != nil {
			return Command{}, err
		}
		return m.finishTurn(m.seats[0], 0, round, t)
	}
	var diffs, turns, bares []time.Duration
	for b.Loop() {
		t0 := time.Now()
		cmd, err := runTurn()
		t1 := time.Now()
		if err != nil || cmd.Code != FireShot {
			b.Fatalf("turn: %v %+v", err, cmd)
		}
		if _, err := host.Run(ctx, raw); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		turns, bares = append(turns, t1.Sub(t0)), append(bares, t2.Sub(t1))
		diffs = append(diffs, t1.Sub(t0)-t2.Sub(t1))
	}
	ms := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(diffs), "overhead-ms")
	b.ReportMetric(ms(turns), "turn-ms")
	b.ReportMetric(ms(bares), "bare-ms")
}

// BenchmarkViews measures rendering a 10×10 round's files.
func BenchmarkViews(b *testing.B) {
	s := started(b, 2, sampleLayout)
	names := [2]string{"A", "B"}
	for b.Loop() {
		s.RootStateJSON(names)
		s.PlayerStateJSON(0, names)
		s.MapText(0, names)
	}
}
