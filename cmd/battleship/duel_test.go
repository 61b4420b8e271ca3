package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
)

// duelSummary is the --json line of `battleship duel`, read as a script
// would.
type duelSummary struct {
	Games     int        `json:"games"`
	WinsA     int        `json:"winsA"`
	WinsB     int        `json:"winsB"`
	Draws     int        `json:"draws"`
	WinRateA  float64    `json:"winRateA"`
	CI95      [2]float64 `json:"ci95"`
	Verdict   string     `json:"verdict"`
	Seed      int64      `json:"seed"`
	Game      string     `json:"game"`
	Paired    bool       `json:"paired"`
	StoppedBy string     `json:"stoppedBy"`
	Results   []struct {
		Seed   int64  `json:"seed"`
		SeatA  int    `json:"seatA"`
		Winner string `json:"winner"`
	} `json:"results"`
}

// duelKit is the command and the bots of the duel tests, in a temporary
// folder: the duel builds the bots in place.
type duelKit struct {
	bin, dir string
}

func newDuelKit(t *testing.T) duelKit {
	t.Helper()
	needTool(t, "go", "python3")
	tmp := t.TempDir()
	k := duelKit{bin: battleshipBinary(t), dir: tmp}
	for src, dst := range map[string]string{
		filepath.Join("..", "..", "bots", "entelect-go-reference"): "reference",
		filepath.Join("testdata", "duel-loser"):                    "loser",
	} {
		if err := os.CopyFS(filepath.Join(tmp, dst), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	// A bot that crashes on every call: it never places its fleet.
	writeFiles(t, filepath.Join(tmp, "crasher"), map[string]string{
		"bot.json": `{"NickName":"Crasher","BotType":"Python3","RunFile":"bot.py"}`,
		"bot.py":   "raise SystemExit(3)\n",
	})
	return k
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// duel runs `battleship duel args...` in the kit's folder.
func (k duelKit) duel(t *testing.T, args ...string) (result, duelSummary) {
	t.Helper()
	r := kit{bin: k.bin, bots: k.dir}.play(t, append([]string{"duel"}, args...)...)
	var s duelSummary
	if r.code == 0 && slicesContains(args, "--json") {
		lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
			t.Fatalf("last line of stdout is not the duel summary: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
		}
	}
	return r, s
}

// TestDuel plays duels between real bot processes through the built
// command, on the small map with few games.
func TestDuel(t *testing.T) {
	t.Parallel()
	k := newDuelKit(t)

	t.Run("a starter against a sure loser", func(t *testing.T) {
		// With δ = 0.45, 5 straight wins decide (ln 1.9 a win against
		// ln 19), well before the 8 games allowed.
		r, s := k.duel(t, "-s", "1", "--games", "8", "--delta", "0.45", "--jobs", "2", "--json", "reference", "loser")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if s.Verdict != "A better" || s.Games != 5 || s.WinsA != 5 || s.WinsB != 0 || s.Draws != 0 || s.StoppedBy != "test" {
			t.Fatalf("summary %+v, want A better after 5 straight wins", s)
		}
		// Wilson's interval for 5 wins of 5: 5 / (5 + 1.96²) = 0.566.
		if s.WinRateA != 1 || s.CI95[1] != 1 || s.CI95[0] < 0.56 || s.CI95[0] > 0.57 || s.Game != "entelect" {
			t.Errorf("rate %v, interval %v (want [0.566, 1]), game %s", s.WinRateA, s.CI95, s.Game)
		}
		if len(s.Results) != s.Games {
			t.Fatalf("%d results for %d games", len(s.Results), s.Games)
		}
		for i, g := range s.Results {
			if g.SeatA != i%2 || g.Winner != "A" {
				t.Errorf("game %d: %+v, want A in seat %d winning", i+1, g, i%2)
			}
		}
		// No --seed: the master seed drawn is printed before the games.
		if !strings.Contains(r.stderr, fmt.Sprintf("master seed %d,", s.Seed)) {
			t.Errorf("stderr does not give master seed %d:\n%s", s.Seed, r.stderr)
		}
		if !strings.Contains(r.stdout, "Verdict: A better\n") {
			t.Errorf("stdout:\n%s", r.stdout)
		}
	})

	t.Run("a crashing bot loses and the duel goes on", func(t *testing.T) {
		r, s := k.duel(t, "-s", "1", "--games", "3", "--jobs", "2", "--seed", "1", "--json", "crasher", "reference")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if s.Games != 3 || s.WinsB != 3 || s.Verdict != "undecided" || s.StoppedBy != "games" {
			t.Errorf("summary %+v, want B winning all 3 games, undecided", s)
		}
	})

	t.Run("against itself, paired, twice", func(t *testing.T) {
		args := func(games string) []string {
			return []string{"-s", "1", "--games", games, "--paired", "--seed", "42", "--jobs", "2", "--json", "reference", "reference"}
		}
		r, s := k.duel(t, args("4")...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if s.Verdict != "undecided" || s.Games != 4 || s.StoppedBy != "games" || !s.Paired || s.Seed != 42 || len(s.Results) != 4 {
			t.Fatalf("summary %+v, want undecided after 4 games", s)
		}
		if !strings.Contains(r.stderr, "warning: A and B are the same folder") {
			t.Errorf("no warning for the same folder twice:\n%s", r.stderr)
		}
		for i := 0; i < 4; i += 2 {
			a, b := s.Results[i], s.Results[i+1]
			if a.Seed != b.Seed || a.SeatA != 0 || b.SeatA != 1 {
				t.Errorf("pair %d: %+v, %+v; want one seed, A in seat 0 then 1", i/2+1, a, b)
			}
		}
		if s.Results[0].Seed == s.Results[2].Seed {
			t.Errorf("both pairs have seed %d", s.Results[0].Seed)
		}
		// The same master seed plays the same games to the same results:
		// a shorter duel from it plays its first pair again.
		r2, s2 := k.duel(t, args("2")...)
		if r2.code != 0 {
			t.Fatalf("second run: exit %d\n%s", r2.code, r2.stderr)
		}
		if len(s2.Results) != 2 || fmt.Sprint(s2.Results) != fmt.Sprint(s.Results[:2]) {
			t.Errorf("the same seed gave\n%+v\nthen\n%+v", s.Results[:2], s2.Results)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		writeFiles(t, filepath.Join(k.dir, "no-manifest"), map[string]string{"bot.py": "print(1)\n"})
		tests := []struct {
			args []string
			want string
		}{
			{[]string{"reference", "missing"}, "bot folder missing"},
			{[]string{"reference"}, "a duel takes two bot folders"},
			{[]string{"reference", "loser", "loser"}, "a duel takes two bot folders"},
			{[]string{"--games", "0", "reference", "loser"}, "--games must be at least 1"},
			{[]string{"--games", "3", "--paired", "reference", "loser"}, "--games must be even with --paired"},
			{[]string{"--game", "chess", "reference", "loser"}, `--game: `},
			{[]string{"--jobs", "0", "reference", "loser"}, "--jobs must be at least 1"},
			{[]string{"--delta", "0.5", "reference", "loser"}, "--delta wants a number above 0 and below 0.5"},
			{[]string{"--seed", "x", "reference", "loser"}, "--seed wants an integer"},
			{[]string{"--bogus", "reference", "loser"}, "unknown option --bogus"},
			{[]string{"reference", "no-manifest"}, "bot folder no-manifest"},
		}
		for _, tt := range tests {
			r, _ := k.duel(t, tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, "battleship duel: ") || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tt.args, r.code, r.stderr, tt.want)
			}
		}
		if r, _ := k.duel(t, "--help"); r.code != 0 || !regexp.MustCompile(`--paired +play each seed twice`).MatchString(r.stdout) {
			t.Errorf("--help: exit %d\n%s", r.code, r.stdout)
		}
	})
}

// TestDuelOutcome reads A's result from summaries of every key scheme.
func TestDuelOutcome(t *testing.T) {
	str := func(s string) *string { return &s }
	entelect := game.Traits{SeatKey: func(i int) string { return string(rune('A' + i)) }}
	numbered := game.Traits{}
	tests := []struct {
		name   string
		sum    game.Summary
		traits game.Traits
		seatA  int
		want   string
	}{
		{"A in seat A wins", game.Summary{Winner: str("A"), Players: []game.PlayerSummary{{Key: "A", Rank: 1}, {Key: "B", Rank: 2}}}, entelect, 0, "A"},
		{"A in seat B wins", game.Summary{Winner: str("B"), Players: []game.PlayerSummary{{Key: "B", Rank: 1}, {Key: "A", Rank: 2}}}, entelect, 1, "A"},
		{"A in seat B loses", game.Summary{Winner: str("A"), Players: []game.PlayerSummary{{Key: "A", Rank: 1}, {Key: "B", Rank: 2}}}, entelect, 1, "B"},
		{"finishing order, shared rank", game.Summary{Players: []game.PlayerSummary{{Key: "1", Rank: 1}, {Key: "0", Rank: 1}}}, numbered, 0, "draw"},
		{"finishing order", game.Summary{Winner: str("1"), Players: []game.PlayerSummary{{Key: "1", Rank: 1}, {Key: "0", Rank: 2}}}, numbered, 0, "B"},
		{"no ranks, a winner", game.Summary{Winner: str("0"), Players: []game.PlayerSummary{{Key: "0"}, {Key: "1"}}}, numbered, 0, "A"},
		{"no ranks, no winner", game.Summary{Players: []game.PlayerSummary{{Key: "0"}, {Key: "1"}}}, numbered, 1, "draw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := duelOutcome(&tt.sum, tt.traits, tt.seatA)
			if err != nil || got.String() != tt.want {
				t.Errorf("outcome %v, %v; want %s", got, err, tt.want)
			}
		})
	}
	if _, err := duelOutcome(&game.Summary{Players: []game.PlayerSummary{{Key: "X"}}}, entelect, 0); err == nil {
		t.Error("a summary without the seats' keys gave no error")
	}
}
