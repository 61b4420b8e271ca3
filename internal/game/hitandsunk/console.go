package hitandsunk

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/broadside/broadside/internal/game"
)

// askConsole gets a human's answer: the ship choice, or a turn's action
// string after showing the request and the visible map.
func askConsole(c *game.Console, g *Game, id int, arg *string) (stdout, failure string) {
	if arg == nil {
		fmt.Fprintln(c.Out, "Choose your ship: 1 Destroyer, 2 Submarine, 3 Cruiser, 4 Battleship, 5 Carrier")
	} else {
		s := g.Ship(id)
		fmt.Fprintf(c.Out, "Round %d, you are ship %d, a %s at (%d,%d) facing %d, hull %s\n",
			g.Round, id, s.Type.Name, s.X, s.Y, s.Facing, hullString(s))
		view := g.Map(id)
		for row := 0; row < viewSide; row++ {
			fmt.Fprintln(c.Out, view[row*viewSide:(row+1)*viewSide])
		}
		fmt.Fprintln(c.Out, "Actions (M B K C A F±x±y N±x±y S D R P W):")
	}
	line, err := readLine(c.In)
	if err != nil {
		return "", "console: " + err.Error()
	}
	return line, ""
}

// readLine reads one line byte by byte, so nothing after it is consumed
// from a shared input.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			if err == io.EOF && b.Len() > 0 {
				return b.String(), nil
			}
			return "", err
		}
	}
}

func hullString(s *Ship) string {
	out := make([]byte, len(s.Hull))
	for i, ok := range s.Hull {
		out[i] = "01"[b2i(ok)]
	}
	return string(out)
}

// drawGrid draws the whole board (--pretty): ship cells by the last digit
// of their seat, x for a destroyed segment, '*' for wreckage, M for mines.
func drawGrid(w io.Writer, g *Game) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintf(bw, "Round %d\n", g.Round)
	for y := 0; y < g.Size; y++ {
		for x := 0; x < g.Size; x++ {
			bw.WriteByte(boardChar(g, x, y))
		}
		bw.WriteByte('\n')
	}
}

func boardChar(g *Game, x, y int) byte {
	c := g.at(x, y)
	switch c.kind {
	case cellMine:
		return 'M'
	case cellWreck:
		return '*'
	case cellShip:
		s := g.seats[c.owner]
		if i := s.SegmentAt(x, y); i >= 0 && !s.Hull[i] {
			return 'x'
		}
		return byte('0' + c.owner%10)
	}
	return '.'
}
