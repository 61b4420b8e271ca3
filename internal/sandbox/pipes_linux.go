//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
)

// stdPipes are the standard input and output pipes of a Process. The child
// gets its ends as plain files, so os/exec starts no copying goroutine and
// the caller reads the bot's output as it comes.
type stdPipes struct {
	inR, inW   *os.File
	outR, outW *os.File
}

func newStdPipes() (*stdPipes, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	return &stdPipes{inR: inR, inW: inW, outR: outR, outW: outW}, nil
}

// attach connects the command's stdin and stdout: to the pipes when there are
// any, else to c.Stdin and a capped capture buffer.
func (sp *stdPipes) attach(cmd *exec.Cmd, c Cmd, p *proc) {
	if sp == nil {
		cmd.Stdin = c.Stdin
		p.stdout = newCapBuffer(p.limits.OutputBytes)
		cmd.Stdout = p.stdout
		return
	}
	cmd.Stdin = sp.inR
	cmd.Stdout = sp.outW
}

// closeChildEnds closes the worker's copies of the child's ends after start.
func (sp *stdPipes) closeChildEnds() {
	if sp == nil {
		return
	}
	sp.inR.Close()
	sp.outW.Close()
}

func (sp *stdPipes) closeAll() {
	if sp == nil {
		return
	}
	sp.inR.Close()
	sp.inW.Close()
	sp.outR.Close()
	sp.outW.Close()
}

// startProcess is the shared Start of the runners.
func startProcess(ctx context.Context, c Cmd, start func(context.Context, Cmd, *stdPipes) (*proc, error)) (Process, error) {
	sp, err := newStdPipes()
	if err != nil {
		return nil, err
	}
	p, err := start(ctx, c, sp)
	if err != nil {
		return nil, err
	}
	return &procProcess{p: p, stdin: sp.inW, stdout: sp.outR}, nil
}
