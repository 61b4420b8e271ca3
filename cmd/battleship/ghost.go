package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/broadside/broadside/internal/command"
)

// ghostRunner plays one Entelect seat from a recorded replay: each of the
// seat's turns copies the place.txt or command.txt the seat wrote in the
// same round of the recording into the new round folder, and starts no
// process. The engine then reads it as it reads any bot's command, so the
// ghost is held to the same rules as the bot it stands for.
type ghostRunner struct {
	fsys fs.FS  // the recorded replay
	root string // its folder of round folders inside fsys
	key  string // the seat's key, "A" or "B"
	// folders are the recording's round folders by round number.
	folders map[int]string

	mu sync.Mutex
	// outAt is the first round the recording has no turn of the seat for
	// (the new game lasts longer); -1 while it has had one every round.
	outAt int
}

// newGhost is the ghost of seat key of the recording in root of fsys.
func newGhost(fsys fs.FS, root, key string) (*ghostRunner, error) {
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, fmt.Errorf("read recording: %w", err)
	}
	g := &ghostRunner{fsys: fsys, root: root, key: key, folders: map[int]string{}, outAt: -1}
	for _, e := range entries {
		if n, ok := roundNumber(e.Name()); ok && e.IsDir() {
			g.folders[n] = e.Name()
		}
	}
	return g, nil
}

// Run writes the recorded command of the round whose folder is the
// turn's argument (the rule set runs a bot as COMMAND KEY ROUND_FOLDER).
func (g *ghostRunner) Run(_ context.Context, cmd command.Cmd) (command.Result, error) {
	if len(cmd.Args) < 3 {
		return command.Result{}, fmt.Errorf("ghost %s: no round folder in %q", g.key, cmd.Args)
	}
	dir := cmd.Args[2]
	round := filepath.Base(filepath.Dir(dir))
	rec := path.Join(g.root, round, g.key)
	if fi, err := fs.Stat(g.fsys, rec); err != nil || !fi.IsDir() {
		g.ranOut(round)
		return command.Result{Stdout: []byte("The recording has no turn of this seat for this round: doing nothing.\n")}, nil
	}
	if g.ignored(round, rec) {
		// The engine ignored what the bot wrote (it ran out of time), so
		// the ghost writes nothing, as the bot's turn counted.
		return command.Result{Stdout: []byte("The engine ignored this seat's recorded command: doing nothing.\n")}, nil
	}
	for _, name := range []string{"place.txt", "command.txt"} {
		data, err := fs.ReadFile(g.fsys, path.Join(rec, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		// A recording that cannot be read, or a round folder that cannot
		// be written, stops the match: a ghost doing nothing instead
		// would pass for the recorded bot's move.
		if err != nil {
			return command.Result{}, fmt.Errorf("ghost %s: %w: %w", g.key, command.ErrPlatform, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return command.Result{}, fmt.Errorf("ghost %s: %w: %w", g.key, command.ErrPlatform, err)
		}
	}
	return command.Result{Stdout: []byte("Recorded command written.\n")}, nil
}

// Start is refused: Entelect bots run one process per turn.
func (g *ghostRunner) Start(context.Context, command.Cmd) (command.Process, error) {
	return nil, errors.New("a ghost replays per-turn commands only")
}

func (g *ghostRunner) ranOut(round string) {
	n, ok := roundNumber(round)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.outAt < 0 || n < g.outAt {
		g.outAt = n
	}
}

// ranOutAt is the first round without a recorded turn, or -1.
func (g *ghostRunner) ranOutAt() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.outAt
}

// ignored reports whether the engine did not take what the seat wrote in
// round (recorded in rec): in phase 2 the next round's roundCommand.json,
// which every replay holds, shows each player's command as the engine took
// it, and a DoNothing there means the file, whatever it says, counted for
// nothing. Phase 1 records a player's placement only up to the first one
// that fails, so there the seat's log.txt decides, where the replay has it.
func (g *ghostRunner) ignored(round, rec string) bool {
	if n, ok := roundNumber(round); ok && strings.HasPrefix(round, "Phase 2 ") {
		var moves struct {
			Player1Move, Player2Move *struct{ CommandIssued *string }
		}
		next := path.Join(g.root, g.folders[n+1], "roundCommand.json")
		if _, found := g.folders[n+1]; found && readJSON(g.fsys, next, &moves) == nil {
			m := moves.Player1Move
			if g.key == "B" {
				m = moves.Player2Move
			}
			if m != nil && m.CommandIssued != nil {
				return *m.CommandIssued == "DoNothing"
			}
		}
	}
	return ignoredInLog(g.fsys, rec)
}

// ignoredInLog reports whether the recorded turn's log.txt says the engine did
// not take the bot's command (killed at its wall time or over its CPU
// budget): replaying the file would give the ghost a move the bot never
// made.
func ignoredInLog(fsys fs.FS, rec string) bool {
	data, err := fs.ReadFile(fsys, path.Join(rec, "log.txt"))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, "Output from bot:") {
			continue // what the bot printed proves nothing
		}
		if strings.Contains(line, "it does nothing this round") || strings.Contains(line, "its command is ignored") {
			return true
		}
	}
	return false
}
