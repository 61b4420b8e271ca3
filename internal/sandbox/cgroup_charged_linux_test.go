//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/broadside/broadside/internal/testenv"
)

// TestMemoryChargedFollowsTheCgroup: the memory counter, read again from
// the file kept open, follows what the cgroup's process allocates, and is
// no longer read once the cgroups are removed.
func TestMemoryChargedFollowsTheCgroup(t *testing.T) {
	testenv.RequireProgram(t, "python3")
	cp, _, err := findCgroups()
	testenv.RequireErr(t, "cgroups for the sandbox", err)
	cs, err := cp.newCgroupSet(fmt.Sprintf("broadside-%d-charged-test", os.Getpid()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.remove()
	// The child waits for a line, then fills 48 MiB (touching every page).
	cmd := exec.Command("python3", "-c", "import sys, time\nsys.stdin.readline()\nx = b'x' * (48 << 20)\nprint('ok', flush=True)\ntime.sleep(60)")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := cs.add(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	before, ok := cs.memoryCharged()
	if !ok {
		t.Fatal("memory counter not read")
	}
	if _, err := in.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ok\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	after, ok := cs.memoryCharged()
	if !ok || after-before < 40<<20 {
		t.Fatalf("counter went from %d to %d (read: %v) while the process filled 48 MiB", before, after, ok)
	}
	cmd.Process.Kill()
	cmd.Wait()
	cs.remove()
	if n, ok := cs.memoryCharged(); ok {
		t.Fatalf("counter read after the cgroups were removed: %d", n)
	}
}
