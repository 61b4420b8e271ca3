package entelect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game"
)

// The JSON shapes of the original's state files, in its field order, for
// decoding the golden files.

type cellJSON struct {
	Occupied  bool
	Hit       bool
	X         int
	Y         int
	Shielded  bool
	ShieldHit bool
}

type weaponJSON struct {
	WeaponType     string
	EnergyRequired int
}

type shipJSON struct {
	Cells     []*cellJSON
	Destroyed bool
	Placed    bool
	ShipType  string
	Weapons   [2]weaponJSON
}

type shieldJSON struct {
	ChargeTime     int
	RoundLastUsed  int
	CurrentCharges int
	Active         bool
	CurrentRadius  int
	MaxRadius      int
	CenterPoint    string
}

type ownerJSON struct {
	FailedFirstPhaseCommands int
	Name                     string
	Ships                    []shipJSON
	Points                   int
	Energy                   int
	Killed                   bool
	IsWinner                 bool
	ShotsFired               int
	ShotsHit                 int
	Shield                   shieldJSON
	ShipsRemaining           int
	Key                      string
}

type playerMapJSON struct {
	Cells     []cellJSON
	Owner     ownerJSON
	MapWidth  int
	MapHeight int
}

type opponentShipJSON struct {
	Destroyed bool
	ShipType  string
}

type opponentCellJSON struct {
	Damaged   bool
	Missed    bool
	X         int
	Y         int
	ShieldHit bool
}

type opponentMapJSON struct {
	Ships  []opponentShipJSON
	Alive  bool
	Points int
	Name   string
	Cells  []opponentCellJSON
}

type stateJSON struct {
	PlayerMap    *playerMapJSON
	OpponentMap  *opponentMapJSON
	GameVersion  string
	GameLevel    int
	Round        int
	MapDimension int
	Phase        int
	Player1Map   *playerMapJSON
	Player2Map   *playerMapJSON
}

// The golden folders are runs of the original release 1.2.2 engine under
// Mono (the C# reference bot against itself), copied from the spec data.
var goldenRuns = []string{"v1.2.2-mono-small-7x7", "v1.2.2-mono-medium-10x10"}

// firstHits orders the players' first landed hits where a run needs it
// for a points tie; the files do not show the round of the first hit.
var firstHits = map[string][2]int{"v1.2.2-mono-small-7x7": {2, 1}}

// roundFolder is one "Phase p - Round r" folder of a golden run.
type roundFolder struct {
	dir          string
	phase, round int
}

func goldenFolders(t *testing.T, run string) []roundFolder {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", "golden", run))
	if err != nil {
		t.Fatal(err)
	}
	var out []roundFolder
	for _, e := range entries {
		var f roundFolder
		if _, err := fmt.Sscanf(e.Name(), "Phase %d - Round %d", &f.phase, &f.round); err != nil {
			t.Fatalf("folder %q: %v", e.Name(), err)
		}
		f.dir = filepath.Join("testdata", "golden", run, e.Name())
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].round < out[j].round })
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeRoot rebuilds a State from a root state.json. Fields the files do
// not show (first landed hit, DoNothing streak, last moves) stay unset.
func decodeRoot(t *testing.T, data []byte) (*State, [2]string) {
	t.Helper()
	var v stateJSON
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	size := map[int]int{7: 1, 10: 2, 14: 3}[v.MapDimension]
	s := NewState(size)
	s.Round, s.Phase = v.Round, v.Phase
	var names [2]string
	for p, pm := range [2]*playerMapJSON{v.Player1Map, v.Player2Map} {
		pl := &s.Players[p]
		for i, c := range pm.Cells {
			pl.Map[i] = Cell{Occupied: c.Occupied, Hit: c.Hit, Shielded: c.Shielded, ShieldHit: c.ShieldHit, ship: -1}
		}
		o := pm.Owner
		names[p] = o.Name
		for ti, js := range o.Ships {
			sh := &pl.Ships[ti]
			sh.Destroyed, sh.Placed = js.Destroyed, js.Placed
			for i, c := range js.Cells {
				if c == nil {
					continue
				}
				sh.HasCells = true
				sh.cells[i] = int16(s.index(c.X, c.Y))
				if sh.Placed {
					pl.Map[sh.cells[i]].ship = int8(ti)
				}
			}
		}
		pl.FailedPlacements, pl.Points, pl.Energy, pl.Killed = o.FailedFirstPhaseCommands, o.Points, o.Energy, o.Killed
		pl.ShotsFired, pl.ShotsHit = o.ShotsFired, o.ShotsHit
		if pl.ShotsHit > 0 {
			pl.FirstShotLanded = 0
		}
		js := o.Shield
		pl.Shield = Shield{RoundLastUsed: js.RoundLastUsed, Charges: js.CurrentCharges, Radius: js.CurrentRadius, MaxRadius: js.MaxRadius, Active: js.Active}
		fmt.Sscanf(js.CenterPoint, "%d, %d", &pl.Shield.CenterX, &pl.Shield.CenterY)
	}
	return &s, names
}

// decodeMoves sets the players' last moves from a roundCommand.json.
func decodeMoves(t *testing.T, s *State, data []byte) {
	t.Helper()
	var v roundCommandJSON
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for p, m := range [2]moveJSON{v.Player1Move, v.Player2Move} {
		mv := &s.Players[p].Move
		mv.Successful = m.SuccessfulMove
		if m.CommandIssued != nil {
			mv.HasIssued = true
			for c, name := range issued {
				if name == *m.CommandIssued {
					mv.Issued = Code(c)
				}
			}
		}
		if m.PlaceShipString != nil {
			mv.PlaceText, mv.HasPlace = *m.PlaceShipString, true
		}
		fmt.Sscanf(m.CenterPoint, "%d, %d", &mv.CenterX, &mv.CenterY)
	}
}

func decodeInfos(t *testing.T, data []byte) [2]game.BotInfo {
	t.Helper()
	var v roundInfoJSON
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var out [2]game.BotInfo
	for i, p := range v.Players {
		out[i] = game.BotInfo{Author: p.Author, NickName: p.NickName, Email: p.Email, BotType: p.BotType}
	}
	return out
}

func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-60)
	t.Errorf("%s differs at byte %d:\n got  …%s\n want …%s", what, i, got[lo:min(len(got), i+60)], want[lo:min(len(want), i+60)])
}

// TestGoldenViews re-renders every view of every golden round from its
// root state and compares byte for byte.
func TestGoldenViews(t *testing.T) {
	for _, run := range goldenRuns {
		folders := goldenFolders(t, run)
		final := folders[len(folders)-1]
		for i, f := range folders {
			t.Run(filepath.Base(f.dir)+" "+run, func(t *testing.T) {
				s, names := decodeRoot(t, readFile(t, filepath.Join(f.dir, "state.json")))
				if fh, ok := firstHits[run]; ok && s.Players[0].ShotsHit > 0 && s.Players[1].ShotsHit > 0 {
					s.Players[0].FirstShotLanded, s.Players[1].FirstShotLanded = fh[0], fh[1]
				}
				sameBytes(t, "root state.json", s.RootStateJSON(names), readFile(t, filepath.Join(f.dir, "state.json")))
				infos := decodeInfos(t, readFile(t, filepath.Join(f.dir, "roundInfo.json")))
				sameBytes(t, "roundInfo.json", s.RoundInfoJSON(infos), readFile(t, filepath.Join(f.dir, "roundInfo.json")))
				// The last processed round's player files were overwritten
				// with the final state at game end (§3.5).
				view := s
				if i == len(folders)-2 {
					view, _ = decodeRoot(t, readFile(t, filepath.Join(final.dir, "state.json")))
				}
				for p := range 2 {
					k := Key(p)
					sameBytes(t, k+" - map.txt", s.MapText(p, names), readFile(t, filepath.Join(f.dir, k+" - map.txt")))
					if f == final {
						continue
					}
					sameBytes(t, k+"/state.json", view.PlayerStateJSON(p, names), readFile(t, filepath.Join(f.dir, k, "state.json")))
					sameBytes(t, k+"/map.txt", view.MapText(p, names), readFile(t, filepath.Join(f.dir, k, "map.txt")))
				}
			})
		}
	}
}

// readMove parses the command file a golden bot left in its folder.
func readMove(t *testing.T, dir string) Command {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, "place.txt")); err == nil {
		cmd, err := ParsePlace(b)
		if err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	cmd, err := ParseCommand(readFile(t, filepath.Join(dir, "command.txt")))
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestGoldenRounds replays each golden round whose next folder exists:
// the state after both commands must equal the next root state, and the
// next roundCommand.json must match.
func TestGoldenRounds(t *testing.T) {
	for _, run := range goldenRuns {
		folders := goldenFolders(t, run)
		for i := 0; i+1 < len(folders); i++ {
			f, next := folders[i], folders[i+1]
			if next.round != f.round+1 {
				continue
			}
			t.Run(filepath.Base(f.dir)+" "+run, func(t *testing.T) {
				s, names := decodeRoot(t, readFile(t, filepath.Join(f.dir, "state.json")))
				decodeMoves(t, s, readFile(t, filepath.Join(f.dir, "roundCommand.json")))
				cmds := [2]Command{readMove(t, filepath.Join(f.dir, "A")), readMove(t, filepath.Join(f.dir, "B"))}
				out := s.Step(cmds, both)
				if out.Errs[0] != nil || out.Errs[1] != nil {
					t.Fatalf("commands failed: %v / %v", out.Errs[0], out.Errs[1])
				}
				sameBytes(t, "next root state.json", s.RootStateJSON(names), readFile(t, filepath.Join(next.dir, "state.json")))
				sameBytes(t, "next roundCommand.json", s.RoundCommandJSON(), readFile(t, filepath.Join(next.dir, "roundCommand.json")))
				if strings.Contains(next.dir, "Round 46") || strings.Contains(next.dir, "Round 91") {
					if !s.Over() {
						t.Fatal("the game should be over")
					}
				}
			})
		}
	}
}

func TestStateJSONNames(t *testing.T) {
	// Names come from bot.json: whatever they hold, the state stays valid
	// JSON and decodes back to the same name.
	s := started(t, 1, smallLayout)
	for _, name := range []string{`plain`, `quo"te\back`, "tab\tnew\nline\x01\x1f", "ünïcødé ✓", "<html>&amp;"} {
		var v stateJSON
		if err := json.Unmarshal(s.PlayerStateJSON(0, [2]string{name, "x"}), &v); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if v.PlayerMap.Owner.Name != name {
			t.Fatalf("name %q came back as %q", name, v.PlayerMap.Owner.Name)
		}
		if !bytes.Contains(s.PlayerStateJSON(0, [2]string{name, "x"}), []byte(`<html>`)) && name == "<html>&amp;" {
			t.Fatal("HTML characters are written as is, like Newtonsoft")
		}
	}
}
