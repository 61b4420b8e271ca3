package hitandsunk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// shBot writes a shell script bot into its own folder. The script gets the
// protocol's arguments; round holds the request's first field.
func shBot(t *testing.T, name, script string) game.Bot {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "round=${1%%;*}\n" + script
	if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return game.Bot{Name: name, Dir: dir, Command: []string{"/bin/sh", "bot.sh"}, Language: "sh"}
}

func hostRunner() sandbox.Runner {
	return sandbox.NewHost(sandbox.HostConfig{})
}

func playMatch(t *testing.T, bots []game.Bot, seed int64) (*game.Summary, *Replay) {
	t.Helper()
	dir := t.TempDir()
	sum, err := New().Play(context.Background(), bots, game.Options{Seed: seed, ReplayDir: dir, Runner: hostRunner()})
	if err != nil {
		t.Fatalf("Play: %v", err)
	}
	rep, err := ReadReplay(filepath.Join(dir, ReplayFile))
	if err != nil {
		t.Fatal(err)
	}
	return sum, rep
}

// turnsOf returns the replay turns of one seat.
func turnsOf(rep *Replay, id int) []ReplayTurn {
	var out []ReplayTurn
	for _, tr := range rep.Turns {
		if tr.Ship == id {
			out = append(out, tr)
		}
	}
	return out
}

func kinds(tr ReplayTurn) string {
	var k []string
	for _, e := range tr.Events {
		k = append(k, e.Kind)
	}
	return strings.Join(k, ",")
}

// TestProtocol plays scripted bots as real processes and checks how the
// engine treats each kind of answer (§2, §8.5 and the platform's time limit).
func TestProtocol(t *testing.T) {
	bots := []game.Bot{
		shBot(t, "steady", `if [ $# -eq 0 ]; then echo 4; else echo S; fi`),
		shBot(t, "late", `if [ $# -eq 0 ]; then echo 4; exit; fi
if [ "$round" = 1 ]; then sleep 3; fi
echo S`),
		shBot(t, "trailing", `if [ $# -eq 0 ]; then echo 4; else printf 'S;'; fi`),
		shBot(t, "debug", `if [ $# -eq 0 ]; then echo "+4 is my pick"; else echo "Scanning now"; echo S; fi`),
		shBot(t, "crash", `if [ $# -eq 0 ]; then echo 4; else echo S; exit 3; fi`),
		shBot(t, "badchoice", `echo 6`),
		shBot(t, "crashchoice", `echo 3; kill -9 $$`),
		shBot(t, "argv", `echo "$#" >> argv.txt; if [ $# -eq 0 ]; then echo 4; else echo W; fi`),
	}
	sum, rep := playMatch(t, bots, 7)

	if rep.Size != 30+len(bots) {
		t.Errorf("grid side %d, want 30 + %d registered bots", rep.Size, len(bots))
	}
	if sum.Rounds != Rounds || rep.Rounds != Rounds {
		t.Errorf("rounds = %d/%d, want %d (nobody shoots)", sum.Rounds, rep.Rounds, Rounds)
	}
	t.Run("a good answer is executed", func(t *testing.T) {
		for _, tr := range turnsOf(rep, 0) {
			if kinds(tr) != "scan" {
				t.Fatalf("round %d: events %s, want scan", tr.Round, kinds(tr))
			}
		}
	})
	t.Run("a late answer is a wait, later answers count", func(t *testing.T) {
		turns := turnsOf(rep, 1)
		if !strings.Contains(turns[0].Failure, "no answer within") || len(turns[0].Events) != 0 {
			t.Errorf("round 1: failure %q, events %s; want a timeout and no events", turns[0].Failure, kinds(turns[0]))
		}
		if kinds(turns[1]) != "scan" {
			t.Errorf("round 2: events %s, want scan", kinds(turns[1]))
		}
	})
	t.Run("a trailing ; is a wait after the actions", func(t *testing.T) {
		for _, tr := range turnsOf(rep, 2) {
			if kinds(tr) != "scan" {
				t.Fatalf("round %d: events %s, want scan", tr.Round, kinds(tr))
			}
		}
	})
	t.Run("debug text on stdout is executed as actions", func(t *testing.T) {
		// "Scanning now S": the S of Scanning scans, the last S is rejected.
		tr := turnsOf(rep, 3)[0]
		if kinds(tr) != "scan,reject" {
			t.Errorf("events %s, want scan,reject", kinds(tr))
		}
		if rep.Players[3].Ship != "Battleship" {
			t.Errorf("choice %q, want the first token +4 (Battleship)", rep.Players[3].Ship)
		}
	})
	t.Run("a crash is a wait even after printing", func(t *testing.T) {
		tr := turnsOf(rep, 4)[0]
		if !strings.Contains(tr.Failure, "exit code 3") || len(tr.Events) != 0 {
			t.Errorf("failure %q, events %s; want a crash and no events", tr.Failure, kinds(tr))
		}
	})
	t.Run("a failed ship choice leaves the seat without a ship at zero points", func(t *testing.T) {
		for _, id := range []int{5, 6} {
			if rep.Players[id].Ship != "" || rep.Players[id].NoShip == "" {
				t.Errorf("seat %d: ship %q, noShip %q", id, rep.Players[id].Ship, rep.Players[id].NoShip)
			}
			if n := len(turnsOf(rep, id)); n != 0 {
				t.Errorf("seat %d without a ship played %d turns", id, n)
			}
		}
		for _, p := range sum.Players {
			if p.Name == "badchoice" && (p.Points != 0 || !strings.Contains(p.Reason, "between 1 and 5")) {
				t.Errorf("badchoice: %d points, reason %q", p.Points, p.Reason)
			}
			if p.Name == "crashchoice" && !strings.Contains(p.Reason, "crashed") {
				t.Errorf("crashchoice: reason %q", p.Reason)
			}
		}
	})
	t.Run("the request is one argument and the folder persists between calls", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(bots[7].Dir, "argv.txt"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Fields(string(data))
		if len(lines) != Rounds+1 || lines[0] != "0" {
			t.Fatalf("argument counts %v..., want 0 then %d × 1", lines[:min(3, len(lines))], Rounds)
		}
		for _, l := range lines[1:] {
			if l != "1" {
				t.Fatalf("a turn got %s arguments, want 1", l)
			}
		}
	})
	t.Run("each bot's log records its calls", func(t *testing.T) {
		for _, p := range sum.Players {
			if p.Name == "late" && !strings.Contains(p.Log, "no answer within") {
				t.Errorf("late bot's log lacks the timeout:\n%s", p.Log[:min(400, len(p.Log))])
			}
			if p.Name == "steady" && !strings.Contains(p.Log, "request: 1;0;") {
				t.Errorf("steady bot's log lacks its first request")
			}
		}
	})
}

// busyBot acts by round so that ships move, fire, mine and collide.
const busyBot = `if [ $# -eq 0 ]; then echo $((${#PWD} % 5 + 1)); exit; fi
case $((round % 6)) in
0) echo "MF+2+1" ;; 1) echo "KS" ;; 2) echo "N+1+1M" ;;
3) echo "BF-3+2F+0-4" ;; 4) echo "CMM" ;; 5) echo "AF+1+0R" ;;
esac`

// TestPlayIsReproducible plays the same match twice from one seed and
// compares the replays byte for byte.
func TestPlayIsReproducible(t *testing.T) {
	var bots []game.Bot
	for _, name := range []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff"} {
		bots = append(bots, shBot(t, name, busyBot))
	}
	read := func() []byte {
		dir := t.TempDir()
		if _, err := New().Play(context.Background(), bots, game.Options{Seed: 99, ReplayDir: dir, Runner: hostRunner()}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, ReplayFile))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	first, second := read(), read()
	if !bytes.Equal(first, second) {
		t.Error("two plays from the same seed wrote different replays")
	}
	if !bytes.Contains(first, []byte(`"kind":"hit"`)) {
		t.Error("the busy bots never hit anything; the test exercises too little")
	}
}

func TestPlayRejectsBadSetups(t *testing.T) {
	one := []game.Bot{shBot(t, "solo", `echo 1`)}
	if _, err := New().Play(context.Background(), one, game.Options{Runner: hostRunner()}); err == nil {
		t.Error("a one-bot match was played")
	}
	two := []game.Bot{shBot(t, "a", `echo 1`), shBot(t, "b", `echo 1`)}
	if _, err := New().Play(context.Background(), two, game.Options{}); err == nil {
		t.Error("a match without a runner was played")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New().Play(context.Background(), two, game.Options{Runner: hostRunner(), ReplayDir: filepath.Join(file, "replay")}); err == nil {
		t.Error("a match with an unusable replay folder was played")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	slow := []game.Bot{shBot(t, "a", `sleep 5`), shBot(t, "b", `sleep 5`)}
	if _, err := New().Play(ctx, slow, game.Options{Runner: hostRunner()}); err == nil {
		t.Error("a cancelled match returned a result")
	}
}

func TestLoadErrorSeatHasNoShip(t *testing.T) {
	bots := []game.Bot{
		shBot(t, "a", `if [ $# -eq 0 ]; then echo 1; else echo W; fi`),
		{Name: "broken", LoadError: os.ErrNotExist},
		shBot(t, "c", `if [ $# -eq 0 ]; then echo 1; else echo W; fi`),
	}
	sum, rep := playMatch(t, bots, 1)
	if rep.Players[1].Ship != "" || !strings.Contains(rep.Players[1].NoShip, "not loaded") {
		t.Errorf("broken seat: %+v", rep.Players[1])
	}
	if len(sum.Players) != 3 {
		t.Errorf("%d players in the summary, want 3", len(sum.Players))
	}
}

// TestReasonsUseTheNamesShown: with Options.Names (the portal's names of
// the seats), a reason names the ship that sank another by its shown name,
// not by the name its manifest gives, which several seats may share; the
// replay is the same as without them.
func TestReasonsUseTheNamesShown(t *testing.T) {
	var bots []game.Bot
	names := map[string]string{}
	for i := range 6 {
		bots = append(bots, shBot(t, "Starter", busyBot))
		names[strconv.Itoa(i)] = fmt.Sprintf("Bot%d (owner%d)", i, i)
	}
	play := func(names map[string]string) (*game.Summary, []byte) {
		dir := t.TempDir()
		// No time limits: a call slowed by a loaded machine must not make
		// the two plays differ.
		sum, err := New().Play(context.Background(), bots, game.Options{Seed: 99, ReplayDir: dir, Runner: hostRunner(), Names: names, NoLimit: true})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, ReplayFile))
		if err != nil {
			t.Fatal(err)
		}
		return sum, data
	}
	sum, withNames := play(names)
	sunk := 0
	for _, p := range sum.Players {
		by, ok := strings.CutPrefix(p.Reason, "sunk by ")
		if !ok || by == "its own fire or mine" {
			continue
		}
		sunk++
		if !strings.HasPrefix(by, "Bot") || !strings.Contains(by, "(owner") {
			t.Errorf("%s: reason %q names the sinker by its manifest's name", p.Key, p.Reason)
		}
	}
	if sunk == 0 {
		t.Fatal("no ship was sunk by another; the test exercises too little")
	}
	// Only the result's reasons may differ: the game itself is the same.
	_, without := play(nil)
	var a, b Replay
	if err := json.Unmarshal(withNames, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(without, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Turns, b.Turns) || !reflect.DeepEqual(a.Ends, b.Ends) || !reflect.DeepEqual(a.Start, b.Start) {
		t.Error("the shown names changed the game")
	}
}
