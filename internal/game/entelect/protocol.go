package entelect

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/bytesize"
	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/game"
)

// Time limits of a bot turn (§6, policy §14.5).
const (
	cpuBudget   = 2 * time.Second
	wallKill    = 4 * time.Second
	maxBotLog   = 1 << 20
	maxCmdBytes = 64 << 10
	maxOutput   = 64 << 10
)

// seat is one player as the protocol runs it.
type seat struct {
	bot    game.Bot
	key    string
	name   string
	runner game.Runner
	// console reads a human player's commands.
	console *bufio.Reader
	// log is the bot's own log over the whole match (PlayerSummary.Log).
	log bytes.Buffer
	// roundLog is the current round's log.txt.
	roundLog turnLog
	// replay is what the bot's files and output may still add to the
	// replay; written holds the sizes of the round's state.json and map.txt
	// as the engine wrote them, which the bot does not pay for.
	replay  replayBudget
	written map[string]int64
	// turnDir, when set, is the one host folder that holds the seat's
	// round folder for every turn: confined turns in tournament mode show
	// it to the bot at the round folder's path, and it is emptied after
	// each turn, so a round costs no folder made and removed on the host.
	turnDir string
	// read is the command file the turn's command was read from, which
	// the replay takes as read rather than read again.
	read botFile
}

// botFile is a file of a bot's round folder, as read after its turn.
type botFile struct {
	name string
	data []byte
}

// turnLog collects one turn's log.txt lines.
type turnLog struct {
	buf bytes.Buffer
}

func (l *turnLog) add(level byte, format string, args ...any) {
	l.buf.WriteString(logLine(time.Now(), level, fmt.Sprintf(format, args...)))
}

// logLine formats a log line like the original harness:
// "22-11-2026 10:37:02:657 - I: \tmessage".
func logLine(t time.Time, level byte, msg string) string {
	return fmt.Sprintf("%s:%03d - %c: \t%s\n", t.Format("02-01-2006 15:04:05"), t.Nanosecond()/1e6, level, msg)
}

// turn runs player p's bot for the current round with its round folder at
// dir, whose files are at host on the host (the same folder, or the seat's
// turn folder shown at dir), and returns its command. Anything the bot
// does wrong yields a DoNothing whose reason goes to the log; the error is
// for the match itself (cancelled context).
func (m *match) turn(ctx context.Context, st *seat, dir, host string, l *turnLog) (Command, error) {
	st.read = botFile{}
	if st.bot.LoadError != nil {
		l.add('E', "Bot could not be loaded, it does nothing: %v", st.bot.LoadError)
		return Command{}, nil
	}
	if st.console != nil {
		return m.consoleTurn(st, l), nil
	}
	args := make([]string, 0, len(st.bot.Command)+2+len(st.bot.TrailingArgs))
	args = append(append(append(args, st.bot.Command...), st.key, dir), st.bot.TrailingArgs...)
	cmd := command.Cmd{
		Args:   args,
		Dir:    st.bot.Dir,
		Mounts: []command.Mount{{Source: host, Target: dir, Writable: true}},
		Limits: command.Limits{OutputBytes: maxOutput},
	}
	if !m.opts.NoLimit {
		cmd.Limits.WallTime = wallKill
	}
	// The log is its owner's to read: it names the bot's files as they are
	// in its folder, never where a worker happened to put them.
	l.add('I', "Executing process %s", commandLine(shownArgs(args, st.bot.Dir, dir)))
	if !m.opts.NoLimit {
		l.add('I', "Bot has %s of CPU time (%s plus %s for %s to start) and at most %s of wall time",
			ms(cpuBudget+st.bot.Calibration), ms(cpuBudget), ms(st.bot.Calibration), languageOf(st.bot), ms(wallKill))
	}
	res, err := st.runner.Run(ctx, cmd)
	if ctx.Err() != nil {
		return Command{}, fmt.Errorf("run bot %s: %w", st.key, ctx.Err())
	}
	if errors.Is(err, command.ErrPlatform) {
		return Command{}, fmt.Errorf("run bot %s: %w", st.key, err)
	}
	if err != nil {
		l.add('E', "Bot could not be started, it does nothing: %v", err)
		return Command{}, nil
	}
	// What the bot printed goes into the replay's log.txt: in tournament
	// mode it counts against the replay's caps, as its files do.
	var budget *replayBudget
	if m.replay.held != nil {
		budget = &st.replay
	}
	logOutput(l, 'I', res.Stdout, budget)
	logOutput(l, 'E', res.Stderr, budget)
	if res.Truncated {
		l.add('W', "Output cut at %d KiB of stdout and of stderr; the rest was dropped", maxOutput>>10)
	}
	// §6 --debug: the original printed the turn's log and waited for a key
	// press; the caller's Halt does the waiting. The bot's time was
	// measured already, so the pause costs it nothing.
	if err := m.opts.DebugStderr(ctx, res.Stderr, "Bot %s wrote to stderr in %s:\n%s",
		st.key, filepath.Base(filepath.Dir(dir)), l.buf.Bytes()); err != nil {
		return Command{}, fmt.Errorf("run bot %s: %w", st.key, err)
	}
	l.add('I', "Your bots total execution time was %s (CPU %s)", netDuration(res.Wall), netDuration(res.CPU))
	if !m.opts.NoLimit {
		l.add('I', "CPU time used: %s of its %s", ms(res.CPU), ms(cpuBudget+st.bot.Calibration))
	}
	switch {
	case res.TimedOut:
		l.add('E', "Bot was killed after %s of wall time, it does nothing this round", wallKill)
		return Command{}, nil
	case res.CPUExceeded:
		l.add('E', "Bot was killed at the sandbox's CPU-time limit, it does nothing this round")
		return Command{}, nil
	case !m.opts.NoLimit && res.CPU >= cpuBudget+st.bot.Calibration:
		l.add('E', "Bot used %s of CPU time, over its budget of %s (%s plus %s calibration): its command is ignored",
			res.CPU.Round(time.Millisecond), cpuBudget+st.bot.Calibration, cpuBudget, st.bot.Calibration)
		return Command{}, nil
	}
	if res.ExitCode != 0 || res.Signal != "" || res.MemoryExceeded {
		// The original never checks how the bot ended: a command written
		// before a crash still counts.
		l.add('W', "Bot ended badly (exit code %d%s%s); reading its command anyway", res.ExitCode,
			prefixed(", signal ", res.Signal), map[bool]string{true: ", memory limit exceeded"}[res.MemoryExceeded])
	}
	parsed, read := readCommand(host, l)
	st.read = read
	return parsed, nil
}

// readCommand reads place.txt, else command.txt, from a round folder: the
// original always tries place.txt first, in both phases (§1).
func readCommand(dir string, l *turnLog) (Command, botFile) {
	for _, name := range []string{"place.txt", "command.txt"} {
		data, err := readBotFile(filepath.Join(dir, name), maxCmdBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			l.add('E', "Could not read %s, doing nothing: %v", name, err)
			return Command{}, botFile{}
		}
		read := botFile{name: name, data: data}
		parse := ParseCommand
		if name == "place.txt" {
			parse = ParsePlace
		}
		cmd, err := parse(data)
		if err != nil {
			l.add('E', "Invalid %s, doing nothing: %v", name, err)
			return Command{}, read
		}
		return cmd, read
	}
	l.add('E', "Bot wrote neither place.txt nor command.txt, doing nothing")
	return Command{}, botFile{}
}

// consoleTurn prompts a human player and reads the command from the
// terminal: five place lines in phase 1, one "code,x,y" line in phase 2.
func (m *match) consoleTurn(st *seat, l *turnLog) Command {
	out := st.bot.Console.Out
	fmt.Fprintf(out, "%s\n", m.state.MapText(m.indexOf(st), m.names))
	lines := 1
	if m.state.Phase == 1 {
		lines = int(numShips)
		fmt.Fprintf(out, "Player %s (%s): place your ships, one per line as <ShipName> <x> <y> <Direction>:\n", st.key, st.name)
	} else {
		fmt.Fprintf(out, "Player %s (%s): enter code,x,y (0 nothing, 1 shot, 2/3 double, 4 corner, 5 diagonal cross, 6 cross, 7 seeker, 8 shield):\n", st.key, st.name)
	}
	var text strings.Builder
	for read := 0; read < lines; {
		line, err := st.console.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			text.WriteString(line)
			read++
		}
		if err != nil {
			break
		}
	}
	parse := ParseCommand
	if m.state.Phase == 1 {
		parse = ParsePlace
	}
	cmd, err := parse([]byte(text.String()))
	if err != nil {
		fmt.Fprintf(out, "Not understood, doing nothing: %v\n", err)
		l.add('E', "Invalid console input, doing nothing: %v", err)
		return Command{}
	}
	return cmd
}

// logOutput adds each line of a bot's output to the turn log. With b set,
// each line as logged is charged to b, and the lines that do not fit are
// left out and counted in one line: 64 KiB of empty lines made 3 MiB of
// log.txt.
func logOutput(l *turnLog, level byte, out []byte, b *replayBudget) {
	text := strings.TrimRight(strings.ToValidUTF8(string(out), "?"), "\r\n")
	var cut, cutBytes int64
	for _, line := range strings.Split(text, "\n") {
		entry := logLine(time.Now(), level, "Output from bot: "+strings.TrimRight(line, "\r"))
		if b != nil {
			n := int64(len(entry))
			if !b.fits(n) {
				cut++
				cutBytes += n
				continue
			}
			b.charge(n)
		}
		l.buf.WriteString(entry)
	}
	if cut > 0 {
		l.add('W', "replay: %d lines (%s) of your output were left out of log.txt (cap %s per round and %s per match, files included; %s of the match's left)",
			cut, bytesize.Format(cutBytes), bytesize.Format(MaxReplayRoundBytes), bytesize.Format(MaxReplayMatchBytes), bytesize.Format(b.left))
	}
}

// shownArgs is a turn's command line as its owner reads it: paths in the
// bot's folder relative to it, the round folder as the replay names it
// ("Phase 2 - Round 14/A"), and any other absolute path (an interpreter)
// by its file name.
func shownArgs(args []string, botDir, roundDir string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch rel, err := filepath.Rel(botDir, a); {
		case a == roundDir:
			out[i] = filepath.Join(filepath.Base(filepath.Dir(roundDir)), filepath.Base(roundDir))
		case filepath.IsAbs(a) && err == nil && filepath.IsLocal(rel):
			out[i] = rel
		case filepath.IsAbs(a):
			out[i] = filepath.Base(a)
		default:
			out[i] = a
		}
	}
	return out
}

// ms writes a duration in whole milliseconds, as budgets are stated.
func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + " ms" }

// languageOf names a bot's language for its log.
func languageOf(b game.Bot) string {
	if b.Language != "" {
		return b.Language
	}
	return "its language"
}

// commandLine shows a command as the original log does, quoting arguments
// with spaces.
func commandLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"") {
			a = `"` + a + `"`
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

// netDuration formats a duration like .NET TimeSpan ("00:00:00.1383091").
func netDuration(d time.Duration) string {
	h := d / time.Hour
	mnt := (d % time.Hour) / time.Minute
	sec := (d % time.Minute) / time.Second
	ticks := (d % time.Second) / 100
	return fmt.Sprintf("%02d:%02d:%02d.%07d", h, mnt, sec, ticks)
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
