package brainjar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"strconv"

	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/game"
)

// Name is the rule set's identifier.
const Name = "brainjar"

type ruleSet struct{}

// New returns the BrainJar rule set.
func New() game.RuleSet { return ruleSet{} }

// Name returns "brainjar".
func (ruleSet) Name() string { return Name }

// Seats returns 2, 2: a game is always between two bots.
func (ruleSet) Seats() (int, int) { return 2, 2 }

// Traits implements game.RuleSet.
func (ruleSet) Traits() game.Traits {
	return game.Traits{
		Title:    "BrainJar",
		Unit:     "shot",
		Origin:   "BrainJar battleships (2014)",
		Protocol: "A fresh process per request gets the game as compact JSON in one argument and answers with JSON on stdout.",
		Manifest: "bot.json",
		ManifestExample: `{
  "Author": "Me",
  "NickName": "My bot",
  "BotType": "Python3",
  "RunFile": "bot.py",
  "Game": "brainjar"
}`,
		// The BrainJar machines ran Python 2.7.3, and its engine ran run.sh.
		Python2: true,
		RunSh:   true,
	}
}

// match is one game being played.
type match struct {
	opts    game.Options
	players [2]*player
	logger  *slog.Logger
	replay  Replay
	// live publishes the replay shot by shot while the game runs.
	live *game.LiveReplay
}

// Play runs one game: both placements, then shots until one fleet is sunk or
// a bot fails.
func (ruleSet) Play(ctx context.Context, bots []game.Bot, opts game.Options) (*game.Summary, error) {
	if len(bots) != 2 {
		return nil, fmt.Errorf("brainjar: a game takes 2 bots, got %d", len(bots))
	}
	m := &match{opts: opts, logger: opts.Logger, live: game.NewLiveReplay(opts)}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
	m.replay = Replay{Game: Name, Version: ReplayVersion, Seed: opts.Seed, First: -1}
	for i, b := range bots {
		p := &player{bot: b, key: b.Key, name: b.Name, runner: b.Runner, log: game.NewBotLog(logBytes)}
		if p.key == "" {
			p.key = fmt.Sprint(i)
		}
		if p.runner == nil {
			p.runner = opts.Runner
		}
		for _, n := range b.Notes {
			p.log.Printf("note: %s\n", n)
		}
		if b.LoadError != nil && hasRunSh(b.Dir) {
			p.log.Printf("note: %v; run.sh is run as the original engine did\n", b.LoadError)
		}
		if p.runner == nil && b.Console == nil && b.LoadError == nil {
			return nil, fmt.Errorf("brainjar: no runner for bot %s", p.key)
		}
		m.players[i] = p
		m.replay.Players = append(m.replay.Players, ReplayPlayer{Key: p.key, Name: p.name})
	}
	if err := game.PrepareReplayDir(opts.ReplayDir); err != nil {
		return nil, err
	}
	g, outcome, err := m.play(ctx)
	if err != nil {
		return nil, err
	}
	sum := m.summary(g, outcome)
	m.replay.Winner = sum.Winner
	if g != nil {
		m.replay.Moves = g.Moves()
	}
	if err := writeReplay(opts.ReplayDir, &m.replay); err != nil {
		return nil, err
	}
	if opts.ReplayZip != nil {
		if err := botzip.WriteFolder(opts.ReplayZip, opts.ReplayDir, botzip.FolderOptions{}); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// StepPlacement and StepShot label the steps of a game in its bots' logs
// (game.StepMark), as the viewer counts them: the placement, then each
// shot from 1.
const StepPlacement = "placement"

// StepShot labels the request that fires shot n.
func StepShot(n int) string { return "shot " + strconv.Itoa(n) }

// outcome is how a game ended: winner -1 is a draw; reasons[p] says why
// player p lost.
type outcome struct {
	winner  int
	reasons [2]string
	shots   int
}

func (m *match) play(ctx context.Context) (*Game, outcome, error) {
	var fleets [2]Fleet
	var failed [2]string
	for i, p := range m.players {
		p.log.Step(StepPlacement)
		out, err := p.request(ctx, []byte(`{"cmd":"init"}`), m.opts)
		if err != nil {
			var be *errBot
			if !errors.As(err, &be) {
				return nil, outcome{}, err
			}
			failed[i] = be.reason
			continue
		}
		fleet, err := ParsePlacement(out)
		if err != nil {
			failed[i] = "rejected placement: " + err.Error()
			p.log.Printf("%s\n", failed[i])
			continue
		}
		fleets[i] = fleet
		m.replay.Players[i].Ships = replayShips(fleet)
	}
	for i := range failed {
		m.replay.Players[i].Error = failed[i]
	}
	switch {
	case failed[0] != "" && failed[1] != "":
		m.engineLog("both placements rejected: draw")
		return nil, outcome{winner: -1, reasons: failed}, nil
	case failed[0] != "":
		return nil, outcome{winner: 1, reasons: failed}, nil
	case failed[1] != "":
		return nil, outcome{winner: 0, reasons: failed}, nil
	}
	rng := rand.New(rand.NewSource(m.opts.Seed))
	first := rng.Intn(2)
	m.replay.First = first
	m.live.Start(ctx, m.replay)
	m.engineLog("player %s shoots first", m.players[first].key)
	g := NewGame(fleets, first)
	out := outcome{}
	for {
		if w, over := g.Winner(); over {
			out.winner = w
			out.reasons[1-w] = "all ships sunk"
			return g, out, nil
		}
		cur := g.Current()
		p := m.players[cur]
		p.log.Step(StepShot(out.shots + 1))
		req, err := json.Marshal(g.Snapshot(cur))
		if err != nil {
			return nil, outcome{}, fmt.Errorf("encode snapshot: %w", err)
		}
		reply, err := p.request(ctx, req, m.opts)
		if err != nil {
			var be *errBot
			if !errors.As(err, &be) {
				return nil, outcome{}, err
			}
			return g, m.lose(cur, be.reason, out), nil
		}
		cell, err := ParseMove(reply)
		if err != nil {
			return g, m.lose(cur, "illegal move: "+err.Error(), out), nil
		}
		res, err := g.Shoot(cell)
		if err != nil {
			return g, m.lose(cur, "illegal move: "+err.Error(), out), nil
		}
		out.shots++
		shot := ReplayShot{Player: cur, Cell: cell.String(), Result: res.String()}
		m.replay.Shots = append(m.replay.Shots, shot)
		m.live.Patch(ctx, game.Append("/shots", shot))
		m.engineLog("shot %d: player %s fires at %s: %s", out.shots, p.key, cell, res)
		if m.opts.Pretty != nil {
			drawGrids(m.opts.Pretty, g, m.players[0].name, m.players[1].name)
		}
	}
}

// lose ends the game with player p losing for reason.
func (m *match) lose(p int, reason string, out outcome) outcome {
	m.players[p].log.Printf("lost: %s\n", reason)
	m.engineLog("player %s loses: %s", m.players[p].key, reason)
	out.winner = 1 - p
	out.reasons[p] = reason
	return out
}

func (m *match) engineLog(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	m.logger.Debug(msg, "game", Name)
	if m.opts.EngineLog != nil {
		_, _ = io.WriteString(m.opts.EngineLog, msg+"\n")
	}
}

// summary turns the outcome into the rule-set-independent summary. Points
// are the enemy ship cells hit.
func (m *match) summary(g *Game, out outcome) *game.Summary {
	sum := &game.Summary{Game: Name, Rounds: out.shots, Seed: m.opts.Seed}
	if out.winner >= 0 {
		k := m.players[out.winner].key
		sum.Winner = &k
	}
	for i, p := range m.players {
		ps := game.PlayerSummary{Key: p.key, Name: p.name, Reason: out.reasons[i], Rank: 1, Log: p.log.String()}
		if out.winner >= 0 && out.winner != i {
			ps.Rank = 2
		}
		if g != nil {
			ps.ShotsFired, ps.ShotsLanded, ps.ShipsLeft = g.Stats(i)
			ps.Points = ps.ShotsLanded
			ps.Killed = ps.ShipsLeft == 0
		}
		sum.Players = append(sum.Players, ps)
	}
	return sum
}
