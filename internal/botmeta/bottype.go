package botmeta

import (
	"fmt"
	"strconv"
	"strings"
)

// BotType is the language a bot is written in, as bot.json names it. The
// values 0 to 10 are the original engine's enum (spec §5) and may be written
// as integers; Executable is a platform addition, accepted by name only.
type BotType int

// The original engine's bot types, in its enum order.
const (
	CSharp BotType = iota
	Java
	JavaScript
	CPlusPlus
	Python2
	Python3
	FSharp
	Golang
	Rust
	Julia
	Scala
)

// Executable is a program started directly (a native binary or a script
// with a shebang line): In Deep Ship's runnable, BrainJar's run.sh.
const Executable BotType = 100

// botTypeNames are the enum names in value order.
var botTypeNames = [...]string{
	CSharp: "CSharp", Java: "Java", JavaScript: "JavaScript", CPlusPlus: "CPlusPlus",
	Python2: "Python2", Python3: "Python3", FSharp: "FSharp", Golang: "Golang",
	Rust: "Rust", Julia: "Julia", Scala: "Scala",
}

// BotTypes lists every accepted bot type, original ones first.
func BotTypes() []BotType {
	out := make([]BotType, 0, len(botTypeNames)+1)
	for i := range botTypeNames {
		out = append(out, BotType(i))
	}
	return append(out, Executable)
}

// String returns the name bot.json uses for t.
func (t BotType) String() string {
	if t == Executable {
		return "Executable"
	}
	if t >= 0 && int(t) < len(botTypeNames) {
		return botTypeNames[t]
	}
	return fmt.Sprintf("BotType(%d)", int(t))
}

// Valid reports whether t is a known bot type.
func (t BotType) Valid() bool {
	return t == Executable || (t >= 0 && int(t) < len(botTypeNames))
}

// ParseBotType reads a bot type given by name (any letter case, as the
// original's JSON reader matched enum names) or by its integer value.
func ParseBotType(s string) (BotType, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		t := BotType(n)
		if t == Executable || !t.Valid() {
			return 0, fmt.Errorf("unknown BotType %d (known: 0 to %d, or a name: %s)", n, len(botTypeNames)-1, knownNames())
		}
		return t, nil
	}
	for _, t := range BotTypes() {
		if strings.EqualFold(s, t.String()) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown BotType %q (known: %s)", s, knownNames())
}

func knownNames() string {
	names := make([]string, 0, len(botTypeNames)+1)
	for _, t := range BotTypes() {
		names = append(names, t.String())
	}
	return strings.Join(names, ", ")
}

// MarshalText writes the bot type's name.
func (t BotType) MarshalText() ([]byte, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("unknown BotType %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads a bot type by name or integer value.
func (t *BotType) UnmarshalText(b []byte) error {
	v, err := ParseBotType(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// TakesRunArgs reports whether the original engine appended RunArgs to this
// bot type's command line: every type except Golang and Rust (spec §5).
func (t BotType) TakesRunArgs() bool {
	return t != Golang && t != Rust
}
