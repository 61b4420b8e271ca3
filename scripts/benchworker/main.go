// Command benchworker plays matches of two Python starter bots through the
// whole pipeline (queue, build, sandboxed match, replay in storage, rating)
// with the real worker binary, once per sandbox mode, and prints the
// throughput, the queue wait and the cost of a round beside what the bots
// themselves cost. Run it through `make bench-worker`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
)

func main() {
	admin := flag.String("admin", envOr("BENCH_ADMIN_URL", envOr("TEST_DATABASE_URL",
		"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")), "PostgreSQL maintenance database")
	worker := flag.String("worker", "bin/worker", "worker binary")
	n := flag.Int("n", 20, "matches per sandbox mode")
	modes := flag.String("modes", "off,required", "SANDBOX values to run, in order")
	concurrency := flag.Int("concurrency", 1, "WORKER_CONCURRENCY")
	workers := flag.Int("workers", 1, "worker processes, each with its own WORK_DIR")
	botDir := flag.String("bot", "bots/entelect-python3", "the starter bot both seats play")
	profile := flag.String("profile", "", "folder for CPU profiles of the worker processes while the matches play (WORKER_PPROF_ADDR)")
	scale := flag.Bool("scale", false, "run 1, 2, 4 ... worker processes up to the CPU cores, -n matches each, in the first of -modes, and print one row per count")
	keep := flag.Bool("keep", false, "keep the bench's folder: the workers' logs and folders, and the replays unpacked")
	flag.Parse()
	opts := options{profile: *profile, keep: *keep}
	if *scale {
		if err := runScale(context.Background(), *admin, *worker, *botDir, strings.Split(*modes, ",")[0], *n, *concurrency, opts); err != nil {
			fmt.Fprintln(os.Stderr, "bench-worker:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), *admin, *worker, *botDir, strings.Split(*modes, ","), *n, *concurrency, *workers, opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench-worker:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// options are the run's optional measurements.
type options struct {
	// profile is a folder for CPU profiles of the workers; empty: none.
	profile string
	// keep leaves the bench's folder (the workers' logs and folders, the
	// replays) in place.
	keep bool
}

// modeResult is one sandbox mode's run.
type modeResult struct {
	mode             string
	matches          int
	perMinute        float64
	waitP50, waitP95 time.Duration
	rounds           roundCosts
	interp           time.Duration // python3 -c pass while the matches played
	// cpu is what the worker processes used while the matches played:
	// their own threads (self) and their reaped children (the sandboxes,
	// the supervisors and the bots).
	cpu processCPU
	// statements the workers sent to PostgreSQL while the matches played
	// (broadside_worker_db_statements_total); -1 when a worker does not
	// export the count.
	statements int64
	// spent is where the workers' wall time went.
	spent matchTime
}

func run(ctx context.Context, admin, worker, botDir string, modes []string, n, concurrency, workers int, opts options) error {
	workerBin, err := filepath.Abs(worker)
	if err != nil {
		return err
	}
	botDir, err = filepath.Abs(botDir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "bench-worker-")
	if err != nil {
		return err
	}
	defer removeUnless(opts.keep, tmp)
	var results []modeResult
	for i, mode := range modes {
		r, err := runMode(ctx, admin, workerBin, botDir, filepath.Join(tmp, fmt.Sprint(i)), mode, n, concurrency, workers, opts)
		if err != nil {
			return fmt.Errorf("SANDBOX=%s: %w", mode, err)
		}
		results = append(results, r)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nbench-worker: %d matches per mode of two %s bots (entelect, 10x10), %d worker process(es), WORKER_CONCURRENCY=%d, load average at the end %s\n\n",
		n, filepath.Base(botDir), workers, concurrency, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Println("| SANDBOX | matches/min | queue wait p50 | p95 | rounds | round wall p50 (p10–p90) | bots' wall per round (A+B) | bots' CPU per round | platform per turn p50 (p90) | python3 -c pass p50 | round / python3 start |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		c := r.rounds
		fmt.Printf("| %s | %.2f | %s | %s | %d | %s (%s–%s) | %s | %s | %s (%s) | %s | %.2f× |\n",
			r.mode, r.perMinute, r.waitP50.Round(time.Second), r.waitP95.Round(time.Second), len(c.wall),
			ms(quantile(c.wall, 0.5)), ms(quantile(c.wall, 0.1)), ms(quantile(c.wall, 0.9)),
			ms(quantile(c.botWall, 0.5)), ms(quantile(c.botCPU, 0.5)),
			ms(quantile(c.overhead, 0.5)), ms(quantile(c.overhead, 0.9)), ms(r.interp),
			float64(quantile(c.wall, 0.5))/float64(r.interp))
	}
	fmt.Println("\nCPU per round (less distorted by load than wall times):")
	fmt.Println()
	fmt.Println("| SANDBOX | rounds | worker's own CPU per round | children's CPU per round | bots' CPU per round | worker ÷ bots | sandbox CPU per round (children − bots) | python3 -c pass CPU | Postgres statements per round |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		rounds := time.Duration(max(1, r.rounds.total))
		fmt.Printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.mode, r.rounds.total,
			ms(r.cpu.self/rounds), ms(r.cpu.children/rounds), ms(r.rounds.botCPUSum/rounds), share(r.cpu.self, r.rounds.botCPUSum),
			ms((r.cpu.children-r.rounds.botCPUSum)/rounds), ms(r.cpu.interp), perRound(r.statements, r.rounds.total))
	}
	fmt.Println("\nWhere the workers' time went (share of every match slot's time over the bench; mean per match):")
	fmt.Println()
	fmt.Println("| SANDBOX | slots | setup: to the first bot turn | play: to the last round's end | finish: the result stored | idle while matches were queued | idle with none queued |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range results {
		t, m := r.spent, time.Duration(max(1, r.matches))
		empty := t.idle - t.idleQueued
		fmt.Printf("| %s | %d | %s, %s (p50 %s) | %s, %s | %s, %s | %s, %s | %s, %s |\n", r.mode, t.slots,
			t.share(t.setup), ms(t.setup/m), ms(t.setupP50), t.share(t.play), ms(t.play/m), t.share(t.finish), ms(t.finish/m),
			t.share(t.idleQueued), ms(t.idleQueued/m), t.share(empty), ms(empty/m))
	}
	fmt.Println("\nA round's wall in play (mean):")
	fmt.Println()
	fmt.Println("| SANDBOX | before its first turn | its turns, first start to last end | after its last turn | the slower bot's lead | a bot's wall |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, r := range results {
		c := r.rounds
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", r.mode, ms(mean(c.before)), ms(mean(c.turns)), ms(mean(c.after)),
			ms(mean(c.imbalance)), ms(mean(c.botWall)/2))
	}
	fmt.Println("\nround wall: between the engine's ends of two rounds (engine.log); bots' wall and CPU: as the runner measured")
	fmt.Println("each bot process (log.txt); platform per turn: the engine's time for a turn (log.txt timestamps) less the bot's wall;")
	fmt.Println("python3 -c pass: sampled on the host while the matches played (wall p50; CPU: user+sys of the samples, mean).")
	fmt.Println("worker's own CPU: user+sys of the worker processes' own threads (/proc/PID/stat utime+stime) from the first")
	fmt.Println("match queued to the last finished, over every round played; children's: the sandboxes, supervisors and bots")
	fmt.Println("the workers reaped in that time (cutime+cstime), which includes the bots' CPU. Postgres statements: what the")
	fmt.Println("workers sent in that time (broadside_worker_db_statements_total: queries, execs, BEGIN and COMMIT, batched queries).")
	fmt.Println("setup: from the match marked running to its first bot turn (the bots fetched, the seats' sandboxes started);")
	fmt.Println("finish: from the last round's end to the result stored (the replay, the ratings); idle: a slot with no match,")
	fmt.Println("while a match waited in the queue (a worker slow to take it) or with none queued (the bench's start and end).")
	fmt.Println("A round's turns run at once, so the slower bot sets the round while the other's core waits.")
	if opts.keep {
		fmt.Printf("\nThe workers' logs, their folders and the replays are kept in %s\n", tmp)
	}
	if opts.profile != "" {
		fmt.Printf("\nCPU profiles of the workers in %s; read them with\n  go tool pprof -top %s %s/*.pb.gz\n", opts.profile, worker, opts.profile)
	}
	return nil
}

// runScale plays n matches per worker process with 1, 2, 4 ... processes
// up to the machine's cores, each count on a fresh database, and prints
// one row per count: how the worker's own costs grow with the processes
// beside it, and how close the machine comes to what the bots alone
// would allow.
func runScale(ctx context.Context, admin, worker, botDir, mode string, n, concurrency int, opts options) error {
	workerBin, err := filepath.Abs(worker)
	if err != nil {
		return err
	}
	if botDir, err = filepath.Abs(botDir); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "bench-worker-")
	if err != nil {
		return err
	}
	defer removeUnless(opts.keep, tmp)
	cores := runtime.NumCPU()
	fmt.Printf("bench-worker -scale: SANDBOX=%s, %d matches per worker process of two %s bots (entelect, 10x10), WORKER_CONCURRENCY=%d, %d cores\n\n",
		mode, n, filepath.Base(botDir), concurrency, cores)
	fmt.Println("| workers | matches | matches/min | worker's own CPU per round | Postgres statements per round | bots' CPU per round | worker ÷ bots | bots' CPU per match | bots-only limit (matches/min) | efficiency | with matches queued | load average at the end |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, w := range scaleSteps(cores) {
		stepOpts := opts
		if opts.profile != "" {
			stepOpts.profile = filepath.Join(opts.profile, fmt.Sprintf("workers-%d", w))
		}
		r, err := runMode(ctx, admin, workerBin, botDir, filepath.Join(tmp, fmt.Sprint(w)), mode, n*w, concurrency, w, stepOpts)
		if err != nil {
			return fmt.Errorf("%d workers: %w", w, err)
		}
		load, _ := os.ReadFile("/proc/loadavg")
		rounds := time.Duration(max(1, r.rounds.total))
		perMatch := r.rounds.botCPUSum / time.Duration(max(1, r.matches))
		// The bots alone, every core busy with them and nothing else.
		limit := float64(cores) * float64(time.Minute) / float64(max(1, perMatch))
		fmt.Printf("| %d | %d | %.2f | %s | %s | %s | %s | %s | %.1f | %.0f%% | %.0f%% | %s |\n", w, r.matches, r.perMinute,
			ms(r.cpu.self/rounds), perRound(r.statements, r.rounds.total), ms(r.rounds.botCPUSum/rounds),
			share(r.cpu.self, r.rounds.botCPUSum), ms(perMatch), limit, 100*r.perMinute/limit,
			100*float64(r.matches)/r.spent.queuedSpan().Minutes()/limit,
			strings.Join(strings.Fields(string(load))[:3], " "))
	}
	fmt.Println("\nworker's own CPU: user+sys of the worker processes' own threads over every round played; Postgres statements:")
	fmt.Println("what the workers sent while the matches played; bots' CPU: as the sandbox measured each bot process;")
	fmt.Println("bots-only limit: cores ÷ bots' CPU per match, the matches per minute of a machine that did nothing but run the")
	fmt.Println("bots; efficiency: matches/min ÷ that limit; with matches queued: the same without the slots' time idle while")
	fmt.Println("nothing was queued (the bench's start and its last matches), the rate of a fleet that never runs out of work.")
	return nil
}

// share is the worker's own CPU as a share of the bots': what load
// inflates alike in both, the figure to compare between machines and runs.
func share(worker, bots time.Duration) string {
	if bots <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(worker)/float64(bots))
}

// scaleSteps are 1, 2, 4 ... up to cores, and cores itself.
func scaleSteps(cores int) []int {
	var steps []int
	for w := 1; w < cores; w *= 2 {
		steps = append(steps, w)
	}
	return append(steps, cores)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func runMode(ctx context.Context, admin, workerBin, botDir, dir, mode string, n, concurrency, workers int, opts options) (modeResult, error) {
	res := modeResult{mode: mode}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	dbURL, drop, err := freshDatabase(ctx, admin, fmt.Sprintf("broadside_bench_worker_%d", os.Getpid()))
	if err != nil {
		return res, err
	}
	defer drop()
	if err := store.Migrate(ctx, dbURL); err != nil {
		return res, err
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return res, err
	}
	defer pool.Close()
	blobURL := "file://" + filepath.Join(dir, "blobs")
	bucket, err := blob.Open(ctx, blobURL)
	if err != nil {
		return res, err
	}
	defer bucket.Close()
	client, err := jobs.NewClient(pool)
	if err != nil {
		return res, err
	}
	var owner int64
	if err := pool.QueryRow(ctx, `INSERT INTO users (username, password_hash) VALUES ('bench', '!') RETURNING id`).Scan(&owner); err != nil {
		return res, err
	}
	data, err := botzip.Pack(botDir)
	if err != nil {
		return res, err
	}
	var versions []int64
	for _, name := range []string{"PyA", "PyB"} {
		v, err := upload(ctx, pool, bucket, client, owner, name, data)
		if err != nil {
			return res, err
		}
		versions = append(versions, v)
	}

	logFile, err := os.Create(filepath.Join(dir, "worker.log"))
	if err != nil {
		return res, err
	}
	defer logFile.Close()
	var pids []int
	var metrics, pprofs []string
	// A worker that ends before the bench stops it (a refused schema, a
	// bad setting) is reported, rather than waited for until the time limit.
	exited := make(chan error, workers)
	stopping := make(chan struct{})
	workerExited := func() error {
		select {
		case err := <-exited:
			return err
		default:
			return nil
		}
	}
	for w := range workers {
		work := filepath.Join(dir, fmt.Sprintf("work-%d", w))
		if err := os.MkdirAll(work, 0o755); err != nil {
			return res, err
		}
		metricsAddr, err := freeAddr()
		if err != nil {
			return res, err
		}
		metrics = append(metrics, metricsAddr)
		cmd := exec.Command(workerBin)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "BLOB_URL="+blobURL, "SANDBOX="+mode,
			"WORK_DIR="+work, "LOG_LEVEL=info", fmt.Sprintf("WORKER_CONCURRENCY=%d", concurrency),
			"WORKER_BUILD_CONCURRENCY=1", "METRICS_ADDR="+metricsAddr)
		if opts.profile != "" {
			pprofAddr, err := freeAddr()
			if err != nil {
				return res, err
			}
			pprofs = append(pprofs, pprofAddr)
			cmd.Env = append(cmd.Env, "WORKER_PPROF_ADDR="+pprofAddr)
		}
		if err := cmd.Start(); err != nil {
			return res, err
		}
		waited := make(chan struct{})
		go func() {
			defer close(waited)
			err := cmd.Wait()
			select {
			case <-stopping:
			default:
				exited <- fmt.Errorf("worker %d exited before the bench ended: %v", w, err)
			}
		}()
		defer func() {
			cmd.Process.Signal(syscall.SIGTERM)
			<-waited
		}()
		pids = append(pids, cmd.Process.Pid)
	}
	// Runs before the workers are stopped (deferred calls run last first).
	defer close(stopping)
	st := store.New(pool)
	for _, v := range versions {
		if err := waitFor(ctx, 10*time.Minute, func() (bool, error) {
			if err := workerExited(); err != nil {
				return false, err
			}
			bv, err := st.BotVersionGetByID(ctx, v)
			if err != nil {
				return false, err
			}
			if bv.BuildStatus == store.BuildFailed {
				return false, fmt.Errorf("build failed: %s", bv.BuildLog)
			}
			return bv.BuildStatus == store.BuildOK, nil
		}); err != nil {
			return res, fmt.Errorf("build (see %s): %w", logFile.Name(), err)
		}
	}
	var bots []int64
	for _, v := range versions {
		bv, err := st.BotVersionGetByID(ctx, v)
		if err != nil {
			return res, err
		}
		bots = append(bots, bv.BotID)
	}
	for i := range n {
		err := st.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
			m, err := st.MatchCreate(ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: int64(1000 + i),
				Kind: "ladder", Ranked: true, Players: []store.MatchPlayerParams{
					{BotID: bots[0], BotVersionID: versions[0]}, {BotID: bots[1], BotVersionID: versions[1]}}})
			if err != nil {
				return err
			}
			_, err = client.EnqueueMatchTx(ctx, tx, m.ID)
			return err
		})
		if err != nil {
			return res, err
		}
	}
	cpu0, err := workersCPU(pids)
	if err != nil {
		return res, err
	}
	statements0 := statementsSent(ctx, metrics)
	profileCtx, stopProfiles := context.WithCancel(ctx)
	profiled := profileWorkers(profileCtx, pprofs, opts.profile, mode)
	sampled := make(chan [2]time.Duration, 1)
	sampleCtx, stopSampling := context.WithCancel(ctx)
	go func() { wall, cpu := interpreterStarts(sampleCtx); sampled <- [2]time.Duration{wall, cpu} }()
	err = waitFor(ctx, time.Duration(n)*20*time.Minute, func() (bool, error) {
		if err := workerExited(); err != nil {
			return false, fmt.Errorf("%w (see %s)", err, logFile.Name())
		}
		var left, failed int
		err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status IN ('queued', 'running')),
			count(*) FILTER (WHERE status = 'failed') FROM matches`).Scan(&left, &failed)
		if failed > 0 {
			return false, fmt.Errorf("%d matches failed (see %s)", failed, logFile.Name())
		}
		return left == 0, err
	})
	stopSampling()
	stopProfiles()
	<-profiled
	interp := <-sampled
	res.interp, res.cpu.interp = interp[0], interp[1]
	if err != nil {
		return res, err
	}
	cpu1, err := workersCPU(pids)
	if err != nil {
		return res, err
	}
	res.cpu.self, res.cpu.children = cpu1.self-cpu0.self, cpu1.children-cpu0.children
	res.statements = -1
	if statements1 := statementsSent(ctx, metrics); statements0 >= 0 && statements1 >= 0 {
		res.statements = statements1 - statements0
	}
	rows, err := pool.Query(ctx, `SELECT created_at, started_at, finished_at, replay_key FROM matches ORDER BY id`)
	if err != nil {
		return res, err
	}
	var waits []time.Duration
	var first, last time.Time
	var keys []string
	var queued []queuedMatch
	for rows.Next() {
		var created, started, finished time.Time
		var key string
		if err := rows.Scan(&created, &started, &finished, &key); err != nil {
			return res, err
		}
		keys = append(keys, key)
		if first.IsZero() || created.Before(first) {
			first = created
		}
		if finished.After(last) {
			last = finished
		}
		waits = append(waits, started.Sub(created))
		queued = append(queued, queuedMatch{created, started, finished})
	}
	if err := rows.Err(); err != nil {
		return res, err
	}
	res.matches = len(waits)
	res.perMinute = float64(res.matches) / last.Sub(first).Minutes()
	slices.Sort(waits)
	res.waitP50, res.waitP95 = quantile(waits, 0.5), quantile(waits, 0.95)
	for i, key := range keys {
		replay := filepath.Join(dir, fmt.Sprintf("replay-%d", i))
		if err := unzipBlob(ctx, bucket, key, replay); err != nil {
			return res, err
		}
		if err := res.rounds.add(replay); err != nil {
			return res, fmt.Errorf("replay %s: %w", key, err)
		}
	}
	res.rounds.sort()
	res.spent = spendOf(queued, res.rounds.matches, workers*concurrency, last.Sub(first))
	return res, nil
}

// removeUnless removes the bench's folder unless asked to keep it.
func removeUnless(keep bool, dir string) {
	if keep {
		fmt.Println("kept", dir)
		return
	}
	os.RemoveAll(dir)
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(max(1, len(d)))
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

func waitFor(ctx context.Context, within time.Duration, done func() (bool, error)) error {
	deadline := time.Now().Add(within)
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %s", within)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
