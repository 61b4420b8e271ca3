// Package game defines what every hosted rule set provides: a way to play one
// match between bots and a summary of how it ended. Each rule set lives in its
// own sub-package (entelect, brainjar, deepship, hitandsunk) with the same
// shape: pure rules, state views, the bot protocol and a replay writer.
package game

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/broadside/broadside/internal/command"
)

// Runner starts bot processes: the commands of a bot's turns, or one
// long-lived process per match. Run returns an error only when the command
// could not be started; what the command did is its Result. The sandbox's
// runners (internal/sandbox) satisfy it.
type Runner interface {
	Run(ctx context.Context, cmd command.Cmd) (command.Result, error)
	Start(ctx context.Context, cmd command.Cmd) (command.Process, error)
}

// Bot is one seat in a match, as the rule set sees it.
type Bot struct {
	// Key is the seat's key in the rule set's own terms ("A" or "B" for
	// Entelect); rule sets assign it when empty.
	Key string
	// Name is the display name (for Entelect: NickName, else Author, else Email).
	Name string
	// Dir is the absolute path of the bot's folder; bots run with it as the
	// working directory.
	Dir string
	// Command is the program and its leading arguments (for example
	// ["python3", "bot.py"]); the rule set appends its protocol arguments.
	Command []string
	// TrailingArgs are appended after the protocol arguments (Entelect RunArgs).
	TrailingArgs []string
	// Language names the runtime, for calibration and messages ("Python3").
	Language string
	// Calibration is added to the bot's time budget: the measured start-up
	// cost of a trivial bot of the same language on this machine.
	Calibration time.Duration
	// Console, when set, makes this seat a human at a terminal instead of a
	// process: commands are read from In and prompts written to Out.
	Console *Console
	// Meta is the manifest's author information, for files that echo it
	// (Entelect roundInfo.json).
	Meta BotInfo
	// Runner, when set, starts this seat's processes instead of
	// Options.Runner: the portal gives each bot a sandbox session of its own
	// that sees only that bot's folder.
	Runner Runner
	// Notes are put at the top of the bot's log: what the platform had to
	// choose for it, such as which Python "python" starts.
	Notes []string
	// LoadError, when set, means the bot could not be prepared (no manifest,
	// unknown BotType, missing runtime or RunFile). The match still runs and
	// every turn of this seat counts as doing nothing, with this reason.
	LoadError error
}

// BotInfo is the author information of a manifest.
type BotInfo struct {
	Author   string
	NickName string
	Email    string
	BotType  string
}

// Console is a human player at a terminal.
type Console struct {
	In  io.Reader
	Out io.Writer
}

// Options control one match.
type Options struct {
	// Seed makes the match reproducible; rule sets draw all randomness from it.
	Seed int64
	// Size selects the map size in the rule set's own terms (Entelect: 1, 2, 3;
	// 0 means the rule set's default).
	Size int
	// ReplayDir is where the replay is written; it is created if missing.
	ReplayDir string
	// ReplayZip, when set, receives the replay as a zip archive, and
	// ReplayDir keeps only what bots were shown during the match (the
	// caller removes it). The archive holds what the folder would.
	ReplayZip io.Writer
	// NoLimit lifts the time limits.
	NoLimit bool
	// Tournament hides everything that could leak between the players during
	// the match and writes the remaining files at its end.
	Tournament bool
	// ConfinedTurns says each bot's turn sees only its own files (a sandbox
	// per seat, showing it its own round folder), so the bots of a round
	// may run at once without reading each other's.
	ConfinedTurns bool
	// Debug halts on bot stderr output (local command only): when a bot
	// writes more than white space to stderr, the rule set shows it where
	// the user is watching (Pretty, else EngineLog, else DebugLog) and calls
	// Halt. See DebugStderr.
	Debug bool
	// Halt, when set, is called in debug mode after a bot's stderr output
	// was shown; it returns when the user wants the match to go on. The
	// rule set has no terminal of its own, so the caller decides how to
	// wait (the local command waits for Enter). An error, normally the
	// context's, ends the match as a cancellation does.
	Halt func(ctx context.Context) error
	// Runner starts bot processes: confined by bubblewrap in the portal, and
	// optionally in the local command.
	Runner Runner
	// EngineLog, when set, also receives the engine log (--clog).
	EngineLog io.Writer
	// Pretty, when set, receives a drawing of both maps every round (--pretty).
	Pretty io.Writer
	// DebugLog, when set, receives in debug mode what a bot wrote to stderr
	// when neither Pretty nor EngineLog is set.
	DebugLog io.Writer
	// Names, when set, are the names people know the seats by, by seat key
	// (the portal's bot names with their owners). Rule sets use them in
	// what they write for people, such as a Reason naming another player,
	// and never in what bots receive: a match plays the same without them.
	Names map[string]string
	// Logger receives operational messages.
	Logger *slog.Logger
	// Progress, when set, is called after each round with the round's
	// public files (what a spectator may see while the match runs, never
	// a bot's own files or logs), in the replay's own layout. The portal
	// follows running matches from it. It must not block for long; what
	// it does with the files never changes the match.
	Progress func(ctx context.Context, r RoundProgress)
}

// RoundProgress is one round just played: its folder's name in the replay
// and its public files by name.
type RoundProgress struct {
	Seq   int
	Name  string
	Files map[string]string
}

// DebugStderr is what Debug means in every rule set whose bots have a
// stderr: when stderr holds more than white space, the text formatted from
// format and args is written to Pretty, else EngineLog, else DebugLog, and
// then Halt is called. It returns Halt's error; it does nothing without
// Debug.
func (o Options) DebugStderr(ctx context.Context, stderr []byte, format string, args ...any) error {
	if !o.Debug || len(bytes.TrimSpace(stderr)) == 0 {
		return nil
	}
	if w := cmp.Or[io.Writer](o.Pretty, o.EngineLog, o.DebugLog); w != nil {
		fmt.Fprintf(w, format, args...)
	}
	if o.Halt == nil {
		return nil
	}
	if err := o.Halt(ctx); err != nil {
		return fmt.Errorf("halted on bot stderr: %w", err)
	}
	return nil
}

// Summary is how a match ended. Its JSON form is the stable `--json`
// interface of the battleship command; fields are only ever added.
type Summary struct {
	Game    string          `json:"game"`
	Winner  *string         `json:"winner"`
	Rounds  int             `json:"rounds"`
	Seed    int64           `json:"seed"`
	Players []PlayerSummary `json:"players"`
}

// PlayerSummary is one seat's result. For free-for-all rule sets the players
// are listed in finishing order.
type PlayerSummary struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Points      int    `json:"points"`
	ShipsLeft   int    `json:"shipsLeft"`
	ShotsFired  int    `json:"shotsFired"`
	ShotsLanded int    `json:"shotsLanded"`
	Killed      bool   `json:"killed"`
	// Reason says why the player lost or was killed; empty for the winner.
	Reason string `json:"reason"`
	// Rank is the finishing position, 1 for the winner.
	Rank int `json:"rank"`
	// Log is the bot's own log for this match (what the engine recorded of
	// its runs, output and failures). It goes to the bot's owner only.
	Log string `json:"-"`
}

// RuleSet is one hosted game.
type RuleSet interface {
	// Name is the rule set's stable identifier: entelect, brainjar, deepship
	// or hitandsunk.
	Name() string
	// Seats returns how many bots a match takes, at least and at most.
	Seats() (min, max int)
	// Play runs one match to its end. An error means the match could not be
	// played at all (for example the replay folder is not writable); anything
	// a bot does wrong is part of the result, never an error.
	Play(ctx context.Context, bots []Bot, opts Options) (*Summary, error)
	// Traits answers what the platform asks of the rule set besides
	// playing: titles, seat keys, map sizes, battle formats.
	Traits() Traits
}

// Traits are a rule set's answers to the questions the platform asks of
// a game by name, so that no package outside the rule set's own needs to
// know which game behaves how.
type Traits struct {
	// Title is the rule set's name as people write it ("Hit and Sunk").
	Title string
	// Origin says where the rules come from, in a few words ("the
	// Entelect Challenge 2017").
	Origin string
	// Protocol says how a bot talks to the engine, in a sentence.
	Protocol string
	// Unit names what a match's Summary.Rounds counts and its replay
	// steps through ("round", "shot", "turn"), so that pages count in it.
	Unit string
	// Manifest is the file at a bot folder's root that says how to run
	// it, and ManifestExample a small one, as the getting started page
	// shows them.
	Manifest, ManifestExample string
	// SeatKey is the key the rule set gives seat i (from 0) when the bot
	// brings none; nil means the seat's number ("0", "1", ...).
	SeatKey func(seat int) string
	// MapSizes are the map sizes a match may ask for, smallest first;
	// empty means the rule set has one map and Options.Size is ignored.
	MapSizes []MapSize
	// LadderMapSize is the map size of the platform's ladder and
	// challenge matches unless the portal is told otherwise; 0 means the
	// rule set's default.
	LadderMapSize int
	// FreeForAll says a battle of this game is one free-for-all of all
	// its entrants rather than two-player pairings.
	FreeForAll bool
	// WritesBotLogs says Play itself writes each bot's log into the
	// replay folder (Entelect, round by round); otherwise the local
	// command writes them at the end.
	WritesBotLogs bool
	// Python2 says the bare name "python" starts Python 2.7 where the
	// machine has one (else Python 3, with a note in the bot's log), as
	// on the original competition's machines; otherwise it is Python 3.
	Python2 bool
	// RunSh says the engine starts a bot's run.sh itself, through its #!
	// line (sh without one), executable or not, so run.sh is a start-up
	// script whose programs must be installed.
	RunSh bool
}

// MapSize is one map size a rule set offers.
type MapSize struct {
	Size int
	// Name says it in words ("small").
	Name string
}

// Key returns the key of seat i when the bot brings none.
func (t Traits) Key(seat int) string {
	if t.SeatKey != nil {
		return t.SeatKey(seat)
	}
	return strconv.Itoa(seat)
}
