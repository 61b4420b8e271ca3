package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/egress"
	"github.com/broadside/broadside/internal/fleet"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/notify"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/schedule"
	"github.com/broadside/broadside/internal/store"
)

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: cfg.LogLevel}))
}

func migrate(ctx context.Context, cfg Config, stdout io.Writer) error {
	if err := store.Migrate(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "Database is up to date.")
	return nil
}

func recompute(ctx context.Context, cfg Config, write bool, stdout io.Writer) error {
	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	defer pool.Close()
	st := store.New(pool)
	if err := st.SchemaCheck(ctx, "worker"); err != nil {
		return err
	}
	rep, err := competition.RecomputeRatings(ctx, st, write)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Replayed %d rated matches of %d bots.\n", rep.Matches, rep.Bots)
	for _, d := range rep.Differences {
		fmt.Fprintf(stdout, "bot %d on %s: stored %.6f/%.6f/%.8f (%d games), history gives %.6f/%.6f/%.8f (%d games)\n",
			d.Recomputed.BotID, d.Recomputed.Ladder, d.Stored.Rating, d.Stored.Deviation, d.Stored.Volatility, d.Stored.Games,
			d.Recomputed.Rating, d.Recomputed.Deviation, d.Recomputed.Volatility, d.Recomputed.Games)
	}
	switch {
	case len(rep.Differences) == 0:
		fmt.Fprintln(stdout, "Stored ratings equal the history.")
	case write:
		fmt.Fprintf(stdout, "Replaced %d ratings with the history's.\n", len(rep.Differences))
	default:
		return fmt.Errorf("%d stored ratings differ from the history (run with --write to replace them)", len(rep.Differences))
	}
	return nil
}

// serve runs jobs until ctx ends (SIGTERM, SIGINT), then stops gracefully.
func serve(ctx context.Context, cfg Config, logOut io.Writer) error {
	log := newLogger(cfg, logOut)
	bw, mode, err := sandboxes(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer bw.cgroups.Close()
	poolCfg, err := store.PoolConfig(cfg.DatabaseURL)
	if err != nil {
		return err
	}
	// Every statement the worker sends is counted, for
	// broadside_worker_db_statements_total.
	statements := &store.StatementCounter{}
	poolCfg.ConnConfig.Tracer = statements
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	defer pool.Close()
	if err := waitForDatabase(ctx, pool, time.Minute, log); err != nil {
		return err
	}
	if err := store.New(pool).SchemaCheck(ctx, "worker"); err != nil {
		return err
	}
	if cfg.MaxProcs > 0 && cfg.MaxProcs < runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(cfg.MaxProcs)
	}
	bucket, err := blob.Open(ctx, cfg.BlobURL)
	if err != nil {
		return fmt.Errorf("BLOB_URL: %w", err)
	}
	defer bucket.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		fleet.NewPeriodicCollector(store.New(pool)), jobs.NewQueueCollector(store.New(pool)),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "broadside_worker_db_statements_total",
			Help: "Statements this worker process sent to PostgreSQL (queries, execs, each query of a batch, BEGIN and COMMIT).",
		}, func() float64 { return float64(statements.Count()) }))
	rules := rulesets.Registry()
	deps := jobs.Deps{
		Pool: pool, Bucket: bucket, Logger: log, Games: rules,
		Bwrap: bw.match, WorkDir: cfg.WorkDir,
		// Memory, processes, file size and open files for every turn; the
		// rule sets set the wall time and the output cap.
		TurnLimits:       sandbox.TurnDefaults(),
		MatchConcurrency: cfg.MatchConcurrency, BuildConcurrency: cfg.BuildConcurrency,
		Timeouts:       jobs.Timeouts{Build: cfg.BuildTimeout, Match: cfg.MatchTimeout, RescueAfter: cfg.RescueAfter},
		ShutdownGrace:  cfg.ShutdownGrace,
		Metrics:        jobs.NewMetrics(reg),
		HeartbeatEvery: cfg.HeartbeatEvery, DeadAfter: cfg.DeadAfter, Sandbox: mode,
		LadderPauseAfter: cfg.LadderPauseAfter,
	}
	if cfg.BuildConcurrency > 0 {
		b := build.New(bw.build, rules)
		b.Env = cfg.BuildEnv
		deps.Builder = b
	}
	sched, err := schedule.New(schedule.Config{
		Pool: pool, Logger: log, BattleEvery: cfg.BattleEvery, LadderEvery: cfg.LadderEvery,
		LadderGames: rules.Names(), LadderSlots: cfg.LadderSlots, Rules: rules,
	})
	if err != nil {
		return err
	}
	deps.Scheduler, deps.AfterMatch = sched, sched.AfterMatch
	deliverer := newDeliverer(cfg, store.New(pool), log)
	deps.Addons = []jobs.Addon{deliverer}
	w, err := jobs.NewWorker(deps)
	if err != nil {
		return err
	}
	if cfg.MetricsAddr != "" {
		srv := &http.Server{Addr: cfg.MetricsAddr, Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
		go func() {
			if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("metrics server stopped", "addr", cfg.MetricsAddr, "err", err)
			}
		}()
		defer srv.Close()
	}
	if cfg.PprofAddr != "" {
		stop, _, err := servePprofOn(cfg.PprofAddr, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	// Canceling ctx (a signal) makes River stop fetching, let running jobs
	// finish for ShutdownGrace, then cancel them back to the queue.
	if err := w.Start(ctx); err != nil {
		return err
	}
	log.Info("worker started", "id", w.ID(), "matches", cfg.MatchConcurrency, "builds", cfg.BuildConcurrency, "sandbox", mode,
		"procs", runtime.GOMAXPROCS(0))
	dispatched := make(chan struct{})
	go func() {
		defer close(dispatched)
		deliverer.Run(ctx)
	}()
	<-ctx.Done()
	<-dispatched
	log.Info("worker stopping: finishing running jobs", "grace", cfg.ShutdownGrace)
	<-w.Stopped()
	log.Info("worker stopped")
	return nil
}

// runners are the sandboxes of matches (nil: host) and builds, and the
// cgroups they were given (nil without the sandbox).
type runners struct {
	match   *sandbox.Bwrap
	build   sandbox.Runner
	cgroups *sandbox.Delegation
}

// sandboxes applies SANDBOX: required refuses to start where the limits
// cannot be enforced, auto falls back to the host with a warning, off
// never confines (development only).
func sandboxes(ctx context.Context, cfg Config, log *slog.Logger) (runners, string, error) {
	host := sandbox.NewHost(sandbox.HostConfig{})
	if cfg.Sandbox == "off" {
		log.Warn("SANDBOX=off: bots run unconfined on this machine; never do this with others' code")
		return runners{build: host}, "off", nil
	}
	// On cgroup v2 the worker needs a cgroup of its own to limit bots;
	// the log says how it got one, or why it could not.
	cgroups, err := sandbox.Delegate(ctx)
	if err != nil {
		log.Warn("cgroups for the sandbox", "err", err)
	} else {
		log.Info("cgroups for the sandbox", "version", cgroups.Version, "how", cgroups.How, "dir", cgroups.Dir)
	}
	caps := sandbox.Probe(ctx)
	if err := sandbox.Require(caps); err != nil {
		cgroups.Close()
		if cfg.Sandbox == "required" {
			return runners{}, "", fmt.Errorf("SANDBOX=required: %w", err)
		}
		log.Warn("SANDBOX=auto: bots run unconfined because the sandbox cannot be enforced here", "capabilities", caps.String())
		return runners{build: host}, "host", nil
	}
	// What the sandbox enforces here, so a deploy (a container's security
	// options, its cgroups) can be checked from the log.
	log.Info("sandbox probe", "capabilities", caps.String())
	sb, err := jobs.NewSandboxes(log)
	if err != nil {
		cgroups.Close()
		return runners{}, "", err
	}
	return runners{match: sb.Match, build: sb.Build, cgroups: cgroups}, "bwrap", nil
}

// waitForDatabase waits up to within for the database to answer, so a
// worker started while Postgres restarts (or before it, in a compose
// file) comes up when the database does instead of exiting.
func waitForDatabase(ctx context.Context, pool *pgxpool.Pool, within time.Duration, log *slog.Logger) error {
	deadline := time.Now().Add(within)
	for {
		err := pool.Ping(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("connect to DATABASE_URL: %w", err)
		}
		log.Warn("waiting for the database", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
}

// servePprofOn serves net/http/pprof at addr, which the configuration has
// checked is a loopback address: profiles show the worker's internals and
// cost CPU to take, so they are for an operator on the machine. The
// handlers go on a mux of their own, not http.DefaultServeMux.
func servePprofOn(addr string, log *slog.Logger) (stop func(), bound string, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("WORKER_PPROF_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("profiler stopped", "addr", addr, "err", err)
		}
	}()
	log.Info("profiler listening", "addr", "http://"+ln.Addr().String()+"/debug/pprof/")
	return func() { srv.Close() }, ln.Addr().String(), nil
}

// newDeliverer makes the notification deliverer of cfg: hooks reach only
// public addresses (and loopback with DEV_MODE), e-mail goes through
// SMTP_URL when set.
func newDeliverer(cfg Config, st *store.Store, log *slog.Logger) *notify.Deliverer {
	policy := egress.NewPolicy()
	policy.AllowLoopback = cfg.Dev
	ncfg := notify.Config{Store: st, Logger: log, From: cfg.SMTPFrom, PublicURL: cfg.PublicURL, Egress: policy}
	if cfg.SMTP != nil {
		ncfg.Mailer = cfg.SMTP
	}
	return notify.NewDeliverer(ncfg)
}
