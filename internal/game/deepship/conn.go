package deepship

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/game"
)

// maxLine is the original simulator's read buffer: a line must be shorter.
const maxLine = 256

// outQueue bounds the lines waiting to be written to a bot that does not
// read its input; a bot that lets it fill is stuck.
const outQueue = 1024

// line is one line a bot wrote, stamped when it arrived.
type line struct {
	text    string
	at      time.Time
	tooLong bool
}

// conn is one running contestant: its process (or console) and the two
// goroutines that move its lines, so the engine never blocks on a bot.
type conn struct {
	proc  command.Process
	lines chan line
	out   chan string
	// stuck is set when the output queue overflowed.
	stuck bool
	// eof is set once the bot's stdout has ended.
	eof bool
	// hungUp is set once the bot's input is closed.
	hungUp bool
	// started is when the process started, for the placement allowance.
	started time.Time
}

// errStart wraps a failure to start a bot's process.
var errStart = errors.New("could not start")

// startConn starts the bot's program in its folder, with no arguments and
// env added to its environment.
func startConn(ctx context.Context, bot game.Bot, runner game.Runner, env []string) (*conn, error) {
	if bot.Console != nil {
		return newConn(nil, bot.Console.In, nopCloser{bot.Console.Out}), nil
	}
	if len(bot.Command) == 0 {
		return nil, fmt.Errorf("%w: no runnable in the manifest", errStart)
	}
	// The process lives for the whole round: its wall and CPU time are set
	// explicitly so a runner's per-turn defaults never apply to it. The
	// engine's own clocks time each request.
	limits := command.Limits{OutputBytes: stderrBytes, WallTime: roundWallTime, CPUTime: roundCPUTime}
	cmd := command.Cmd{
		Args:   append(append([]string{}, bot.Command...), bot.TrailingArgs...),
		Dir:    bot.Dir,
		Mounts: []command.Mount{{Source: bot.Dir, Writable: true}},
		Limits: limits,
		Env:    env,
	}
	p, err := runner.Start(ctx, cmd)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errStart, err)
	}
	return newConn(p, p.Stdout(), p.Stdin()), nil
}

func newConn(p command.Process, r io.Reader, w io.WriteCloser) *conn {
	c := &conn{proc: p, lines: make(chan line, 64), out: make(chan string, outQueue), started: time.Now()}
	go readLines(r, c.lines)
	go func() {
		// A write error means the bot is gone; its reader sees the end.
		broken := false
		for s := range c.out {
			if !broken {
				_, err := io.WriteString(w, s+"\n")
				broken = err != nil
			}
		}
		w.Close()
	}()
	return c
}

// readLines splits r into lines. A `\r\n` ending is accepted; a line of
// maxLine bytes or more is passed on marked tooLong, without its text.
func readLines(r io.Reader, out chan<- line) {
	defer close(out)
	br := bufio.NewReaderSize(r, maxLine)
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			out <- line{at: time.Now(), tooLong: true}
			if err != nil {
				return
			}
			continue
		}
		if len(b) > 0 && (err == nil || strings.TrimSpace(string(b)) != "") {
			s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
			if len(s) >= maxLine {
				out <- line{at: time.Now(), tooLong: true}
			} else {
				out <- line{text: s, at: time.Now()}
			}
		}
		if err != nil {
			return
		}
	}
}

// send queues one line for the bot.
func (c *conn) send(s string) {
	if c.stuck {
		return
	}
	select {
	case c.out <- s:
	default:
		c.stuck = true
	}
}

// maxDrain bounds one drain, so a bot flooding its output cannot hold the
// engine there.
const maxDrain = 1000

// drain discards lines that arrived before a request: a late answer must
// not count for the next request.
func (c *conn) drain() []line {
	var stale []line
	for len(stale) < maxDrain {
		select {
		case l, ok := <-c.linesOrNil():
			if !ok {
				c.eof = true
				return stale
			}
			stale = append(stale, l)
		default:
			return stale
		}
	}
	return stale
}

// waitStatus says how waiting for a line ended.
type waitStatus int

const (
	gotLine waitStatus = iota
	timedOut
	gone
	cancelled
)

// next waits for the bot's next line until deadline (none when zero).
func (c *conn) next(ctx context.Context, deadline time.Time) (line, waitStatus) {
	if c.eof {
		return line{}, gone
	}
	var timer <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timer = t.C
	}
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.eof = true
			return line{}, gone
		}
		return l, gotLine
	case <-timer:
		return line{}, timedOut
	case <-ctx.Done():
		return line{}, cancelled
	}
}

// linesOrNil is the line channel, nil once it has ended so a select skips it.
func (c *conn) linesOrNil() chan line {
	if c.eof {
		return nil
	}
	return c.lines
}

// hangUp closes the bot's input once the lines queued for it are written:
// a bot reading its input sees it end.
func (c *conn) hangUp() {
	if !c.hungUp {
		c.hungUp = true
		close(c.out)
	}
}

// close ends the bot and returns what it wrote on stderr. Its input is
// closed; for up to grace it may then end by itself, writing out what it
// still has to say (a negative grace waits as long as it takes); then its
// tree is killed.
func (c *conn) close(grace time.Duration) string {
	c.hangUp()
	if c.proc == nil {
		return ""
	}
	var res command.Result
	var err error
	ended := make(chan struct{})
	go func() {
		res, err = c.proc.Wait()
		close(ended)
	}()
	var timeout <-chan time.Time
	if grace >= 0 {
		t := time.NewTimer(grace)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ended:
	case <-timeout:
		_ = c.proc.Kill()
		<-ended
	}
	if err != nil {
		return fmt.Sprintf("wait: %v\n", err)
	}
	return string(res.Stderr)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
