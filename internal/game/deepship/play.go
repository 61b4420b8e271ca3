package deepship

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"time"

	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/game"
)

// Name is the rule set's identifier.
const Name = "deepship"

// Timing and penalties (see docs/deepship.md).
const (
	// GamesPerRound is how many games one match (a round) has.
	GamesPerRound = 3
	// PlaceTime is the placement allowance of each game.
	PlaceTime = 3 * time.Second
	// MoveTime is the allowance of one move.
	MoveTime = time.Second
	// grace is how long after its allowance an answer is still taken, at one
	// penalty point per started second; then the request is given up.
	grace = 2 * time.Second
	// SkipPenalty is what a request given up costs.
	SkipPenalty = 3
	// InvalidPenalty is what an invalid placement or shot costs.
	InvalidPenalty = 5
	// maxSkips consecutive skipped turns make a bot unresponsive.
	maxSkips = 3
	// MaxTurns ends a game that does not finish (both bots re-firing): both
	// lose it.
	MaxTurns = 1000
	// roundWallTime and roundCPUTime bound one process over a whole round;
	// they replace the runner's per-turn defaults.
	roundWallTime = 2 * time.Hour
	roundCPUTime  = 4 * time.Hour
	// exitGrace is how long a bot may take to exit by itself once its
	// input is closed at the end of the round, before it is killed.
	exitGrace = time.Second
	// stderrBytes is how much of a process's stderr is kept for its log.
	stderrBytes = 256 << 10
	// logBytes caps a bot's log of one match.
	logBytes = 512 << 10
)

type ruleSet struct{}

// New returns the In Deep Ship rule set.
func New() game.RuleSet { return ruleSet{} }

// Name returns "deepship".
func (ruleSet) Name() string { return Name }

// Seats returns 2, 2: a round is always between two contestants.
func (ruleSet) Seats() (int, int) { return 2, 2 }

// Traits implements game.RuleSet.
func (ruleSet) Traits() game.Traits {
	return game.Traits{
		Title:    "In Deep Ship",
		Unit:     "turn",
		Origin:   "the In Deep Ship tournament (2025)",
		Protocol: "One process plays a round of three games; it reads one message per line on stdin and answers on stdout.",
		Manifest: "entry.zon",
		ManifestExample: `.{
    .name = "My bot",
    .runnable = "src/main.py",
    .img = "assets/icon.png",
    .emote = "assets/emote.mp3",
}`,
	}
}

// round is one round of three games being played.
type round struct {
	opts    game.Options
	logger  *slog.Logger
	players [2]*player
	replay  Replay
	turns   int
	// haltErr is the first error of the debug halt; the round ends on it
	// at the next game, as on a cancelled context.
	haltErr error
	// live publishes the replay turn by turn while the round runs;
	// liveGame says the current game was published, liveEvents how many
	// of its events.
	live       *game.LiveReplay
	liveGame   bool
	liveEvents int
}

// Play runs one round: three games between the same two processes, the
// starting player alternating, restarts and forfeits as documented.
func (ruleSet) Play(ctx context.Context, bots []game.Bot, opts game.Options) (*game.Summary, error) {
	if len(bots) != 2 {
		return nil, fmt.Errorf("deepship: a round takes 2 bots, got %d", len(bots))
	}
	m := &round{opts: opts, logger: opts.Logger, live: game.NewLiveReplay(opts)}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
	m.replay = Replay{Game: Name, Version: ReplayVersion, Seed: opts.Seed}
	for i, b := range bots {
		p := &player{idx: i, bot: b, key: b.Key, name: b.Name, runner: b.Runner, log: game.NewBotLog(logBytes),
			seed: PlayerSeed(opts.Seed, i)}
		if p.key == "" {
			p.key = fmt.Sprint(i)
		}
		if p.runner == nil {
			p.runner = opts.Runner
		}
		for _, n := range b.Notes {
			p.log.Printf("note: %s\n", n)
		}
		// A process's stderr is only complete once it has ended (it is
		// restarted or the round is over), so that is when debug mode
		// shows it and halts.
		p.onStderr = func(stderr string) {
			err := opts.DebugStderr(ctx, []byte(stderr), "Bot %s wrote to stderr:\n%s\n", p.key, stderr)
			if m.haltErr == nil {
				m.haltErr = err
			}
		}
		if p.runner == nil && b.Console == nil && b.LoadError == nil {
			return nil, fmt.Errorf("deepship: no runner for bot %s", p.key)
		}
		m.players[i] = p
		m.replay.Players = append(m.replay.Players, ReplayPlayer{Key: p.key, Name: p.name})
	}
	if err := game.PrepareReplayDir(opts.ReplayDir); err != nil {
		return nil, err
	}
	err := m.play(ctx)
	// Both bots see their input end at once, and each may then finish
	// what it writes on stderr (its log) and exit by itself: a kill at a
	// moment of the machine's choosing would cut the log at a different
	// line each time. Without time limits they take as long as they need.
	grace := exitGrace
	switch {
	case ctx.Err() != nil:
		grace = 0 // the match is being cut short
	case opts.NoLimit:
		grace = -1
	}
	for _, p := range m.players {
		if p.conn != nil {
			p.conn.hangUp()
		}
	}
	for _, p := range m.players {
		p.stop("round over", grace)
	}
	if err == nil {
		err = m.haltErr
	}
	if err != nil {
		return nil, err
	}
	sum := m.summary()
	m.replay.Winner = sum.Winner
	for i, p := range m.players {
		m.replay.Players[i].Score = p.score
		m.replay.Players[i].Points = p.score.Points()
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

// platformErr is why the platform could not start a player's program, if
// it could not.
func (m *round) platformErr() error {
	for _, p := range m.players {
		if p.platformErr != nil {
			return fmt.Errorf("start %s: %w", p.bot.Name, p.platformErr)
		}
	}
	return nil
}

func (m *round) play(ctx context.Context) error {
	for _, p := range m.players {
		if p.bot.LoadError != nil {
			p.forfeit(fmt.Sprintf("bot could not be loaded: %v", p.bot.LoadError))
			continue
		}
		p.start(ctx)
	}
	if err := m.platformErr(); err != nil {
		return err
	}
	rng := rand.New(rand.NewSource(m.opts.Seed))
	first := rng.Intn(2)
	m.live.Start(ctx, m.replay)
	for gi := range GamesPerRound {
		if err := cmp.Or(ctx.Err(), m.haltErr); err != nil {
			return err
		}
		for _, p := range m.players {
			if p.conn != nil {
				// A program that ended since its last request is restarted
				// now rather than failing the game about to start.
				p.discardStale("before the game")
				if p.conn.eof {
					p.failure = "the program ended"
					p.fail()
				}
			}
			if !p.out && p.conn == nil {
				p.start(ctx)
			}
		}
		if err := m.platformErr(); err != nil {
			return err
		}
		starter := (first + gi) % 2
		rg := ReplayGame{Number: gi + 1, Starter: starter, Winner: nil}
		if err := m.playGame(ctx, &rg); err != nil {
			return err
		}
		m.publishGameEnd(ctx, &rg)
		m.replay.Games = append(m.replay.Games, rg)
		for _, p := range m.players {
			if p.failure != "" {
				p.fail()
			}
		}
	}
	return nil
}

// playGame plays one game and records it in rg.
func (m *round) playGame(ctx context.Context, rg *ReplayGame) error {
	p0, p1 := m.players[0], m.players[1]
	if p0.out || p1.out {
		// A contestant that forfeited the round loses its games unplayed.
		return m.endGame(rg, !p0.out, !p1.out, "forfeit")
	}
	m.markStep(StepPlacement(rg.Number))
	placed, err := m.placement(ctx, rg)
	if err != nil {
		return err
	}
	for i, p := range m.players {
		if placed[i] {
			rg.Ships[i] = replayShips(p.board.Ships())
		}
	}
	if !placed[0] || !placed[1] {
		return m.endGame(rg, placed[0], placed[1], "placement")
	}
	m.publishGame(ctx, rg)
	cur := rg.Starter
	for turn := 0; ; turn++ {
		m.publishEvents(ctx, rg)
		if p0.board.AllSunk() || p1.board.AllSunk() {
			return m.endGame(rg, !p0.board.AllSunk(), !p1.board.AllSunk(), "sunk")
		}
		if turn >= MaxTurns {
			return m.endGame(rg, false, false, "turn limit")
		}
		p, foe := m.players[cur], m.players[1-cur]
		m.turns++
		m.markStep(StepTurn(rg.Number, len(rg.Events)+1))
		c, ok, err := m.takeTurn(ctx, p, rg)
		if err != nil {
			return err
		}
		if p.failure != "" {
			won := [2]bool{}
			won[1-cur] = true
			return m.endGame(rg, won[0], won[1], "failure")
		}
		if ok {
			res, repeat := foe.board.Fire(c)
			p.shotsFired++
			if !repeat && res.Outcome != Miss {
				p.shotsLanded++
			}
			p.send("turn-result;you;" + c.String() + ";" + res.String())
			foe.send("turn-result;enemy;" + c.String() + ";" + res.String())
			rg.Events = append(rg.Events, ReplayEvent{Player: cur, Kind: "shot", Coord: c.String(), Result: res.String()})
			m.engineLog("game %d: %s fires at %s: %s", rg.Number, p.key, c, res)
			if m.opts.Pretty != nil {
				drawBoards(m.opts.Pretty, p0, p1)
			}
		}
		cur = 1 - cur
	}
}

// SeedVar names the environment variable that gives each player's
// program a number drawn from the match's seed, so a bot that seeds its
// randomness from it plays differently in every match and the same when a
// match is played again. The original simulator set none: a bot must do
// without it there.
const SeedVar = "BROADSIDE_SEED"

// PlayerSeed is player i's BROADSIDE_SEED in a match of seed: the two
// players' differ, so two copies of one bot do not mirror each other.
func PlayerSeed(seed int64, i int) uint64 {
	// splitmix64 of the seed and the seat.
	z := uint64(seed) + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// StepPlacement and StepTurn label the steps of a round in its bots' logs
// (game.StepMark), as the viewer counts them: each game's placement, then
// its turns from 1, one per replay event.
func StepPlacement(game int) string { return fmt.Sprintf("game %d, placement", game) }

// StepTurn labels turn n (the replay's event n) of game.
func StepTurn(game, n int) string { return fmt.Sprintf("game %d, turn %d", game, n) }

// markStep starts a step in both players' logs: each sees the other's
// shots land, so both have lines in every step.
func (m *round) markStep(label string) {
	for _, p := range m.players {
		p.log.Step(label)
	}
}

// publishGame publishes a game whose fleets are placed, before its
// first shot.
func (m *round) publishGame(ctx context.Context, rg *ReplayGame) {
	shown := *rg
	shown.Events = append([]ReplayEvent{}, rg.Events...)
	m.live.Patch(ctx, game.Append("/games", shown))
	m.liveGame, m.liveEvents = true, len(rg.Events)
}

// publishEvents publishes the current game's events not published yet.
func (m *round) publishEvents(ctx context.Context, rg *ReplayGame) {
	if !m.liveGame || m.liveEvents == len(rg.Events) {
		return
	}
	at := fmt.Sprintf("/games/%d/events", len(m.replay.Games))
	var ops []game.PatchOp
	for _, e := range rg.Events[m.liveEvents:] {
		ops = append(ops, game.Append(at, e))
	}
	m.live.Patch(ctx, ops...)
	m.liveEvents = len(rg.Events)
}

// publishGameEnd publishes a game as it ended: the whole of it, in place
// of what was published while it ran.
func (m *round) publishGameEnd(ctx context.Context, rg *ReplayGame) {
	shown := *rg
	if shown.Events == nil {
		shown.Events = []ReplayEvent{}
	}
	if m.liveGame {
		m.live.Patch(ctx, game.Replace(fmt.Sprintf("/games/%d", len(m.replay.Games)), shown))
	} else {
		m.live.Patch(ctx, game.Append("/games", shown))
	}
	m.liveGame, m.liveEvents = false, 0
}

// endGame scores a game where won[i] says whether player i is still in
// the game: one still in wins, none is a loss for both. Both live bots are
// told win or lose, aborted games included.
func (m *round) endGame(rg *ReplayGame, won0, won1 bool, how string) error {
	won := [2]bool{won0, won1}
	if won0 && won1 {
		return errors.New("deepship: a game cannot have two winners")
	}
	rg.End = how
	// A forfeited game never started for the bots: they are told nothing.
	tell := how != "forfeit"
	for i, p := range m.players {
		if won[i] {
			p.score.Wins++
			k := p.key
			rg.Winner = &k
			if tell {
				p.send("win")
			}
		} else {
			p.score.Losses++
			if tell {
				p.send("lose")
			}
		}
	}
	m.engineLog("game %d ends (%s): winner %s", rg.Number, how, deref(rg.Winner, "none"))
	return nil
}

func deref(s *string, none string) string {
	if s == nil {
		return none
	}
	return *s
}

func (m *round) engineLog(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	m.logger.Debug(msg, "game", Name)
	if m.opts.EngineLog != nil {
		_, _ = io.WriteString(m.opts.EngineLog, msg+"\n")
	}
}

// summary ranks the two contestants by points; equal points are a draw.
func (m *round) summary() *game.Summary {
	sum := &game.Summary{Game: Name, Rounds: m.turns, Seed: m.opts.Seed}
	pts := [2]int{m.players[0].score.Points(), m.players[1].score.Points()}
	winner := -1
	switch {
	case pts[0] > pts[1]:
		winner = 0
	case pts[1] > pts[0]:
		winner = 1
	}
	if winner >= 0 {
		k := m.players[winner].key
		sum.Winner = &k
	}
	for i, p := range m.players {
		s := p.score
		ps := game.PlayerSummary{Key: p.key, Name: p.name, Points: pts[i], ShotsFired: p.shotsFired,
			ShotsLanded: p.shotsLanded, Rank: 1, Log: p.log.String()}
		if p.board != nil {
			ps.ShipsLeft = p.board.ShipsLeft()
			ps.Killed = ps.ShipsLeft == 0
		}
		if winner >= 0 && winner != i {
			ps.Rank = 2
			ps.Reason = fmt.Sprintf("won %d of %d games, %d penalty points", s.Wins, GamesPerRound, s.Penalties)
			if p.forfeitReason != "" {
				ps.Reason += "; forfeited the round: " + p.forfeitReason
			}
		}
		sum.Players = append(sum.Players, ps)
	}
	return sum
}
