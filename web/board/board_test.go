package board

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"html"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// entelectFixture is the original engine's own replay (release 1.2.2 under
// Mono, 7×7), kept beside the rule set's golden tests.
const entelectFixture = "../../internal/game/entelect/testdata/golden/v1.2.2-mono-small-7x7"

func openDir(t *testing.T, dir string) *Replay {
	t.Helper()
	r, err := Open(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// svgNode is a parsed SVG element, enough for structural checks.
type svgNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []svgNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n svgNode) walk(fn func(svgNode)) {
	fn(n)
	for _, c := range n.Children {
		c.walk(fn)
	}
}

// renderGrid draws a grid through its templ component and parses it.
func renderGrid(t *testing.T, g Grid) svgNode {
	t.Helper()
	g.describe()
	var buf bytes.Buffer
	if err := GridSVG(g, "t").Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	var fig svgNode
	if err := xml.Unmarshal(buf.Bytes(), &fig); err != nil {
		t.Fatalf("board is not well-formed XML: %v\n%s", err, buf.String())
	}
	return fig
}

// marks collects the drawn marks of a kind by cell ("x,y").
func marks(n svgNode, kind string) map[string]bool {
	out := map[string]bool{}
	n.walk(func(c svgNode) {
		if c.attr("class") == "mark "+kind {
			out[c.attr("data-cell")] = true
		}
	})
	return out
}

func TestEntelectFrames(t *testing.T) {
	r := openDir(t, entelectFixture)
	if r.Game() != "entelect" || r.Count() != 7 {
		t.Fatalf("game %q, %d rounds; want entelect, 7 round folders", r.Game(), r.Count())
	}
	names := Options{Names: map[string]string{"A": "Ahab"}}
	cases := []struct {
		name  string
		step  int
		check func(t *testing.T, f *Frame)
	}{
		{"placement: both fleets, no marks", 0, func(t *testing.T, f *Frame) {
			// The engine's round numbers, in the game's unit: round 0 is the
			// placement, the last folder (round 46) the final state.
			if f.Name != "Placement, before round 1 of 46" || len(f.Grids) != 2 {
				t.Fatalf("%q with %d grids", f.Name, len(f.Grids))
			}
			if f.Grids[0].Title != "Ahab's map" || f.Grids[1].Title != "Jane's map" {
				t.Errorf("titles %q, %q", f.Grids[0].Title, f.Grids[1].Title)
			}
		}},
		{"round 18: A's shield absorbed a shot at (5,4)", 3, func(t *testing.T, f *Frame) {
			a := f.Grids[0]
			if a.Cols != 7 || a.Rows != 7 || len(a.Ships) != 5 {
				t.Fatalf("A's grid %dx%d with %d ships", a.Cols, a.Rows, len(a.Ships))
			}
			// B's shot at engine (6,3) hit the shield: display column 6,
			// row 7-1-3 = 3. The shield is centred on engine (5,4):
			// display (5,2).
			if !hasMark(a, MarkAbsorbed, Cell{6, 3}) {
				t.Errorf("no absorbed shot at display (6,3): %+v", a.Marks)
			}
			if !hasArea(a, AreaShield, Cell{5, 2}) {
				t.Errorf("no shield over (5,2): %+v", a.Areas)
			}
			// B fired a single shot at (6,3) in round 17: display (6,3).
			if !hasArea(a, AreaWeapon, Cell{6, 3}) {
				t.Errorf("B's shot at (6,3) not outlined: %+v", a.Areas)
			}
			if p := f.Players[0]; p.Command != "Shield at (5, 4)" || p.Verdict != "succeeded" {
				t.Errorf("A's command %q: %q", p.Command, p.Verdict)
			}
			if !strings.Contains(a.Alt, "shots absorbed by a shield") {
				t.Errorf("text alternative lacks the absorbed shot: %s", a.Alt)
			}
		}},
		{"final folder: every A ship listed with its damage", 6, func(t *testing.T, f *Frame) {
			carrier := f.Grids[0].Ships[3]
			if carrier.Name != "Carrier" || len(carrier.Cells) != 5 {
				t.Fatalf("ship 3: %+v", carrier)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := r.Frame(c.step, names)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, f)
		})
	}
}

func hasMark(g Grid, k MarkKind, c Cell) bool {
	for _, m := range g.Marks {
		if m.Kind == k && m.Cell == c {
			return true
		}
	}
	return false
}

func hasArea(g Grid, k AreaKind, c Cell) bool {
	for _, a := range g.Areas {
		for _, ac := range a.Cells {
			if a.Kind == k && ac == c {
				return true
			}
		}
	}
	return false
}

// TestGridSVG checks the drawn board: its size, labels, a mark and a ship
// where the grid puts them, and a text alternative.
func TestGridSVG(t *testing.T) {
	r := openDir(t, entelectFixture)
	f, err := r.Frame(3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fig := renderGrid(t, f.Grids[0])
	var svg svgNode
	fig.walk(func(n svgNode) {
		if n.XMLName.Local == "svg" {
			svg = n
		}
	})
	if svg.attr("data-cols") != "7" || svg.attr("role") != "img" || svg.attr("viewBox") != "0 0 162 162" {
		t.Fatalf("svg attributes %+v", svg.Attrs)
	}
	var labels, ships int
	var desc string
	svg.walk(func(n svgNode) {
		switch {
		case n.attr("class") == "lbl":
			labels++
		case n.XMLName.Local == "g" && strings.HasPrefix(n.attr("class"), "ship"):
			ships++
		case n.XMLName.Local == "desc":
			desc = n.Text
		}
	})
	if labels != 14 || ships != 5 {
		t.Errorf("%d labels, %d ships; want 14, 5", labels, ships)
	}
	if !marks(svg, "absorbed")["6,3"] {
		t.Errorf("absorbed mark not drawn at 6,3")
	}
	if len(marks(svg, "hit")) != f.Grids[0].markCount(MarkHit) || len(marks(svg, "miss")) == 0 {
		t.Errorf("hits %v, misses %v", marks(svg, "hit"), marks(svg, "miss"))
	}
	if !strings.HasPrefix(desc, "Jane's map: 7 by 7 cells.") && !strings.HasPrefix(desc, "John's map: 7 by 7 cells.") {
		t.Errorf("description %q", desc)
	}
}

// TestEntelectIncomplete opens a folder whose last round was cut short
// (no root files, only A's state) and a zipped folder.
func TestEntelectIncomplete(t *testing.T) {
	state, err := os.ReadFile(filepath.Join(entelectFixture, "Phase 2 - Round 18", "A", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.ReadFile(filepath.Join(entelectFixture, "Phase 2 - Round 17", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"match/Phase 2 - Round 17/state.json":   {Data: root},
		"match/Phase 2 - Round 18/A/state.json": {Data: state},
		"match/Phase 2 - Round 19/":             {Mode: os.ModeDir},
	}
	r, err := Open(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if r.Count() != 3 {
		t.Fatalf("%d rounds, want 3", r.Count())
	}
	for i, want := range []int{2, 1, 0} {
		f, err := r.Frame(i, Options{})
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if len(f.Grids) != want {
			t.Errorf("round %d: %d grids, want %d", i, len(f.Grids), want)
		}
	}
	if _, err := Open(fstest.MapFS{"notes.txt": {Data: []byte("x")}}); err != ErrNoReplay {
		t.Errorf("no replay: %v", err)
	}
}

// TestLogsOnlyForOwners checks that a bot's log.txt is shown only when the
// options allow it, and the public files always.
func TestLogsOnlyForOwners(t *testing.T) {
	fsys := fstest.MapFS{
		"Phase 2 - Round 1/A/log.txt":     {Data: []byte("A's secret")},
		"Phase 2 - Round 1/B/log.txt":     {Data: []byte("B's secret")},
		"Phase 2 - Round 1/A/command.txt": {Data: []byte("1,2,3")},
	}
	r, err := Open(fsys)
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Frame(0, Options{ShowLog: func(k string) bool { return k == "B" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Logs) != 1 || f.Logs[0].Text != "B's secret" {
		t.Errorf("logs %+v, want B's only", f.Logs)
	}
	if len(f.Files) != 1 || f.Files[0].Name != "Phase 2 - Round 1/A/command.txt" {
		t.Errorf("files %+v", f.Files)
	}
	if f, _ := r.Frame(0, Options{}); len(f.Logs) != 0 {
		t.Errorf("a visitor sees logs %+v", f.Logs)
	}
}

// readCounter counts the bytes read from its files.
type readCounter struct {
	fs.FS
	n int64
}

func (c *readCounter) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil || !strings.HasSuffix(name, ".txt") {
		return f, err // folders are listed, not counted
	}
	return countedFile{f, c}, nil
}

type countedFile struct {
	fs.File
	c *readCounter
}

func (f countedFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.c.n += int64(n)
	return n, err
}

// TestLargeRoundFiles: a round's shown files are read only as far as the
// page shows them, however large (a bot's log of 8 MiB here), and shown cut.
func TestLargeRoundFiles(t *testing.T) {
	big := bytes.Repeat([]byte("a line a bot printed\n"), 8<<20/21)
	fsys := &readCounter{FS: fstest.MapFS{
		"Phase 2 - Round 1/A/log.txt":     {Data: big},
		"Phase 2 - Round 1/A/command.txt": {Data: big},
	}}
	r, err := Open(fsys)
	if err != nil {
		t.Fatal(err)
	}
	fsys.n = 0
	f, err := r.Frame(0, Options{ShowLog: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	for _, shown := range append(f.Files, f.Logs...) {
		if len(shown.Text) > maxShownText+10 || !strings.HasSuffix(shown.Text, "\n…") {
			t.Errorf("%s: %d bytes shown, want the first %d and an ellipsis", shown.Name, len(shown.Text), maxShownText)
		}
	}
	if len(f.Files) != 1 || len(f.Logs) != 1 {
		t.Errorf("files %d, logs %d; want one of each", len(f.Files), len(f.Logs))
	}
	if fsys.n > 4*maxShownText {
		t.Errorf("%d bytes read for a frame that shows %d of each of two files", fsys.n, maxShownText)
	}
}

// TestOpenZip reads a replay zipped with its folder at the top.
func TestOpenZip(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(entelectFixture, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(entelectFixture, p)
		w, err := zw.Create("replay/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(w, bytes.NewReader(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(zr)
	if err != nil || r.Count() != 7 {
		t.Fatalf("%v, %v", r, err)
	}
	s := r.Scores(Options{})
	if len(s) != 2 || len(s[0].Points) != 7 || s[0].Points[6] == 0 {
		t.Errorf("scores %+v", s)
	}
}

// TestLegendMatchesTheBoards checks that each rule set's legend explains
// every ship, mark and area its boards draw, and nothing they never draw.
func TestLegendMatchesTheBoards(t *testing.T) {
	for _, game := range []string{"brainjar", "deepship", "hitandsunk"} {
		t.Run(game, func(t *testing.T) {
			r := openJSONFixture(t, game)
			drawn := map[string]bool{}
			for i := 0; i < r.Count(); i++ {
				f, err := r.Frame(i, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range f.Grids {
					for _, s := range g.Ships {
						drawn["ship"] = true
						if s.Sunk {
							drawn["ship sunk"] = true
						}
						if s.Faded {
							drawn["ship faded"] = true
						}
					}
					for _, m := range g.Marks {
						drawn["mark "+string(m.Kind)] = true
					}
					for _, a := range g.Areas {
						drawn["area "+string(a.Kind)] = true
					}
				}
			}
			explained := map[string]bool{}
			for _, it := range legendFor(game) {
				switch {
				case strings.Contains(it.ship, "sunk"):
					explained["ship sunk"] = true
				case strings.Contains(it.ship, "faded"):
					explained["ship faded"] = true
				case it.ship != "":
					explained["ship"] = true
				case it.mark != "":
					explained["mark "+string(it.mark)] = true
				default:
					explained["area "+string(it.area)] = true
				}
			}
			var rendered strings.Builder
			if err := legend(game).Render(context.Background(), &rendered); err != nil {
				t.Fatal(err)
			}
			// Each entry stands apart from the next one's symbol.
			for _, it := range legendFor(game)[:len(legendFor(game))-1] {
				label := html.EscapeString(it.label)
				if !strings.Contains(rendered.String(), "</svg> "+label+"</span> ") || strings.Contains(rendered.String(), label+"<svg") {
					t.Errorf("the legend's %q runs into the next entry:\n%s", it.label, rendered.String())
				}
			}
			for k := range drawn {
				if !explained[k] {
					t.Errorf("the boards draw %s, which the legend does not explain", k)
				}
			}
			for k := range explained {
				if !drawn[k] && !(game == "hitandsunk" && (k == "mark mine" || k == "mark wreck" || k == "ship faded")) {
					t.Errorf("the legend explains %s, which no step of the match draws", k)
				}
			}
		})
	}
}
