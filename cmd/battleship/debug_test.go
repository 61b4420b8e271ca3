package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/game"
)

const haltPrompt = "Press Enter to continue."

// testDebugHalt plays the reference bot against one that writes to stderr
// every turn (and does nothing else, so it is killed after five failed
// placements), with --debug: every such turn halts until a line is read.
func testDebugHalt(t *testing.T, k kit) {
	needTool(t, "python3")
	newNoisy := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "noisy")
		files := map[string]string{
			"bot.json": `{"NickName":"Noisy","BotType":"Python3","RunFile":"bot.py"}`,
			"bot.py":   "import sys\nsys.stderr.write('thinking hard\\n')\n",
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	// noisyTurns counts the turns in which the noisy bot (B) ran.
	noisyTurns := func(t *testing.T, replay string) int {
		logs, err := filepath.Glob(filepath.Join(replay, "*", "B", "log.txt"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, path := range logs {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "thinking hard") {
				n++
			}
		}
		if n < 2 {
			t.Fatalf("the noisy bot wrote to stderr in %d turns", n)
		}
		return n
	}
	checkSummary := func(t *testing.T, sum game.Summary) {
		if sum.Winner == nil || *sum.Winner != "A" || len(sum.Players) != 2 || !sum.Players[1].Killed {
			t.Errorf("summary %+v", sum)
		}
	}

	t.Run("waits for Enter", func(t *testing.T) {
		t.Parallel()
		replay := filepath.Join(t.TempDir(), "replay")
		h := startHalting(t, k, "-b", "entelect-go-reference", newNoisy(t), "-s", "1", "--seed", "5", "--json", "--debug", "-l", replay)
		<-h.prompts
		// Halted: with nothing written to its stdin, the command neither
		// goes on to the next turn nor ends.
		select {
		case <-h.prompts:
			t.Fatal("a second prompt came before Enter was pressed")
		case <-h.stdoutDone:
			t.Fatalf("the command ended while halted; stdout: %s", h.stdout.String())
		case <-time.After(500 * time.Millisecond):
		}
		halts := 1
		for {
			if _, err := io.WriteString(h.stdin, "\n"); err != nil {
				t.Fatalf("write Enter: %v", err)
			}
			if _, ok := <-h.prompts; !ok {
				break
			}
			halts++
		}
		code, stdout, stderr := h.wait(t)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
		var sum game.Summary
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
			t.Fatalf("last line of stdout is not the summary: %v\n%s", err, stdout)
		}
		checkSummary(t, sum)
		if want := noisyTurns(t, replay); halts != want {
			t.Errorf("halted %d times, want one per noisy turn (%d)", halts, want)
		}
	})
	t.Run("end of input does not block", func(t *testing.T) {
		t.Parallel()
		replay := filepath.Join(t.TempDir(), "replay")
		r := k.playInput(t, "", "-b", "entelect-go-reference", newNoisy(t), "-s", "1", "--seed", "5", "--json", "--debug", "-l", replay)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		checkSummary(t, r.summary)
		want := noisyTurns(t, replay)
		if got := strings.Count(r.stderr, haltPrompt); got != want {
			t.Errorf("%d prompts, want %d\n%s", got, want, r.stderr)
		}
		// Without --pretty or --clog, what the bot wrote is shown on stderr
		// before each prompt.
		if got := strings.Count(r.stderr, "thinking hard"); got != want {
			t.Errorf("the bot's stderr shown %d times, want %d\n%s", got, want, r.stderr)
		}
	})
	t.Run("interrupt ends the wait", func(t *testing.T) {
		t.Parallel()
		h := startHalting(t, k, "-b", "entelect-go-reference", newNoisy(t), "-s", "1", "--json", "--debug", "-l", filepath.Join(t.TempDir(), "r"))
		<-h.prompts
		if err := h.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := h.wait(t)
		if code != exitFailed || !strings.Contains(stderr, "context canceled") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
	})
}

// halting is the command running with its stdin and stderr as pipes.
type halting struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// prompts gets one value per halt prompt on stderr and is closed when
	// stderr ends.
	prompts chan struct{}
	// stdoutDone is closed when stdout ends, that is when the command has
	// ended.
	stdoutDone     chan struct{}
	stdout, stderr strings.Builder
}

func startHalting(t *testing.T, k kit, args ...string) *halting {
	t.Helper()
	h := &halting{cmd: exec.Command(k.bin, args...), prompts: make(chan struct{}), stdoutDone: make(chan struct{})}
	h.cmd.Dir = k.bots
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := h.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.cmd.Process.Kill() })
	go func() {
		defer close(h.stdoutDone)
		_, _ = io.Copy(&h.stdout, stdout)
	}()
	go func() {
		defer close(h.prompts)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			h.stderr.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), haltPrompt) {
				h.prompts <- struct{}{}
			}
		}
	}()
	return h
}

// wait waits for the command to end (the prompts channel must have been
// drained) and returns its exit status and output.
func (h *halting) wait(t *testing.T) (code int, stdout, stderr string) {
	t.Helper()
	_ = h.stdin.Close()
	for range h.prompts {
	}
	<-h.stdoutDone
	err := h.cmd.Wait()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, h.stdout.String(), h.stderr.String()
}
