// Command benchworker plays matches of two Python starter bots through the
// whole pipeline (queue, build, sandboxed match, replay in storage, rating)
// with the real worker binary, once per sandbox mode, and prints the
// throughput, the queue wait and the cost of a round beside what the bots
// themselves cost. Run it through `make bench-worker`.
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
	botDir := flag.String("bot", "bots/entelect-python3", "the starter bot both seats play")
	turns := flag.Int("turns", 40, "bare runs of one bot turn to measure the bots' own cost")
	flag.Parse()
	if err := run(context.Background(), *admin, *worker, *botDir, strings.Split(*modes, ","), *n, *concurrency, *turns); err != nil {
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

// modeResult is one sandbox mode's run.
type modeResult struct {
	mode               string
	matches, rounds    int
	perMinute          float64
	waitP50, waitP95   time.Duration
	roundP50, roundMin time.Duration
	roundMax           time.Duration
	replayDir          string
}

func run(ctx context.Context, admin, worker, botDir string, modes []string, n, concurrency, turns int) error {
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
	defer os.RemoveAll(tmp)
	var results []modeResult
	for i, mode := range modes {
		r, err := runMode(ctx, admin, workerBin, botDir, filepath.Join(tmp, fmt.Sprint(i)), mode, n, concurrency)
		if err != nil {
			return fmt.Errorf("SANDBOX=%s: %w", mode, err)
		}
		results = append(results, r)
	}
	bare, err := bareTurns(ctx, botDir, results[len(results)-1].replayDir, turns)
	if err != nil {
		return err
	}
	interp, err := interpreterStart(ctx, turns)
	if err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nbench-worker: %d matches per mode of two %s bots (entelect, 10x10), WORKER_CONCURRENCY=%d, load average %s\n",
		n, filepath.Base(botDir), concurrency, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("one bare bot turn (python3 on the host, %d runs): wall p50 %s, CPU p50 %s; one start of python3 -c pass: wall p50 %s\n\n",
		turns, ms(bare.wall), ms(bare.cpu), ms(interp))
	fmt.Println("| SANDBOX | matches/min | queue wait p50 | p95 | round wall p50 (min–max) | bots' CPU per round | platform overhead per round | per turn | round / python3 start |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		over := r.roundP50 - 2*bare.wall
		fmt.Printf("| %s | %.1f | %s | %s | %s (%s–%s) | %s | %s | %s | %.2f× |\n",
			r.mode, r.perMinute, r.waitP50.Round(time.Millisecond), r.waitP95.Round(time.Millisecond),
			ms(r.roundP50), ms(r.roundMin), ms(r.roundMax), ms(2*bare.cpu), ms(over), ms(over/2),
			float64(r.roundP50)/float64(interp))
	}
	fmt.Println("\nround wall: a match's time from start to recorded result over its rounds (setup, replay upload and rating included);")
	fmt.Println("overhead: round wall less two bare bot turns.")
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func runMode(ctx context.Context, admin, workerBin, botDir, dir, mode string, n, concurrency int) (modeResult, error) {
	res := modeResult{mode: mode}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	dbURL, drop, err := freshDatabase(ctx, admin, "broadside_bench_worker")
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
	data, err := zipDir(botDir)
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

	cmd := exec.Command(workerBin)
	logFile, err := os.Create(filepath.Join(dir, "worker.log"))
	if err != nil {
		return res, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "BLOB_URL="+blobURL, "SANDBOX="+mode,
		"WORK_DIR="+filepath.Join(dir, "work"), "LOG_LEVEL=info", fmt.Sprintf("WORKER_CONCURRENCY=%d", concurrency),
		"WORKER_BUILD_CONCURRENCY=1")
	if err := os.MkdirAll(filepath.Join(dir, "work"), 0o755); err != nil {
		return res, err
	}
	if err := cmd.Start(); err != nil {
		return res, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	st := store.New(pool)
	for _, v := range versions {
		if err := waitFor(ctx, 10*time.Minute, func() (bool, error) {
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
			return client.EnqueueMatchTx(ctx, tx, m.ID)
		})
		if err != nil {
			return res, err
		}
	}
	if err := waitFor(ctx, time.Duration(n)*2*time.Minute, func() (bool, error) {
		var left, failed int
		err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status IN ('queued', 'running')),
			count(*) FILTER (WHERE status = 'failed') FROM matches`).Scan(&left, &failed)
		if failed > 0 {
			return false, fmt.Errorf("%d matches failed (see %s)", failed, logFile.Name())
		}
		return left == 0, err
	}); err != nil {
		return res, err
	}
	rows, err := pool.Query(ctx, `SELECT created_at, started_at, finished_at, rounds, replay_key FROM matches ORDER BY id`)
	if err != nil {
		return res, err
	}
	var waits, perRound []time.Duration
	var first, last time.Time
	var replayKey string
	for rows.Next() {
		var created, started, finished time.Time
		var rounds int
		if err := rows.Scan(&created, &started, &finished, &rounds, &replayKey); err != nil {
			return res, err
		}
		if first.IsZero() || created.Before(first) {
			first = created
		}
		if finished.After(last) {
			last = finished
		}
		waits = append(waits, started.Sub(created))
		perRound = append(perRound, finished.Sub(started)/time.Duration(max(rounds, 1)))
		res.rounds += rounds
	}
	if err := rows.Err(); err != nil {
		return res, err
	}
	res.matches = len(waits)
	res.perMinute = float64(res.matches) / last.Sub(first).Minutes()
	slices.Sort(waits)
	slices.Sort(perRound)
	res.waitP50, res.waitP95 = quantile(waits, 0.5), quantile(waits, 0.95)
	res.roundP50, res.roundMin, res.roundMax = quantile(perRound, 0.5), perRound[0], perRound[len(perRound)-1]
	res.replayDir = filepath.Join(dir, "replay")
	if err := unzipBlob(ctx, bucket, replayKey, res.replayDir); err != nil {
		return res, err
	}
	return res, nil
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

// freshDatabase creates an empty database and returns its URL and a func
// that drops it.
func freshDatabase(ctx context.Context, admin, name string) (string, func(), error) {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", admin, err)
	}
	defer conn.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`); err != nil {
		return "", nil, err
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+ident); err != nil {
		return "", nil, err
	}
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		return "", nil, err
	}
	url := strings.Replace(admin, "/"+cfg.Database+"?", "/"+name+"?", 1)
	if !strings.Contains(url, "/"+name) {
		return "", nil, fmt.Errorf("cannot place database %s in %s", name, admin)
	}
	drop := func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		c.Exec(context.Background(), `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`)
	}
	return url, drop, nil
}

// upload does what the portal does with an upload.
func upload(ctx context.Context, pool *pgxpool.Pool, bucket *blob.Bucket, client *jobs.Client, owner int64, name string, data []byte) (int64, error) {
	m, err := botzip.Inspect(bytes.NewReader(data), int64(len(data)), botzip.DefaultLimits())
	if err != nil {
		return 0, err
	}
	sum := sha256.Sum256(data)
	manifest, _ := json.Marshal(m)
	var versionID int64
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		res, err := store.NewTx(tx).UploadRecord(ctx, store.UploadParams{
			OwnerID: owner, Name: name, Game: m.Game, Language: m.BotType.String(), BotType: m.BotType.String(),
			Manifest: manifest, SourceSHA256: hex.EncodeToString(sum[:]), SourceSize: int64(len(data)),
			SourceKey: blob.SourceKey,
		})
		if err != nil {
			return err
		}
		versionID = res.VersionID
		if err := blob.Put(ctx, bucket, res.SourceKey, bytes.NewReader(data), "application/zip"); err != nil {
			return err
		}
		return client.EnqueueBuildTx(ctx, tx, res.VersionID)
	})
	return versionID, err
}

func zipDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func unzipBlob(ctx context.Context, bucket *blob.Bucket, key, dir string) error {
	data, err := bucket.ReadAll(ctx, key)
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for _, f := range zr.File {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return fmt.Errorf("replay entry %q leaves its folder", f.Name)
		}
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		r, err := f.Open()
		if err != nil {
			return err
		}
		body, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

type turnCost struct{ wall, cpu time.Duration }

// bareTurns runs one bot turn on the host, outside any sandbox, on a round
// folder of a played replay: what the bot itself costs.
func bareTurns(ctx context.Context, botDir, replayDir string, n int) (turnCost, error) {
	var round string
	err := filepath.WalkDir(replayDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if round == "" && d.Name() == "state.json" && filepath.Base(filepath.Dir(p)) == "A" &&
			strings.Contains(p, "Phase 2") {
			round = filepath.Dir(p)
		}
		return nil
	})
	if err != nil {
		return turnCost{}, err
	}
	if round == "" {
		return turnCost{}, errors.New("no round folder of player A in the replay")
	}
	var walls, cpus []time.Duration
	for range n {
		os.Remove(filepath.Join(round, "command.txt"))
		cmd := exec.CommandContext(ctx, "python3", filepath.Join(botDir, "bot.py"), "A", round)
		cmd.Dir = botDir
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			return turnCost{}, fmt.Errorf("bare turn in %s: %v\n%s", round, err, out)
		}
		walls = append(walls, time.Since(start))
		cpus = append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return turnCost{wall: quantile(walls, 0.5), cpu: quantile(cpus, 0.5)}, nil
}

// interpreterStart is the median wall time of starting python3 to do nothing.
func interpreterStart(ctx context.Context, n int) (time.Duration, error) {
	var walls []time.Duration
	for range n {
		start := time.Now()
		if err := exec.CommandContext(ctx, "python3", "-c", "pass").Run(); err != nil {
			return 0, err
		}
		walls = append(walls, time.Since(start))
	}
	slices.Sort(walls)
	return quantile(walls, 0.5), nil
}
