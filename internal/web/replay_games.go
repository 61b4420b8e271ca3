package web

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/broadside/broadside/web/page"
)

// maxReplayJSON caps the replay.json read for the viewer. A Hit and Sunk
// free-for-all of thirty bots stays well below it.
const maxReplayJSON = 32 << 20

// replayJSONFile is the replay file of every rule set but Entelect's.
const replayJSONFile = "replay.json"

// seatNames maps a seat's key to the name the page shows for it (the
// portal's bot name); replays hold the names bots call themselves, which
// are often the same starter's.
type seatNames map[string]string

// name is the portal's name of the seat with key, or the replay's own.
func (n seatNames) name(key, own string) string {
	if s, ok := n[key]; ok && s != "" {
		return s
	}
	return own
}

// readGameReplay shows step i (clamped) of a replay.json replay, or
// returns nil when the zip holds none or a game it does not know.
func readGameReplay(zr *zip.Reader, i int, names seatNames) (*page.ReplayRound, error) {
	var f *zip.File
	for _, zf := range zr.File {
		if zf.Name == replayJSONFile {
			f = zf
			break
		}
	}
	if f == nil {
		return nil, nil
	}
	if f.UncompressedSize64 > maxReplayJSON {
		return nil, fmt.Errorf("%s is %d bytes, more than the viewer reads", f.Name, f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", f.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxReplayJSON))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name, err)
	}
	var head struct {
		Game string `json:"game"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("decode %s: %w", f.Name, err)
	}
	switch head.Game {
	case "brainjar":
		return brainjarStep(data, i, names)
	case "deepship":
		return deepshipStep(data, i, names)
	case "hitandsunk":
		return hitandsunkStep(data, i, names)
	}
	return nil, nil
}

// decodeReplay decodes a replay.json into the rule set's own type.
func decodeReplay(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s: %w", replayJSONFile, err)
	}
	return nil
}

// stepIndex clamps a requested step to [0, n).
func stepIndex(i, n int) int {
	return max(0, min(i, n-1))
}

// grid is a text board drawn cell by cell.
type grid struct {
	cols, rows int
	cells      []byte
}

func newGrid(cols, rows int) *grid {
	g := &grid{cols: cols, rows: rows, cells: make([]byte, cols*rows)}
	for i := range g.cells {
		g.cells[i] = '.'
	}
	return g
}

// set marks a cell; cells off the board are ignored.
func (g *grid) set(col, row int, c byte) {
	if col >= 0 && col < g.cols && row >= 0 && row < g.rows {
		g.cells[row*g.cols+col] = c
	}
}

func (g *grid) get(col, row int) byte {
	if col >= 0 && col < g.cols && row >= 0 && row < g.rows {
		return g.cells[row*g.cols+col]
	}
	return 0
}

// text draws the board with column numbers (last digit) on top and the
// row labels the game uses on the left.
func (g *grid) text(rowLabel func(int) string) string {
	width := len(rowLabel(g.rows - 1))
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", width+1))
	for c := range g.cols {
		b.WriteByte(byte('0' + c%10))
	}
	b.WriteByte('\n')
	for r := range g.rows {
		fmt.Fprintf(&b, "%*s ", width, rowLabel(r))
		b.Write(g.cells[r*g.cols : (r+1)*g.cols])
		b.WriteByte('\n')
	}
	return b.String()
}

// numberLabel labels rows 0, 1, 2, ...
func numberLabel(r int) string { return strconv.Itoa(r) }
