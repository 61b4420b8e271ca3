package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Intervals of the soak's workers: short, so a few minutes hold many ticks.
const (
	ladderEvery = 10 * time.Second
	battleEvery = 5 * time.Second
	heartbeat   = 5 * time.Second
	deadAfter   = 15 * time.Second
	ladderSlots = 4
)

// platform is the running portal, workers and database.
type platform struct {
	log     *slog.Logger
	dir     string
	pgData  string
	dbURL   string
	base    string // the portal's URL
	pool    *pgxpool.Pool
	portal  *exec.Cmd
	mu      sync.Mutex
	workers []*workerProc
	nextID  int
	// kills and restarts count the faults injected.
	kills, pgRestarts, badUploads, badRefused int
	// restartsAfterExit counts workers that exited by themselves and were
	// started again; closing stops that at the end.
	restartsAfterExit int
	closing           bool
}

// workerProc is one worker process.
type workerProc struct {
	id      int
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{}
}

func startPlatform(ctx context.Context, s settings, log *slog.Logger) (*platform, error) {
	p := &platform{log: log, dir: s.dir, pgData: filepath.Join(s.dir, "postgres")}
	// Each soak starts clean but for the database server's files (its
	// database is made anew below).
	old, _ := filepath.Glob(filepath.Join(s.dir, "work-*"))
	for _, d := range append(old, filepath.Join(s.dir, "logs"), filepath.Join(s.dir, "blobs")) {
		if err := os.RemoveAll(d); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{"bin", "logs", "blobs"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	log.Info("soak: building the portal and the worker")
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(s.dir, "bin")+"/", "./cmd/portal", "./cmd/worker")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, "scripts/postgres.sh", p.pgData, fmt.Sprint(s.pgPort)).Output()
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	admin := strings.TrimSpace(string(out))
	// A fresh database for every soak.
	name := "soak"
	for _, sql := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name} {
		if out, err := exec.CommandContext(ctx, "psql", admin, "-qc", sql).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("psql %s: %v\n%s", sql, err, out)
		}
	}
	p.dbURL = strings.Replace(admin, "/postgres?", "/"+name+"?", 1)
	if p.pool, err = pgxpool.New(ctx, p.dbURL); err != nil {
		return nil, err
	}
	if err := p.runPortal(ctx, "migrate"); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	p.base = "http://" + addr
	// Each contestant uploads its starters at once: more builds waiting
	// than the default limit allows one user.
	p.portal = p.command("portal", filepath.Join(s.dir, "logs", "portal.log"), "ADDR="+addr,
		fmt.Sprintf("UPLOAD_MAX_QUEUED_BUILDS=%d", len(starters)))
	if err := p.portal.Start(); err != nil {
		return nil, fmt.Errorf("start portal: %w", err)
	}
	if err := waitHTTP(ctx, p.base+"/healthz", 30*time.Second); err != nil {
		return nil, fmt.Errorf("portal did not come up: %w", err)
	}
	for i := 0; i < 2; i++ {
		if err := p.startWorker(); err != nil {
			return nil, err
		}
	}
	log.Info("soak: platform up", "portal", p.base, "database", p.dbURL)
	go p.supervise(ctx)
	return p, nil
}

// supervise keeps two workers running, as a process supervisor would
// (systemd, compose's restart policy): a worker that exits by itself (it
// could not reach the database while it restarted, say) is started again.
func (p *platform) supervise(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
		p.mu.Lock()
		closing := p.closing
		p.mu.Unlock()
		if closing {
			return
		}
		if len(p.liveWorkers()) < 2 {
			p.log.Warn("soak: a worker exited by itself; starting another")
			p.mu.Lock()
			p.restartsAfterExit++
			p.mu.Unlock()
			if err := p.startWorker(); err != nil {
				p.log.Error("soak: start worker", "err", err)
			}
		}
	}
}

// storageEnv names the database and the blob store, which every command
// of the portal and the worker needs.
func (p *platform) storageEnv() []string {
	return []string{"DATABASE_URL=" + p.dbURL, "BLOB_URL=file://" + filepath.Join(p.dir, "blobs")}
}

// command prepares one of the platform's binaries with the shared settings.
func (p *platform) command(name, logFile string, env ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.dir, "bin", name))
	f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err == nil {
		cmd.Stdout, cmd.Stderr = f, f
	}
	cmd.Env = append(os.Environ(), p.storageEnv()...)
	cmd.Env = append(cmd.Env, "COOKIE_SECURE=false", "LOG_LEVEL=info")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func (p *platform) runPortal(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(p.dir, "bin", "portal"), args...)
	cmd.Env = append(os.Environ(), p.storageEnv()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("portal %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// startWorker starts one more worker with its own work folder.
func (p *platform) startWorker() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	id := p.nextID
	work := filepath.Join(p.dir, fmt.Sprintf("work-%d", id))
	cmd := p.command("worker", filepath.Join(p.dir, "logs", fmt.Sprintf("worker-%d.log", id)),
		"WORK_DIR="+work, "SANDBOX=required", "WORKER_CONCURRENCY=2", "WORKER_BUILD_CONCURRENCY=1",
		"LADDER_INTERVAL="+ladderEvery.String(), "BATTLE_INTERVAL="+battleEvery.String(),
		fmt.Sprintf("LADDER_SLOTS=%d", ladderSlots),
		"WORKER_HEARTBEAT="+heartbeat.String(), "WORKER_DEAD_AFTER="+deadAfter.String(),
		"WORKER_MATCH_TIMEOUT=10m", "WORKER_SHUTDOWN_GRACE=30s")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start worker %d: %w", id, err)
	}
	w := &workerProc{id: id, cmd: cmd, started: time.Now(), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(w.done) }()
	p.workers = append(p.workers, w)
	p.log.Info("soak: worker started", "worker", id, "pid", cmd.Process.Pid)
	return nil
}

// liveWorkers are the workers still running.
func (p *platform) liveWorkers() []*workerProc {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*workerProc
	for _, w := range p.workers {
		select {
		case <-w.done:
		default:
			out = append(out, w)
		}
	}
	return out
}

// killWorker SIGKILLs the oldest live worker; its replacement starts first,
// so the supervisor never sees one missing.
func (p *platform) killWorker() error {
	live := p.liveWorkers()
	if len(live) == 0 {
		return errors.New("no worker left to kill")
	}
	if err := p.startWorker(); err != nil {
		return err
	}
	w := live[0]
	p.log.Info("soak: SIGKILL", "worker", w.id, "pid", w.cmd.Process.Pid)
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-w.done
	p.kills++
	return nil
}

// restartPostgres restarts the database server under the running season.
func (p *platform) restartPostgres(ctx context.Context) error {
	p.log.Info("soak: restarting PostgreSQL")
	if err := p.pgCtl(ctx, "restart"); err != nil {
		return err
	}
	p.pgRestarts++
	return nil
}

// pgCtl runs pg_ctl on the soak's own server (restart, stop).
func (p *platform) pgCtl(ctx context.Context, action string) error {
	bindir, err := pgBindir()
	if err != nil {
		return err
	}
	// -l: the server must not inherit our output pipe, or waiting for the
	// command's output would wait for the server to end.
	args := []string{filepath.Join(bindir, "pg_ctl"), "-D", p.pgData, "-l", filepath.Join(p.pgData, "server.log"),
		"-w", "-m", "fast", action}
	if os.Geteuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	if out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s PostgreSQL: %v\n%s", action, err, out)
	}
	return nil
}

func pgBindir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(matches) == 0 {
		return "", errors.New("no pg_ctl found")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// faults injects worker kills, a database restart and bad uploads until end.
func (p *platform) faults(ctx context.Context, s settings, end time.Time, season *season, rec *recorder) error {
	start := time.Now()
	nextKill := start.Add(s.killEvery)
	restartAt := start.Add(time.Until(end) / 2)
	restarted := false
	badEvery := time.NewTicker(20 * time.Second)
	defer badEvery.Stop()
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-badEvery.C:
			p.badUploads++
			if season.badUpload(ctx) {
				p.badRefused++
			}
		case <-time.After(time.Second):
		}
		now := time.Now()
		if now.After(nextKill) {
			if err := p.killWorker(); err != nil {
				return err
			}
			nextKill = now.Add(s.killEvery)
		}
		if !restarted && now.After(restartAt) {
			if err := p.restartPostgres(ctx); err != nil {
				return err
			}
			restarted = true
		}
	}
	return nil
}

// close stops the workers and the portal gracefully, and the pool.
func (p *platform) close() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	for _, w := range p.liveWorkers() {
		_ = w.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, w := range p.liveWorkers() {
		select {
		case <-w.done:
		case <-time.After(40 * time.Second):
			_ = w.cmd.Process.Kill()
		}
	}
	if p.portal != nil && p.portal.Process != nil {
		_ = p.portal.Process.Signal(syscall.SIGTERM)
		_ = p.portal.Wait()
	}
	if p.pool != nil {
		p.pool.Close()
	}
	// The soak's server is its own (data/soak): left running, it would
	// hold the soak's port against the next soak from another checkout.
	if p.pgData != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := p.pgCtl(ctx, "stop"); err != nil {
			p.log.Warn("soak: stop PostgreSQL", "err", err)
		}
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitHTTP(ctx context.Context, url string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %v", url, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
