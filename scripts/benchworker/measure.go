package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Measuring the worker processes: interpreter starts, CPU, statements
// sent and profiles.

// interpreterStarts samples python3 -c pass on the host until ctx ends and
// returns the median: the interpreter's start under the same load as the
// matches. It runs the interpreter itself, as the worker does, not a
// version manager's shim in front of it.
func interpreterStarts(ctx context.Context) (wall, cpu time.Duration) {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return 0, 0
	}
	python := strings.TrimSpace(string(out))
	var walls []time.Duration
	var cpuSum time.Duration
	for ctx.Err() == nil {
		start := time.Now()
		cmd := exec.Command(python, "-c", "pass")
		if err := cmd.Run(); err == nil {
			walls = append(walls, time.Since(start))
			cpuSum += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	if len(walls) == 0 {
		return 0, 0
	}
	slices.Sort(walls)
	return quantile(walls, 0.5), cpuSum / time.Duration(len(walls))
}

// processCPU is CPU time of the worker processes.
type processCPU struct {
	self, children time.Duration
	interp         time.Duration // one python3 -c pass, for scale
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// workersCPU sums the user+sys time of the processes (utime, stime) and of
// their reaped children (cutime, cstime) from /proc/PID/stat.
func workersCPU(pids []int) (processCPU, error) {
	var c processCPU
	for _, pid := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return c, fmt.Errorf("worker CPU: %w", err)
		}
		// Fields after the command name, which is in parentheses and may
		// hold spaces: state is field 3, utime..cstime are 14..17.
		f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(f) < 15 {
			return c, fmt.Errorf("worker CPU: short /proc/%d/stat", pid)
		}
		var t [4]int64
		for i := range t {
			fmt.Sscan(f[11+i], &t[i])
		}
		c.self += time.Duration(t[0]+t[1]) * clockTick
		c.children += time.Duration(t[2]+t[3]) * clockTick
	}
	return c, nil
}

// freeAddr returns a loopback address with a port free now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// statementsSent adds up broadside_worker_db_statements_total of the
// workers' metrics; -1 when one does not export it.
func statementsSent(ctx context.Context, addrs []string) int64 {
	var sum int64
	for _, addr := range addrs {
		n, err := scrapeCounter(ctx, "http://"+addr+"/metrics", "broadside_worker_db_statements_total")
		if err != nil {
			return -1
		}
		sum += n
	}
	return sum
}

func scrapeCounter(ctx context.Context, url, name string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int64(f), err
		}
	}
	return 0, fmt.Errorf("%s: no %s", url, name)
}

// profileChunk is the length of one CPU profile: the matches' end is not
// known in advance, so the workers are profiled in pieces that pprof
// merges when given them all.
const profileChunk = 5 * time.Second

// profileWorkers takes CPU profiles of every worker (pprof addresses) in
// pieces of profileChunk into dir until ctx ends; the channel closes when
// the last piece is written. A piece cut short by ctx is lost.
func profileWorkers(ctx context.Context, addrs []string, dir, mode string) <-chan struct{} {
	done := make(chan struct{})
	if len(addrs) == 0 {
		close(done)
		return done
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "bench-worker: profiles:", err)
	}
	var wg sync.WaitGroup
	for w, addr := range addrs {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(profileChunk.Seconds()))
				path := filepath.Join(dir, fmt.Sprintf("%s-worker%d-%03d.pb.gz", mode, w, i))
				if err := fetchTo(ctx, url, path); err != nil && ctx.Err() == nil {
					fmt.Fprintln(os.Stderr, "bench-worker: profile:", err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	return done
}

func fetchTo(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}
