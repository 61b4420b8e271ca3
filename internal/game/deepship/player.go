package deepship

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/game"
)

// player is one contestant and what the engine keeps of it over the round.
type player struct {
	idx    int
	key    string
	name   string
	bot    game.Bot
	runner game.Runner
	conn   *conn
	log    *game.BotLog
	score  Score
	board  *Board
	// fresh is set until the first placement after a (re)start: that one
	// also allows for the program's start-up (the bot's calibration).
	fresh    bool
	restarts int
	// skips counts consecutive skipped turns.
	skips int
	// owed counts answers to skipped turns still to come.
	owed int
	// failure, when set, is why the player failed in the current game.
	failure string
	// out is set once the player forfeited the rest of the round.
	out           bool
	forfeitReason string
	shotsFired    int
	shotsLanded   int
	// onStderr, when set, is given what the process wrote on stderr once it
	// has ended (debug mode shows it).
	onStderr func(stderr string)
	// platformErr is set when the platform could not start the bot's
	// program (command.ErrPlatform); the round cannot go on.
	platformErr error
	// seed is the player's BROADSIDE_SEED: drawn from the match's seed.
	seed uint64
}

// start (re)starts a player's process and sends round-start. A failure to
// start counts as a failure of the player.
func (p *player) start(ctx context.Context) {
	c, err := startConn(ctx, p.bot, p.runner, []string{SeedVar + "=" + strconv.FormatUint(p.seed, 10)})
	if errors.Is(err, command.ErrPlatform) {
		// The machine's fault, not the bot's: the round ends with it.
		p.platformErr = err
		p.out = true
		return
	}
	if err != nil {
		p.log.Printf("%v\n", err)
		p.failure = err.Error()
		p.fail()
		if !p.out && p.conn == nil {
			p.start(ctx)
		}
		return
	}
	p.conn = c
	p.fresh = true
	p.owed, p.skips = 0, 0
	p.send("round-start")
}

// fail ends the player's process after a failure: it is restarted once per
// round, a second failure forfeits the rest of the round.
func (p *player) fail() {
	reason := p.failure
	p.failure = ""
	p.stop(reason, 0)
	if p.restarts >= 1 {
		p.forfeit(reason + " (after a restart)")
		return
	}
	p.restarts++
	p.log.Printf("restarting: %s\n", reason)
}

func (p *player) forfeit(reason string) {
	p.out = true
	p.forfeitReason = reason
	p.log.Printf("forfeits the rest of the round: %s\n", reason)
}

// stop ends the player's process, if any, and keeps its stderr in the log.
// The process has up to grace to end by itself once its input is closed
// (see conn.close); after a failure it has none.
func (p *player) stop(why string, grace time.Duration) {
	if p.conn == nil {
		return
	}
	stderr := p.conn.close(grace)
	p.conn = nil
	p.log.Printf("process ended (%s)\n", why)
	if strings.TrimSpace(stderr) != "" {
		p.log.Printf("stderr:\n%s\n", stderr)
	}
	if p.onStderr != nil {
		p.onStderr(stderr)
	}
}

func (p *player) send(s string) {
	if p.conn == nil {
		return
	}
	p.log.Printf("%s <- %s\n", p.clock(), s)
	p.conn.send(s)
}

// clock is the time since the process started, for the log.
func (p *player) clock() string {
	if p.conn == nil {
		return "-"
	}
	return time.Since(p.conn.started).Round(time.Millisecond).String()
}
