package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// recorder samples the running season: ladder queue depth, each worker's
// memory, the portal's answers.
type recorder struct {
	p    *platform
	mu   sync.Mutex
	done chan struct{}
	// maxPending is the most ladder matches queued or running per game.
	maxPending map[string]int
	// rss holds each worker's resident memory samples in KiB, by worker.
	rss map[int][]int64
	// pageErrors counts leaderboard requests that failed.
	pageErrors, pageOK int
}

func newRecorder(p *platform) *recorder {
	return &recorder{p: p, done: make(chan struct{}), maxPending: map[string]int{}, rss: map[int][]int64{}}
}

func (r *recorder) sample(ctx context.Context) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.done:
			return
		case <-t.C:
		}
		r.sampleOnce(ctx)
	}
}

func (r *recorder) sampleOnce(ctx context.Context) {
	rows, err := r.p.pool.Query(ctx, `
		SELECT game, count(*) FROM matches
		WHERE kind IN ('ladder', 'placement') AND status IN ('queued', 'running') GROUP BY game`)
	if err == nil {
		for rows.Next() {
			var g string
			var n int
			if rows.Scan(&g, &n) == nil {
				r.mu.Lock()
				r.maxPending[g] = max(r.maxPending[g], n)
				r.mu.Unlock()
			}
		}
		rows.Close()
	}
	for _, w := range r.p.liveWorkers() {
		if kb := residentKiB(w.cmd.Process.Pid); kb > 0 {
			r.mu.Lock()
			r.rss[w.id] = append(r.rss[w.id], kb)
			r.mu.Unlock()
		}
	}
	ok := waitHTTP(ctx, r.p.base+"/leaderboard", time.Second) == nil
	r.mu.Lock()
	if ok {
		r.pageOK++
	} else {
		r.pageErrors++
	}
	r.mu.Unlock()
}

func (r *recorder) stop() { close(r.done) }

// residentKiB reads a process's VmRSS.
func residentKiB(pid int) int64 {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// check is one invariant and what was measured for it.
type check struct {
	name   string
	ok     bool
	detail string
}

func allPassed(cs []check) bool {
	for _, c := range cs {
		if !c.ok {
			return false
		}
	}
	return true
}

// check runs every invariant against the database and the samples.
func (se *season) check(ctx context.Context, rec *recorder, drainFrom time.Time, settled bool) []check {
	db := se.p.pool
	var out []check
	add := func(name string, ok bool, format string, args ...any) {
		out = append(out, check{name: name, ok: ok, detail: fmt.Sprintf(format, args...)})
	}
	count := func(query string, args ...any) int {
		var n int
		if err := db.QueryRow(ctx, query, args...).Scan(&n); err != nil {
			se.log.Error("soak: check query", "query", query, "err", err)
			return -1
		}
		return n
	}

	add("season settled by itself", settled, "battle finished, matches ended and every bot rated within the drain time")

	// Ticks kept their interval: the longest gap between two runs of each.
	for _, tick := range []struct {
		kind  string
		every time.Duration
	}{{"ladder_tick", ladderEvery}, {"battle_tick", battleEvery}} {
		var gap float64
		var runs int
		_ = db.QueryRow(ctx, `
			SELECT coalesce(max(extract(epoch FROM d)), 0), count(*) FROM (
			    SELECT finalized_at - lag(finalized_at) OVER (ORDER BY finalized_at) AS d
			    FROM river_job WHERE kind = $1 AND state = 'completed') g`, tick.kind).Scan(&gap, &runs)
		// A killed leader hands over within River's leadership TTL, and
		// the database restart pauses everything for a few seconds.
		limit := max(3*tick.every, 45*time.Second)
		add("ticks kept their interval: "+tick.kind, runs > 2 && time.Duration(gap*float64(time.Second)) <= limit,
			"%d runs every %s, longest gap %.1f s (limit %s)", runs, tick.every, gap, limit)
	}

	// The rescue runs in every worker after each heartbeat, not as a job.
	var rescues int
	_ = db.QueryRow(ctx, `SELECT coalesce(sum(runs), 0) FROM periodic_runs WHERE name = 'rescue'`).Scan(&rescues)
	add("dead workers' jobs looked for after every heartbeat", rescues > 0, "%d rescue passes", rescues)

	// A match waiting in the queue behind others is a backlog, not stuck;
	// a tick waiting, a job running past the match timeout, a discarded job
	// or one tried more often than allowed is.
	stuck := count(`SELECT count(*) FROM river_job WHERE state = 'running' AND attempted_at < now() - interval '10 minutes'`)
	ticks := count(`SELECT count(*) FROM river_job WHERE queue = 'competition' AND state IN ('available', 'retryable') AND scheduled_at < now() - interval '2 minutes'`)
	discarded := count(`SELECT count(*) FROM river_job WHERE state = 'discarded'`)
	over := count(`SELECT count(*) FROM river_job WHERE attempt > max_attempts + 1`)
	retried := count(`SELECT coalesce(max(attempt), 0) FROM river_job`)
	add("no job stuck or retried for ever", stuck == 0 && ticks == 0 && discarded == 0 && over == 0,
		"%d running past the match timeout, %d ticks waiting over 2 min, %d discarded, %d over their attempts; most attempts of one job: %d",
		stuck, ticks, discarded, over, retried)

	open := count(`SELECT count(*) FROM matches WHERE created_at < $1 AND status IN ('queued', 'running')`, drainFrom)
	failedSilent := count(`SELECT count(*) FROM matches WHERE status = 'failed' AND error = ''`)
	failed := count(`SELECT count(*) FROM matches WHERE status = 'failed'`)
	finished := count(`SELECT count(*) FROM matches WHERE status = 'finished'`)
	add("every match finished, or failed with a reason", open == 0 && failedSilent == 0,
		"%d finished, %d failed (all with a reason: %t), %d still open from before the drain", finished, failed, failedSilent == 0, open)

	lost := count(`SELECT count(*) FROM matches m WHERE NOT EXISTS (
		SELECT 1 FROM river_job j WHERE j.kind = 'match' AND (j.args->>'match_id')::bigint = m.id)`)
	add("no match lost", lost == 0, "%d matches without a job", lost)

	// A rating period is a ranked match, or a pair of them (the same
	// seed, the seats swapped), rated once on the half that finished
	// last; a pair with a half that did not finish is not rated.
	wrong := count(`
		WITH periods AS (
			SELECT coalesce(m.pair_id, m.id) AS period, count(*) AS halves,
			       count(*) FILTER (WHERE m.status = 'finished') AS finished,
			       bool_and(m.status IN ('finished', 'failed', 'canceled')) AS done,
			       max((SELECT count(*) FROM match_players p WHERE p.match_id = m.id)) AS seats,
			       sum((SELECT count(*) FROM rating_events e WHERE e.match_id = m.id)) AS events
			FROM matches m WHERE m.ranked GROUP BY 1)
		SELECT count(*) FROM periods
		WHERE done AND events <> CASE WHEN finished = halves THEN seats ELSE 0 END`)
	ranked := count(`SELECT count(*) FROM matches WHERE ranked AND status = 'finished'`)
	unrankedRated := count(`SELECT count(*) FROM rating_events e JOIN matches m ON m.id = e.match_id WHERE NOT m.ranked OR m.status <> 'finished'`)
	add("every finished ranked match or pair rated exactly once", wrong == 0 && unrankedRated == 0 && ranked > 0,
		"%d ranked matches, %d matches or pairs with the wrong number of rating events, %d events of unranked or unfinished matches", ranked, wrong, unrankedRated)

	recompute := exec.CommandContext(ctx, filepath.Join(se.p.dir, "bin", "worker"), "recompute-ratings")
	recompute.Env = append(os.Environ(), se.p.storageEnv()...)
	rout, rerr := recompute.CombinedOutput()
	add("ratings equal a recomputation from rating_events", rerr == nil && strings.Contains(string(rout), "Stored ratings equal the history"),
		"%s", strings.TrimSpace(lastLine(string(rout))))

	var status string
	var hidden bool
	var released bool
	_ = db.QueryRow(ctx, `SELECT status, results_hidden, released FROM battles WHERE id = $1`, se.battleID).Scan(&status, &hidden, &released)
	games := count(`SELECT count(*) FROM battle_games WHERE battle_id = $1`, se.battleID)
	placed := count(`SELECT count(*) FROM battle_entries WHERE battle_id = $1 AND final_position IS NOT NULL`, se.battleID)
	add("the battle started by itself, finished, leaderboard released", status == "finished" && (!hidden || released) && placed == battleSize,
		"status %s after %d games, %d of %d entrants placed, results public: %t", status, games, placed, battleSize, !hidden || released)

	rec.mu.Lock()
	var bounded = true
	var pend []string
	for g, n := range rec.maxPending {
		pend = append(pend, fmt.Sprintf("%s %d", g, n))
		// A pair takes two slots and is made while one is free, so a
		// two-player ladder may hold one match more than its slots.
		if n > ladderSlots+1 {
			bounded = false
		}
	}
	slices.Sort(pend)
	add("ladder queue stayed bounded", bounded, "most ladder matches waiting per game: %s (slots %d, one more for a pair)", strings.Join(pend, ", "), ladderSlots)

	flat, mem := memoryFlat(rec.rss)
	add("each worker's memory stayed flat", flat, "%s", mem)
	pageErrors, pageOK := rec.pageErrors, rec.pageOK
	rec.mu.Unlock()

	unrated := count(unratedBotsQuery, se.botIDs())
	add("every bot of every contestant got ranked games", unrated == 0, "%d of %d bots without a finished ranked match", unrated, len(se.bots))

	badStored := count(`SELECT count(*) FROM bots WHERE name LIKE 'bad-%'`)
	add("bad uploads refused, nothing stored", se.p.badRefused == se.p.badUploads && badStored == 0,
		"%d of %d refused with a 4xx, %d stored", se.p.badRefused, se.p.badUploads, badStored)

	overdue := count(`SELECT count(*) FROM periodic_runs WHERE now() - coalesce(last_finished_at, updated_at) > 3 * interval_ms * interval '1 millisecond'`)
	add("no periodic job overdue at the end", overdue == 0, "%d overdue", overdue)

	add("portal answered the leaderboard", pageErrors <= 3, "%d answers, %d failures (the database restart may cost a few)", pageOK, pageErrors)
	return out
}

// memoryFlat compares each long-lived worker's memory after warm-up with
// its last sample: growth of more than half, and 64 MiB, is a leak.
func memoryFlat(rss map[int][]int64) (bool, string) {
	ok := true
	var parts []string
	ids := make([]int, 0, len(rss))
	for id := range rss {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s := rss[id]
		if len(s) < 6 {
			parts = append(parts, fmt.Sprintf("worker %d: too short-lived to judge", id))
			continue
		}
		warm, last, peak := s[len(s)/4], s[len(s)-1], slices.Max(s)
		grew := last > warm*3/2 && last-warm > 64*1024
		if grew {
			ok = false
		}
		parts = append(parts, fmt.Sprintf("worker %d: %d→%d MiB (peak %d)", id, warm/1024, last/1024, peak/1024))
	}
	return ok, strings.Join(parts, "; ")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// figures are the season's measurements for the report.
func (se *season) figures(ctx context.Context) []string {
	db := se.p.pool
	var out []string
	rows, err := db.Query(ctx, `SELECT game, count(*) FROM matches WHERE status = 'finished' GROUP BY game ORDER BY game`)
	if err == nil {
		var parts []string
		total := 0
		for rows.Next() {
			var g string
			var n int
			if rows.Scan(&g, &n) == nil {
				parts = append(parts, fmt.Sprintf("%s %d", g, n))
				total += n
			}
		}
		rows.Close()
		out = append(out, fmt.Sprintf("matches played: %d (%s)", total, strings.Join(parts, ", ")))
	}
	rows, err = db.Query(ctx, `
		SELECT h.worker_id, count(j.id), extract(epoch FROM h.last_seen_at - h.started_at)
		FROM worker_heartbeats h
		LEFT JOIN river_job j ON j.kind = 'match' AND j.state = 'completed'
		     AND j.attempted_by[cardinality(j.attempted_by)] = h.worker_id
		GROUP BY h.worker_id, h.started_at, h.last_seen_at ORDER BY h.started_at`)
	if err == nil {
		var parts []string
		for rows.Next() {
			var id string
			var n int
			var secs float64
			if rows.Scan(&id, &n, &secs) == nil && secs > 0 {
				parts = append(parts, fmt.Sprintf("%d in %.1f min (%.1f/min)", n, secs/60, float64(n)/(secs/60)))
			}
		}
		rows.Close()
		out = append(out, "matches per worker: "+strings.Join(parts, "; "))
	}
	var waits []time.Duration
	for _, b := range se.bots {
		var first *time.Time
		_ = db.QueryRow(ctx, `SELECT min(m.finished_at) FROM matches m JOIN match_players p ON p.match_id = m.id
			WHERE p.bot_id = $1 AND m.ranked AND m.status = 'finished'`, b.id).Scan(&first)
		if first != nil {
			waits = append(waits, first.Sub(b.uploaded))
		}
	}
	if len(waits) > 0 {
		slices.Sort(waits)
		out = append(out, fmt.Sprintf("upload to first finished ranked match: min %s, median %s, max %s (%d bots)",
			waits[0].Round(time.Second), waits[len(waits)/2].Round(time.Second), waits[len(waits)-1].Round(time.Second), len(waits)))
	}
	out = append(out, fmt.Sprintf("challenges played: %d; battle started at %s", se.challenges, se.battleStart.Format(time.TimeOnly)))
	return out
}

// printTable prints the invariants and the season's figures.
func printTable(w io.Writer, cs []check, figures []string, rec *recorder, s settings) {
	fmt.Fprintf(w, "\nSoak of %.1f minutes: %d worker kills, %d PostgreSQL restart(s), %d bad uploads, %d worker(s) restarted after exiting\n\n",
		s.minutes, rec.p.kills, rec.p.pgRestarts, rec.p.badUploads, rec.p.restartsAfterExit)
	fmt.Fprintf(w, "| invariant | result | measured |\n|---|---|---|\n")
	for _, c := range cs {
		res := "PASS"
		if !c.ok {
			res = "FAIL"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", c.name, res, c.detail)
	}
	fmt.Fprintln(w)
	for _, f := range figures {
		fmt.Fprintln(w, "- "+f)
	}
}
