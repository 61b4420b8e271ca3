// Package hitandsunk hosts "Hit and Sunk", the 2017 Code Golf free-for-all:
// up to 30 ships on one grid, each commanded by a bot called afresh for
// every decision with one ';'-separated argument, answering with a string of
// actions. The rules (Game) are pure and seeded; Play drives the bots
// through the sandbox runner and writes the replay.
package hitandsunk

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"os"
	"strconv"

	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/game"
)

// Name is the rule set's identifier.
const Name = "hitandsunk"

// MinShips is the smallest match.
const MinShips = 2

type ruleSet struct {
	// rounds is the game length: Rounds, shorter only in tests.
	rounds int
}

// New returns the Hit and Sunk rule set.
func New() game.RuleSet { return ruleSet{rounds: Rounds} }

// Name implements game.RuleSet.
func (ruleSet) Name() string { return Name }

// Seats implements game.RuleSet: a free-for-all of 2 to 30 bots.
func (ruleSet) Seats() (int, int) { return MinShips, MaxShips }

// Traits implements game.RuleSet: a battle is one free-for-all of all
// its entrants.
func (ruleSet) Traits() game.Traits {
	return game.Traits{
		Title:    "Hit and Sunk",
		Unit:     "round",
		Origin:   "the Hit and Sunk free-for-all (2017)",
		Protocol: "A fresh process per call gets the game as one ;-separated argument and prints an action string on stdout.",
		Manifest: "bot.json",
		ManifestExample: `{
  "Author": "Me",
  "NickName": "My bot",
  "BotType": "Python3",
  "RunFile": "bot.py",
  "Game": "hitandsunk"
}`,
		FreeForAll: true,
	}
}

// Play implements game.RuleSet. opts.Size is ignored: the grid side is
// always 30 plus the number of bots.
func (rs ruleSet) Play(ctx context.Context, bots []game.Bot, opts game.Options) (*game.Summary, error) {
	if len(bots) < MinShips || len(bots) > MaxShips {
		return nil, fmt.Errorf("hitandsunk: %d bots; a match takes %d to %d", len(bots), MinShips, MaxShips)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.ReplayDir != "" {
		if err := os.MkdirAll(opts.ReplayDir, 0o755); err != nil {
			return nil, fmt.Errorf("hitandsunk: create replay folder: %w", err)
		}
	}
	seats := make([]*seat, len(bots))
	for i, b := range bots {
		if b.Key == "" {
			b.Key = strconv.Itoa(i)
		}
		s := &seat{id: i, bot: b, runner: b.Runner, shown: opts.Names[b.Key]}
		if s.runner == nil {
			s.runner = opts.Runner
		}
		for _, n := range b.Notes {
			s.log.printf("note: %s\n", n)
		}
		switch {
		case b.LoadError != nil:
			s.noShip = fmt.Sprintf("not loaded: %v", b.LoadError)
		case b.Console != nil && (b.Console.In == nil || b.Console.Out == nil):
			return nil, fmt.Errorf("hitandsunk: console seat %d needs both input and output", i)
		case b.Console == nil && s.runner == nil:
			return nil, fmt.Errorf("hitandsunk: seat %d (%s): no runner to start it", i, s.label())
		case b.Console == nil && len(b.Command) == 0:
			s.noShip = "no command to run"
		}
		seats[i] = s
	}
	m := &match{opts: opts, log: log, seats: seats, rounds: rs.rounds, live: game.NewLiveReplay(opts)}
	if err := m.play(ctx); err != nil {
		return nil, err
	}
	sum := m.summary()
	if opts.ReplayDir != "" {
		if err := m.writeReplay(opts.ReplayDir, sum); err != nil {
			return nil, err
		}
		if opts.ReplayZip != nil {
			if err := botzip.WriteFolder(opts.ReplayZip, opts.ReplayDir, botzip.FolderOptions{}); err != nil {
				return nil, err
			}
		}
	}
	return sum, nil
}

// StepStart and StepRound label the steps of a match in its bots' logs
// (game.StepMark), as the viewer counts them: the start (the ship
// choice), then each round from 1.
const StepStart = "start"

// StepRound labels round n.
func StepRound(n int) string { return "round " + strconv.Itoa(n) }

// match is one game in progress.
type match struct {
	opts   game.Options
	log    *slog.Logger
	seats  []*seat
	rounds int
	g      *Game
	rep    replay
	// sunkBy records, per seat, who sank its ship.
	sunkBy map[int]int
	// live publishes the replay round by round while the game runs;
	// liveTurns counts the turns published.
	live      *game.LiveReplay
	liveTurns int
}

func (m *match) play(ctx context.Context) error {
	choices := make([]int, len(m.seats))
	for _, s := range m.seats {
		s.log.printf("%s", game.StepMark(StepStart))
		if s.noShip != "" {
			s.log.printf("no ship: %s\n", s.noShip)
			continue
		}
		stdout, failure, err := m.ask(ctx, s, nil)
		if err != nil {
			return fmt.Errorf("hitandsunk: ship choice of seat %d: %w", s.id, err)
		}
		if failure != "" {
			s.noShip = "ship choice failed: " + failure
			s.log.printf("no ship: %s\n", s.noShip)
			continue
		}
		st, err := ParseShipChoice(stdout)
		if err != nil {
			s.noShip = err.Error()
			s.log.printf("no ship: %s\n", s.noShip)
			continue
		}
		choices[s.id] = st.Choice
		s.log.printf("commands a %s\n", st.Name)
	}
	m.g = NewGame(rand.New(rand.NewSource(m.opts.Seed)), choices)
	m.sunkBy = map[int]int{}
	m.rep = newReplay(m)
	m.live.Start(ctx, m.rep.r)
	for round := 1; round <= m.rounds && !m.g.Over(); round++ {
		order := m.g.StartRound()
		m.engineLog("round %d, order %v\n", m.g.Round, order)
		for _, id := range order {
			if !m.g.Ship(id).Alive() {
				continue
			}
			if err := m.turn(ctx, id); err != nil {
				return err
			}
			if m.g.Over() {
				break
			}
		}
		m.rep.endRound(m.g, order)
		m.publishRound(ctx)
		if m.opts.Pretty != nil {
			drawGrid(m.opts.Pretty, m.g)
		}
	}
	return nil
}

// publishRound publishes the turns of the round just played and the
// board after it.
func (m *match) publishRound(ctx context.Context) {
	var ops []game.PatchOp
	for _, t := range m.rep.r.Turns[m.liveTurns:] {
		ops = append(ops, game.Append("/turns", t))
	}
	m.liveTurns = len(m.rep.r.Turns)
	ops = append(ops, game.Append("/roundEnds", m.rep.r.Ends[len(m.rep.r.Ends)-1]))
	m.live.Patch(ctx, ops...)
}

// turn plays one ship's turn: request, reply, actions.
func (m *match) turn(ctx context.Context, id int) error {
	s := m.seats[id]
	s.log.printf("%s", game.StepMark(StepRound(m.g.Round)))
	m.g.BeginTurn(id)
	req := m.g.Request(id)
	stdout, failure, err := m.ask(ctx, s, &req)
	if err != nil {
		return fmt.Errorf("hitandsunk: round %d, seat %d: %w", m.g.Round, id, err)
	}
	reply := "W"
	if failure == "" {
		reply = NormalizeReply(stdout)
	}
	res := m.g.Apply(id, reply)
	for _, e := range res.Events {
		if e.Kind == "sink" && e.Target != nil {
			m.sunkBy[*e.Target] = e.Ship
		}
		if e.Kind == "reject" || e.Kind == "abort" {
			s.log.printf("  %s\n", e.Note)
		}
		m.engineLog("  %s\n", e)
	}
	m.rep.addTurn(m.g.Round, id, failure, res)
	return nil
}

// ask gets one answer from the seat: from its process, or from the human
// at the console. An error means the match cannot go on (ctx ended, or the
// debug halt failed).
func (m *match) ask(ctx context.Context, s *seat, arg *string) (stdout, failure string, err error) {
	if s.bot.Console != nil {
		stdout, failure = askConsole(s.bot.Console, m.g, s.id, arg)
		return stdout, failure, ctx.Err()
	}
	r := s.call(ctx, arg, m.opts)
	if r.platformErr != nil {
		return "", "", r.platformErr
	}
	if r.failure != "" {
		m.log.Debug("hitandsunk call failed", "seat", s.id, "bot", s.label(), "reason", r.failure)
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	err = m.opts.DebugStderr(ctx, r.stderr, "Bot %s wrote to stderr:\n%s\n", s.label(), r.stderr)
	return r.stdout, r.failure, err
}

func (m *match) engineLog(format string, args ...any) {
	if m.opts.EngineLog != nil {
		fmt.Fprintf(m.opts.EngineLog, format, args...)
	}
}
