package board

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/brainjar"
	"github.com/broadside/broadside/internal/game/hitandsunk"
)

// TestStepLogs: the owner of a seat reads its log of the step shown, from
// the portal's logs or from the <key>/log.txt a local replay folder holds;
// nobody else reads it.
func TestStepLogs(t *testing.T) {
	r := openJSONFixture(t, "brainjar")
	log := game.StepMark(brainjar.StepPlacement) + "request 1: init\n" +
		game.StepMark(brainjar.StepShot(1)) + "request 2: {}\nreply after 40ms of the 2s allowed (CPU time 30ms)\n"
	key := r.g.(*brainjarGame).r.Players[0].Key
	own := Options{ShowLog: func(k string) bool { return k == key }, Logs: map[string]string{key: log}}
	for _, tc := range []struct {
		step int
		want string
	}{
		{0, "request 1: init\n"},
		{1, "request 2: {}\nreply after 40ms of the 2s allowed (CPU time 30ms)\n"},
		{2, "Nothing of your bot in this step"},
	} {
		f, err := r.Frame(tc.step, own)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Logs) != 1 || !strings.Contains(f.Logs[0].Text, tc.want) {
			t.Errorf("step %d: logs %+v, want %q", tc.step, f.Logs, tc.want)
		}
	}
	if f, _ := r.Frame(1, Options{Logs: own.Logs}); len(f.Logs) != 0 {
		t.Errorf("a visitor reads a log: %+v", f.Logs)
	}

	// A local replay folder: replay.json and the logs battleship wrote.
	fixture, err := os.ReadFile(filepath.Join("..", "..", "internal", "web", "testdata", "replays", "hitandsunk.json"))
	if err != nil {
		t.Fatal(err)
	}
	folder := fstest.MapFS{
		"replay.json": {Data: fixture},
		"0/log.txt":   {Data: []byte(game.StepMark(hitandsunk.StepStart) + "ship choice\n" + game.StepMark(hitandsunk.StepRound(1)) + "request: 1;0;...\n")},
	}
	rp, err := Open(folder)
	if err != nil {
		t.Fatal(err)
	}
	f, err := rp.Frame(1, Options{ShowLog: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Logs) != 1 || f.Logs[0].Text != "request: 1;0;...\n" {
		t.Errorf("round 1 of a local replay: logs %+v", f.Logs)
	}
}

// TestReadableSteps: actions are words with the board's coordinates, the
// stepper and the title count in the game's unit, a Hit and Sunk board
// draws each player's ships in the player's colour, and a sunk ship's
// number stays readable over its marks.
func TestReadableSteps(t *testing.T) {
	hs := openJSONFixture(t, "hitandsunk")
	last, err := hs.Frame(hs.Count()-1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(last.Name, "Round ") || !strings.Contains(last.Name, " of ") {
		t.Errorf("the last step is called %q", last.Name)
	}
	for _, e := range last.Events {
		for _, raw := range []string{"ship=", "at=(", "segment="} {
			if strings.Contains(e, raw) {
				t.Errorf("an event reads as the engine's line: %q", e)
			}
		}
	}
	for _, p := range last.Players {
		if p.Colour < 1 || p.Colour > Palette {
			t.Errorf("player %s has colour %d", p.Name, p.Colour)
		}
		for _, s := range p.Stats {
			if s.Label == "Hull" && !strings.Contains(s.Value, "segments whole") {
				t.Errorf("hull reads %q", s.Value)
			}
		}
	}
	var out strings.Builder
	if err := Body(last).Render(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	html := out.String()
	if !strings.Contains(html, `class="ship p`) || !strings.Contains(html, `class="swatch s`) {
		t.Errorf("the board draws no player colours")
	}
	// The ship labels come after every mark of the board, so no cross
	// covers them.
	board, _, _ := strings.Cut(html, "</figure>")
	if !strings.Contains(board, `class="ship-label`) || strings.LastIndex(board, `class="mark `) > strings.Index(board, `class="ship-label`) {
		t.Errorf("a mark is drawn over a ship's label")
	}

	bj := openJSONFixture(t, "brainjar")
	var nav strings.Builder
	f, err := bj.Frame(bj.Count()-1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Viewer(f, ChartOf(bj.Scores(Options{})), Nav{Page: "/m"}).Render(context.Background(), &nav); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<a rel="next" class="disabled" aria-disabled="true">`, `<a rel="last" class="disabled"`,
		`<span class="step-name" aria-live="polite">` + f.Name + `</span>`, `<a rel="prev" href="/m?round=`} {
		if !strings.Contains(nav.String(), want) {
			t.Errorf("the last step's pager lacks %q", want)
		}
	}
}

// TestChartBelowZero: scores below zero are drawn below a zero line, not
// cut at the bottom.
func TestChartBelowZero(t *testing.T) {
	c := ChartOf([]Series{{Name: "a", Points: []int{0, -20, -40}}, {Name: "b", Points: []int{0, 10, 20}, Colour: 3}})
	if c.Min != -40 || c.Max != 20 || c.Zero <= 0 || c.Zero >= c.Height {
		t.Fatalf("chart %+v", c)
	}
	lowest := strings.Fields(c.Lines[0].Points)[2]
	if !strings.HasSuffix(lowest, ","+itoa(c.Height-chartPad)) {
		t.Errorf("−40 is drawn at %s, want the bottom", lowest)
	}
	if c.Lines[1].Class != "s2" {
		t.Errorf("a series of colour 3 is drawn as %s", c.Lines[1].Class)
	}
	var out strings.Builder
	if err := ScoreChart(c, 0).Render(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `class="zero"`) || !strings.Contains(out.String(), "a: −40") {
		t.Errorf("chart:\n%s", out.String())
	}
}
