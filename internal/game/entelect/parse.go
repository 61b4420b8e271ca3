package entelect

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// utf8BOM is stripped from bot files, as .NET File.ReadAllText does.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ParseCommand parses command.txt (§1): one line "code,x,y". Any error means
// the move is a DoNothing; an unknown code is reported as an error too,
// with Code DoNothing, since the original treats it the same way.
func ParseCommand(data []byte) (Command, error) {
	text := string(bytes.TrimPrefix(data, utf8BOM))
	fields := strings.Split(text, ",")
	if len(fields) != 3 {
		return Command{}, fmt.Errorf("command.txt: expected 3 comma-separated fields, got %d", len(fields))
	}
	var v [3]int
	for i, f := range fields {
		n, err := parseInt32(f)
		if err != nil {
			return Command{}, fmt.Errorf("command.txt: field %d: %w", i+1, err)
		}
		v[i] = n
	}
	if v[0] < int(FireShot) || v[0] > int(PlaceShield) {
		if v[0] == int(DoNothing) {
			return Command{Code: DoNothing, X: v[1], Y: v[2]}, nil
		}
		return Command{}, fmt.Errorf("command.txt: unknown command code %d", v[0])
	}
	return Command{Code: Code(v[0]), X: v[1], Y: v[2]}, nil
}

// ParsePlace parses place.txt (§2): exactly five non-blank lines
// "<ShipName> <x> <y> <Direction>", tokens split on single spaces. Any error
// means the move is a DoNothing. Duplicate ships and bad layouts are not
// checked here: they fail when the placement is processed.
func ParsePlace(data []byte) (Command, error) {
	text := string(bytes.TrimPrefix(data, utf8BOM))
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != int(numShips) {
		return Command{}, fmt.Errorf("place.txt: expected %d ship lines, got %d", numShips, len(lines))
	}
	cmd := Command{Code: PlaceShips, Ships: make([]ShipPlacement, 0, numShips)}
	joined := make([]string, len(lines))
	for i, l := range lines {
		sp, err := parsePlaceLine(l)
		if err != nil {
			return Command{}, fmt.Errorf("place.txt line %d: %w", i+1, err)
		}
		cmd.Ships = append(cmd.Ships, sp)
		joined[i] = strings.ReplaceAll(l, "\r", " ")
	}
	cmd.PlaceText = strings.Join(joined, ",")
	return cmd, nil
}

// parsePlaceLine parses one place.txt line; extra tokens are ignored.
func parsePlaceLine(line string) (ShipPlacement, error) {
	tok := strings.Split(line, " ")
	if len(tok) < 4 {
		return ShipPlacement{}, fmt.Errorf("%q: expected <ShipName> <x> <y> <Direction>", clip(line))
	}
	var sp ShipPlacement
	found := false
	for t := range ships {
		if strings.EqualFold(tok[0], ships[t].name) {
			sp.Type, found = ShipType(t), true
		}
	}
	if !found {
		return sp, fmt.Errorf("unknown ship %q", clip(tok[0]))
	}
	var err error
	if sp.X, err = parseInt32(tok[1]); err != nil {
		return sp, fmt.Errorf("x: %w", err)
	}
	if sp.Y, err = parseInt32(tok[2]); err != nil {
		return sp, fmt.Errorf("y: %w", err)
	}
	dir := strings.TrimRight(tok[3], "\r")
	found = false
	for d, name := range directionNames {
		if strings.EqualFold(dir, name) {
			sp.Dir, found = Direction(d), true
		}
	}
	if !found {
		return sp, fmt.Errorf("unknown direction %q", clip(dir))
	}
	return sp, nil
}

var errNotInteger = errors.New("not an integer")

// parseInt32 parses like .NET Int32.Parse with NumberStyles.Integer:
// surrounding white space (tab to CR and space), an optional sign, decimal
// digits only, within the 32-bit range.
func parseInt32(s string) (int, error) {
	s = strings.Trim(s, "\t\n\v\f\r ")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, errNotInteger
	}
	n := int64(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: %q", errNotInteger, clip(s))
		}
		n = n*10 + int64(c-'0')
		if n > 1<<31 {
			return 0, fmt.Errorf("%w: %q overflows", errNotInteger, clip(s))
		}
	}
	if neg {
		n = -n
	}
	if n > 1<<31-1 {
		return 0, fmt.Errorf("%w: %q overflows", errNotInteger, clip(s))
	}
	return int(n), nil
}

// clip shortens bot-supplied text quoted in errors and keeps it valid UTF-8.
func clip(s string) string {
	const max = 40
	if len(s) > max {
		s = s[:max]
		for !utf8.ValidString(s) && len(s) > 0 {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return strings.ToValidUTF8(s, "?")
}
