// Package repro says how a match recorded by the platform is played again
// on a contestant's machine: the battleship command line with the match's
// rule set, seed, map size and seats, and the folder each seat's bot
// plays from. The worker plays every match from folders named this way,
// so the same command with the same bot versions gives the same replay.
package repro

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// Seat is one seat of a recorded match, in seat order.
type Seat struct {
	Bot     string // the bot's name on the platform
	Owner   string // its owner's user name
	Version int    // the version number that played
	// VersionID tells seats apart: two seats of one version are the same
	// bot and may share a folder.
	VersionID int64
}

// Match is what the command needs of a recorded match.
type Match struct {
	Game string
	Seed int64
	// Size is the map size the match was played on: 0 for the rule set's
	// default, or where the rule set has one map.
	Size  int
	Seats []Seat
}

// ForMatch is the recorded match m as the command needs it, its seats in
// seat order whatever order m lists them in. rules says whether m's game
// reads a map size.
func ForMatch(m *store.MatchRow, rules *game.Registry) Match {
	r := Match{Game: m.Game, Seed: m.Seed}
	if rs, err := rules.Get(m.Game); err == nil && len(rs.Traits().MapSizes) > 0 {
		r.Size = m.MapSize
	}
	players := slices.Clone(m.Players)
	slices.SortStableFunc(players, func(a, b store.MatchPlayerRow) int { return cmp.Compare(a.Seat, b.Seat) })
	for _, p := range players {
		r.Seats = append(r.Seats, Seat{Bot: p.BotName, Owner: p.Owner, Version: p.VersionNumber, VersionID: p.VersionID})
	}
	return r
}

// Folder is the name of the folder a bot plays from: its name on the
// platform with every character but letters, digits and "-_.+" made "_",
// and no leading "." or "-", so that the folder is neither hidden nor
// taken for an option, and no script of the bot's trips on a space in its
// path. It matters beyond tidiness: a bot whose manifest names no player
// (a BrainJar run.sh bot) takes its folder's name as its name in the
// replay.
func Folder(bot string) string {
	name := []rune(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.+", r) {
			return r
		}
		return '_'
	}, strings.TrimSpace(bot)))
	if len(name) == 0 {
		return "bot"
	}
	if name[0] == '.' || name[0] == '-' {
		name[0] = '_'
	}
	return string(name)
}

// Folders returns the folder of each seat, relative to where the command
// runs: the bot's Folder name, unless two different versions would share
// it, when each sits under its owner's folder (and, for two versions of one
// bot, under a folder of its version number), so that every folder still
// ends in the bot's own name.
func Folders(seats []Seat) []string {
	levels := []func(s Seat) string{
		func(s Seat) string { return Folder(s.Bot) },
		func(s Seat) string { return Folder(s.Owner) + "/" + Folder(s.Bot) },
		func(s Seat) string { return Folder(s.Owner) + "/v" + strconv.Itoa(s.Version) + "/" + Folder(s.Bot) },
	}
	var out []string
	for _, level := range levels {
		out = make([]string, len(seats))
		owner := map[string]int64{} // folder -> the version playing from it
		clash := false
		for i, s := range seats {
			out[i] = level(s)
			if v, ok := owner[out[i]]; ok && v != s.VersionID {
				clash = true
			}
			owner[out[i]] = s.VersionID
		}
		if !clash {
			break
		}
	}
	return out
}

// Args is the battleship command line (without the program's name) that
// plays m again from the given bot folders, one per seat in seat order, as
// the platform's worker played it: the same rule set, seed and map size,
// and tournament mode.
func Args(m Match, folders []string) []string {
	args := []string{"--game", m.Game, "--seed", strconv.FormatInt(m.Seed, 10)}
	if m.Size != 0 {
		args = append(args, "--size", strconv.Itoa(m.Size))
	}
	args = append(args, "--tournamentMode", "-b")
	for _, f := range folders {
		if strings.HasPrefix(f, "-") {
			// -b takes words up to the next option.
			f = "./" + f
		}
		args = append(args, f)
	}
	return args
}

// Command is the whole command line for a shell, its words quoted where
// they need it.
func Command(m Match) string {
	words := append([]string{"battleship"}, Args(m, Folders(m.Seats))...)
	for i, w := range words {
		words[i] = quote(w)
	}
	return strings.Join(words, " ")
}

// quote makes w one word for a POSIX shell.
func quote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./=+,:@%", r)))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// String describes a seat for people: "Bot v3 by owner".
func (s Seat) String() string {
	return fmt.Sprintf("%s v%d by %s", s.Bot, s.Version, s.Owner)
}

// reproGame is the one game whose replays `battleship repro` plays.
const reproGame = "entelect"

// ReplayZip is the name the portal gives match id's replay download.
func ReplayZip(id int64) string { return fmt.Sprintf("match-%d-replay.zip", id) }

// ReproCommand is the `battleship repro` command line that plays seat
// (0 or 1, Entelect's A or B) of m again against the other seat's
// recorded moves, from the seat's folder as Folders names it and the
// replay zip the portal serves (replay). ok is false for a game repro
// does not play or a seat m does not have.
func ReproCommand(m Match, seat int, replay string) (cmd string, ok bool) {
	if m.Game != reproGame || len(m.Seats) != 2 || seat < 0 || seat > 1 {
		return "", false
	}
	folder := Folders(m.Seats)[seat]
	if strings.HasPrefix(folder, "-") {
		folder = "./" + folder
	}
	words := []string{"battleship", "repro", "--seat", []string{"A", "B"}[seat], "--bot", folder, replay}
	for i, w := range words {
		words[i] = quote(w)
	}
	return strings.Join(words, " "), true
}
