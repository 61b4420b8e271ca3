package entelect

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/broadside/broadside/internal/game"
)

// ruleSet is the Entelect 2017 game as the platform sees it.
type ruleSet struct{}

// New returns the Entelect Challenge 2017 rule set ("entelect", 2 seats).
func New() game.RuleSet { return ruleSet{} }

// Name is the rule set's name in manifests, URLs and the database.
const Name = "entelect"

// Name returns "entelect".
func (ruleSet) Name() string { return Name }

// Seats returns 2, 2: the game is always one against one.
func (ruleSet) Seats() (int, int) { return 2, 2 }

// Traits implements game.RuleSet: seats A and B, three map sizes, and the
// bots' logs written into the replay round by round.
func (ruleSet) Traits() game.Traits {
	return game.Traits{
		Title:    "Entelect",
		Unit:     "round",
		Origin:   "the Entelect Challenge 2017 (release 1.2.2)",
		Protocol: "A fresh process per round reads state.json and map.txt from its round folder and writes place.txt or command.txt.",
		Manifest: "bot.json",
		ManifestExample: `{
  "Author": "Me",
  "NickName": "My bot",
  "BotType": "Python3",
  "RunFile": "bot.py"
}`,
		SeatKey:       Key,
		MapSizes:      []game.MapSize{{Size: 1, Name: "small"}, {Size: 2, Name: "medium"}, {Size: 3, Name: "large"}},
		LadderMapSize: 2,
		WritesBotLogs: true,
	}
}

// match is one match being played through the file protocol.
type match struct {
	opts   game.Options
	state  State
	seats  [2]*seat
	names  [2]string
	infos  [2]game.BotInfo
	replay *replayWriter
	// engineLog holds the current round's engine.log lines.
	engineLog bytes.Buffer
	// public holds the current round's root files for Options.Progress;
	// published counts the rounds handed over.
	public    map[string]string
	published int
	logger    *slog.Logger
}

// Play runs one match (see game.RuleSet). The replay folder is written to
// opts.ReplayDir; bots run one after the other, A then B, as in the
// original, each with its player key and its round folder as arguments.
func (ruleSet) Play(ctx context.Context, bots []game.Bot, opts game.Options) (*game.Summary, error) {
	m, err := newMatch(bots, opts)
	if err != nil {
		return nil, fmt.Errorf("entelect: %w", err)
	}
	m.logger.Debug("entelect match starting", "size", m.state.N, "replay_dir", m.replay.dir, "tournament", opts.Tournament)
	playErr := m.play(ctx)
	m.removeTurnFolders()
	// Cached files are written even when the match broke off, as the
	// original flushes its cache after an exception.
	if err := errors.Join(playErr, m.replay.flush()); err != nil {
		return nil, fmt.Errorf("entelect: %w", err)
	}
	sum := m.summary()
	m.logger.Info("entelect match finished", "winner", *sum.Winner, "rounds", sum.Rounds,
		"points_a", sum.Players[0].Points, "points_b", sum.Players[1].Points)
	return sum, nil
}

func newMatch(bots []game.Bot, opts game.Options) (*match, error) {
	if len(bots) != 2 {
		return nil, fmt.Errorf("number of players should be 2, got %d", len(bots))
	}
	m := &match{opts: opts, state: NewState(opts.Size), logger: opts.Logger}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
	for i, b := range bots {
		st := &seat{bot: b, key: Key(i), name: b.Name, runner: b.Runner, replay: newReplayBudget()}
		if st.name == "" {
			st.name = "Player " + st.key
		}
		m.infos[i] = b.Meta
		for _, n := range b.Notes {
			fmt.Fprintf(&st.log, "note: %s\n", n)
		}
		switch {
		case b.Console != nil:
			if b.Console.In == nil || b.Console.Out == nil {
				return nil, fmt.Errorf("console player %s needs both input and output", st.key)
			}
			st.console = bufio.NewReader(b.Console.In)
			m.infos[i] = game.BotInfo{Author: st.name, NickName: st.name, Email: st.name}
		case b.LoadError != nil:
		case b.Dir == "" || len(b.Command) == 0:
			return nil, fmt.Errorf("bot %s has no folder or command", st.key)
		case st.runner == nil:
			if opts.Runner == nil {
				return nil, fmt.Errorf("no runner for bot %s", st.key)
			}
			st.runner = opts.Runner
		}
		m.seats[i], m.names[i] = st, st.name
	}
	// Last, so that a match refused above leaves no private folder behind.
	w, err := newReplayWriter(opts.ReplayDir, opts.Tournament, opts.ReplayZip)
	if err != nil {
		return nil, err
	}
	m.replay = w
	if m.together() && w.held != nil {
		for _, st := range m.seats {
			st.turnDir = filepath.Join(w.dir, turnsFolder, st.key)
		}
	}
	return m, nil
}

// turnsFolder, in the replay folder, holds the seats' turn folders
// (seat.turnDir). The bots never see it: a confined turn is shown only
// its own round folder.
const turnsFolder = ".turns"

// takeFolder reads player p's round folder rel after its turn, for the
// replay (tournament mode only; nil otherwise). A turn folder that could
// not be emptied is given up: the seat's later rounds use round folders
// of their own, so nothing left in it is read again. It touches only the
// seat's own state, so the two seats' calls may run at once.
func (m *match) takeFolder(p int, rel string) *folderTake {
	if m.replay.held == nil {
		return nil
	}
	st := m.seats[p]
	// The protocol files are free up to what the engine wrote or reads.
	free := map[string]int64{"place.txt": maxCmdBytes, "command.txt": maxCmdBytes}
	for name, n := range st.written {
		free[name] = n
	}
	keep := st.turnDir != ""
	t := takeFolder(rel, m.roundDir(p, rel), keep, &st.replay, free, st.read)
	if keep && !t.emptied {
		st.turnDir = ""
	}
	return &t
}

// removeTurnFolders removes the seats' turn folders at the end of a match
// that had them; what a bot left unremovable stays for the caller's
// clean-up.
func (m *match) removeTurnFolders() {
	if m.together() && m.replay.held != nil {
		_ = os.RemoveAll(filepath.Join(m.replay.dir, turnsFolder))
	}
}

// roundDir returns where player p's files of the round folder rel are on
// the host: its turn folder, or the round folder itself.
func (m *match) roundDir(p int, rel string) string {
	if d := m.seats[p].turnDir; d != "" {
		return d
	}
	return m.replay.path(rel)
}

// folder names a round folder as the original does.
func folder(s *State) string { return fmt.Sprintf("Phase %d - Round %d", s.Phase, s.Round) }

// progress hands the round's public root files to Options.Progress.
func (m *match) progress(ctx context.Context, round string) {
	if m.opts.Progress != nil {
		m.opts.Progress(ctx, game.RoundProgress{Seq: m.published, Name: round, Files: m.public})
	}
	m.published++
}

// engine adds a line to the engine log (and --clog).
func (m *match) engine(level byte, format string, args ...any) {
	line := logLine(time.Now(), level, fmt.Sprintf(format, args...))
	m.engineLog.WriteString(line)
	if m.opts.EngineLog != nil {
		io.WriteString(m.opts.EngineLog, line)
	}
}

func (m *match) indexOf(st *seat) int {
	if st == m.seats[0] {
		return 0
	}
	return 1
}

// writeRoot writes a round's root files (§3.5 step 1) and keeps them for
// Progress.
func (m *match) writeRoot() error {
	s := &m.state
	dir := folder(s)
	files := []struct {
		name string
		data []byte
	}{
		{"state.json", s.RootStateJSON(m.names)},
		{"A - map.txt", s.MapText(0, m.names)},
		{"B - map.txt", s.MapText(1, m.names)},
		{"roundInfo.json", s.RoundInfoJSON(m.infos)},
		{"roundCommand.json", s.RoundCommandJSON()},
	}
	m.public = map[string]string{}
	for _, f := range files {
		if err := m.replay.write(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
		m.public[f.name] = string(f.data)
	}
	if m.opts.Pretty != nil {
		fmt.Fprintf(m.opts.Pretty, "%s\n%s\n%s\n", dir, s.MapText(0, m.names), s.MapText(1, m.names))
	}
	return nil
}

// playerFiles are the files the engine writes into a player's round
// folder each turn.
var playerFiles = [2]string{"state.json", "map.txt"}

// writePlayerFiles writes player p's state.json and map.txt into its round
// folder; these are always written at once, since the bot reads them.
func (m *match) writePlayerFiles(rel string, p int) error {
	state, mapText := m.state.PlayerStateJSON(p, m.names), m.state.MapText(p, m.names)
	m.seats[p].written = map[string]int64{playerFiles[0]: int64(len(state)), playerFiles[1]: int64(len(mapText))}
	return m.replay.writeBotFiles(m.roundDir(p, rel), playerFiles, [2][]byte{state, mapText})
}

func (m *match) play(ctx context.Context) error {
	s := &m.state
	for i := range m.seats {
		m.engine('I', "Registered player %s", m.names[i])
	}
	var lastRound string
	// ran says which players' bots ran in the last round played.
	var ran [2]bool
	for !s.Over() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("match stopped in round %d: %w", s.Round, err)
		}
		// The rounds before the last are final: to the archive with them.
		if err := m.replay.seal(lastRound); err != nil {
			return err
		}
		if err := m.writeRoot(); err != nil {
			return err
		}
		round := folder(s)
		cmds, has, err := m.playTurns(ctx, round, &ran)
		if err != nil {
			return err
		}
		if err := m.processRound(ctx, round, cmds, has, ran); err != nil {
			return err
		}
		lastRound = round
	}
	return m.writeFinal(ctx, lastRound, ran)
}

// playTurns plays both players' turns of a round: each player's start of
// turn, its files, its bot, its command. has says which players had a
// turn (were not killed at its start); ran is set to which bots ran.
func (m *match) playTurns(ctx context.Context, round string, ran *[2]bool) (cmds [2]Command, has [2]bool, err error) {
	s := &m.state
	// Each player's folder is written right after its own start-of-turn
	// checks, as the original does, so neither sees a kill of the other
	// decided later in the round. Confined bots then run together: each
	// sees only its own folder, so their commands are those of running
	// them one after the other, and the round costs the slower bot, not
	// both. Unconfined bots run one after the other, each turn ended
	// before the other's folder is written, as in the original.
	var turns [2]turnResult
	// record ends player p's turn: its kill, or its command and logs.
	record := func(p int) error {
		st := m.seats[p]
		if !has[p] {
			m.engine('W', "Player %s is killed: %s", m.names[p], s.Players[p].KillReason)
			fmt.Fprintf(&st.log, "%s: %s\n", round, s.Players[p].KillReason)
			ran[p] = false
			return nil
		}
		cmd, err := m.finishTurn(st, p, round, turns[p])
		if err != nil {
			return err
		}
		cmds[p], ran[p] = cmd, true
		m.engine('I', "Added Command %s for Player %s", engineNames[cmd.Code], m.names[p])
		return nil
	}
	together := m.together()
	for p := range m.seats {
		if has[p] = s.StartTurn(p); has[p] {
			if err := m.writePlayerFiles(filepath.Join(round, m.seats[p].key), p); err != nil {
				return cmds, has, err
			}
		}
		if together {
			continue
		}
		if has[p] {
			if err := m.runTurn(ctx, p, round, &turns[p]); err != nil {
				return cmds, has, err
			}
		}
		if err := record(p); err != nil {
			return cmds, has, err
		}
	}
	if together {
		if err := m.runTogether(ctx, has, round, &turns); err != nil {
			return cmds, has, err
		}
		for p := range m.seats {
			if err := record(p); err != nil {
				return cmds, has, err
			}
		}
	}
	return cmds, has, nil
}

// processRound applies the round's commands, tells the bots whose command
// failed, and writes the round's engine.log.
func (m *match) processRound(ctx context.Context, round string, cmds [2]Command, has, ran [2]bool) error {
	s := &m.state
	m.engine('D', "Beginning round processing")
	m.engine('D', "Processing Player Commands")
	phase := s.Phase
	out := s.Step(cmds, has)
	for p, err := range out.Errs {
		if err != nil {
			m.engine('W', "Command %s of player %s failed: %v", cmds[p].Code, m.names[p], err)
			if err := m.notify(p, round, ran[p], failureNotice(cmds[p].Code, m.names[p], err)); err != nil {
				return err
			}
		}
	}
	if phase == 1 && s.Phase == 1 {
		for p := range m.seats {
			if err := m.notify(p, round, ran[p], firstRoundFailed); err != nil {
				return err
			}
		}
	}
	m.engine('D', "Killing off players who have no ships left")
	for p, killed := range out.Killed {
		if killed {
			m.engine('D', "Killed player %s", m.names[p])
		}
	}
	m.engine('D', "Round processing complete")
	if err := m.replay.write(filepath.Join(round, "engine.log"), bytes.Clone(m.engineLog.Bytes())); err != nil {
		return err
	}
	m.public["engine.log"] = m.engineLog.String()
	m.progress(ctx, round)
	m.engineLog.Reset()
	return nil
}

// writeFinal writes the final, root-only folder, then overwrites the last
// round's player files with the final state (§3.5).
func (m *match) writeFinal(ctx context.Context, lastRound string, ran [2]bool) error {
	s := &m.state
	if err := m.writeRoot(); err != nil {
		return err
	}
	m.progress(ctx, folder(s))
	for p, st := range m.seats {
		if !ran[p] || st.console != nil || lastRound == "" {
			continue
		}
		rel := filepath.Join(lastRound, st.key)
		if err := m.replay.write(filepath.Join(rel, "state.json"), s.PlayerStateJSON(p, m.names)); err != nil {
			return err
		}
		if err := m.replay.write(filepath.Join(rel, "map.txt"), s.MapText(p, m.names)); err != nil {
			return err
		}
	}
	return nil
}

// turnResult is one bot's turn: its command, its log.txt so far and, in
// tournament mode, what its round folder gave the replay.
type turnResult struct {
	cmd  Command
	log  turnLog
	take *folderTake
}

// together reports whether the bots of a round may run at once: each is
// confined to its own folder, and no console player or --debug pause needs
// one turn at a time.
func (m *match) together() bool {
	if !m.opts.ConfinedTurns || m.opts.Debug {
		return false
	}
	for _, st := range m.seats {
		if st.console != nil {
			return false
		}
	}
	return true
}

// runTurn runs player p's bot for the round into t, then reads what it
// left in its round folder: with the bots run at once, while the other
// one may still be running.
func (m *match) runTurn(ctx context.Context, p int, round string, t *turnResult) error {
	st := m.seats[p]
	st.replay.newRound()
	var err error
	rel := filepath.Join(round, st.key)
	t.cmd, err = m.turn(ctx, st, m.replay.path(rel), m.roundDir(p, rel), &t.log)
	if err != nil {
		return err
	}
	t.take = m.takeFolder(p, rel)
	return nil
}

// runTogether runs the bots of the players in has at once.
func (m *match) runTogether(ctx context.Context, has [2]bool, round string, out *[2]turnResult) error {
	var errs [2]error
	var wg sync.WaitGroup
	for p := range m.seats {
		if has[p] {
			wg.Go(func() { errs[p] = m.runTurn(ctx, p, round, &out[p]) })
		}
	}
	wg.Wait()
	return errors.Join(errs[:]...)
}

// finishTurn records player p's turn: warnings, the files the bot left,
// its log.txt and the bot's match log.
func (m *match) finishTurn(st *seat, p int, round string, t turnResult) (Command, error) {
	rel := filepath.Join(round, st.key)
	cmd, l := t.cmd, &t.log
	if n := m.state.Players[p].DoNothings; cmd.Code == DoNothing && n+1 >= 10 {
		l.add('W', "Bot has done nothing %d rounds in a row; at %d it is killed", n+1, maxDoNothings)
	}
	if t.take != nil {
		for _, n := range t.take.notes {
			l.add('W', "%s", n)
		}
		m.replay.hold(t.take.files)
	}
	st.roundLog = *l
	if err := m.replay.write(filepath.Join(rel, "log.txt"), l.buf.Bytes()); err != nil {
		return Command{}, err
	}
	if st.log.Len() < maxBotLog {
		fmt.Fprintf(&st.log, "=== %s ===\n", round)
		st.log.Write(l.buf.Bytes())
	}
	return cmd, nil
}

// firstRoundFailed is the original harness's notice to every player when a
// placement round has to be played again.
const firstRoundFailed = "The first round has failed due to a bot's ships not all being placed"

// failureNotice is the original harness's notice of a failed command, with
// the reason the original gives for a phase-1 round without a placement.
func failureNotice(code Code, name string, err error) string {
	reason := err.Error()
	if errors.Is(err, errNoPlacement) {
		reason = fmt.Sprintf("There was a problem during the placement of player's %s ships (DoNothing), the round will be played over", name)
	}
	return fmt.Sprintf("Player Command %s failed because %s", engineNames[code], reason)
}

// notify adds a notice of the round's processing to player p's log.txt of
// that round (written again) and to its match log, as the original wrote
// its failure notices to the bot's log as well as the engine's. ran is
// false when the bot did not run this round: it has no log.txt then.
func (m *match) notify(p int, round string, ran bool, msg string) error {
	st := m.seats[p]
	if !ran {
		fmt.Fprintf(&st.log, "%s: %s\n", round, msg)
		return nil
	}
	st.roundLog.add('I', "%s", msg)
	if st.log.Len() < maxBotLog {
		st.log.WriteString(logLine(time.Now(), 'I', msg))
	}
	return m.replay.write(filepath.Join(round, st.key, "log.txt"), bytes.Clone(st.roundLog.buf.Bytes()))
}
