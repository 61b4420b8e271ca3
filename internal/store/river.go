package store

import (
	"context"
	"fmt"
	"time"
)

// This file holds every query of River's own tables (river_job,
// river_migration): their columns and states are River's, not this
// project's migrations', and may change with River. They were written
// against River v0.51.1; TestRiverVersionPinned fails when go.mod names
// another, so whoever upgrades River rechecks them against its migrations
// and updates riverVersion.

// riverVersion is the River release the queries below were checked
// against.
const riverVersion = "v0.51.1"

// QueueCount is how many jobs of one kind are in one state of River's
// queue.
type QueueCount struct {
	Kind  string
	State string
	Count int64
}

// JobQueueDepth counts the jobs waiting (available, scheduled, retryable) or
// running, by kind: what an autoscaler sizes the workers by. It reads
// River's own table, whose states are River's (pinned by its migrations).
func (s *Store) JobQueueDepth(ctx context.Context) ([]QueueCount, error) {
	rows, err := s.db.Query(ctx, `
		SELECT kind, state::text, count(*)
		FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'running')
		GROUP BY kind, state
		ORDER BY kind, state`)
	if err != nil {
		return nil, fmt.Errorf("store: queue depth: %w", err)
	}
	defer rows.Close()
	var out []QueueCount
	for rows.Next() {
		var c QueueCount
		if err := rows.Scan(&c.Kind, &c.State, &c.Count); err != nil {
			return nil, fmt.Errorf("store: queue depth: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: queue depth: %w", err)
	}
	return out, nil
}

// WorkerList lists workers seen since a time, most recent first, each with
// the jobs it is running. A job's worker is the last client that took it
// (River's attempted_by), which is the worker's heartbeat id.
func (s *Store) WorkerList(ctx context.Context, since time.Time) ([]WorkerHeartbeat, error) {
	rows, err := s.db.Query(ctx, `
		SELECT h.worker_id, h.hostname, h.started_at, h.last_seen_at,
		       (SELECT count(*) FROM river_job j
		        WHERE j.state = 'running'
		          AND j.attempted_by[cardinality(j.attempted_by)] = h.worker_id)::int,
		       h.sandbox
		FROM worker_heartbeats h WHERE h.last_seen_at >= $1 ORDER BY h.last_seen_at DESC`, since)
	if err != nil {
		return nil, fmt.Errorf("store: list workers: %w", err)
	}
	defer rows.Close()
	var out []WorkerHeartbeat
	for rows.Next() {
		var h WorkerHeartbeat
		if err := rows.Scan(&h.WorkerID, &h.Hostname, &h.StartedAt, &h.LastSeenAt, &h.Running, &h.Sandbox); err != nil {
			return nil, fmt.Errorf("store: list workers: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// unfinishedBuildJobs is the part of a query that finds the build jobs
// (River's kind "build", whose args name a version) still waiting or
// running, with the owner of each version: the build queue as River holds
// it, so a version whose job was lost never counts.
const unfinishedBuildJobs = `
	FROM river_job j
	JOIN bot_versions v ON v.id = (j.args->>'version_id')::bigint
	JOIN bots b ON b.id = v.bot_id
	WHERE j.kind = 'build' AND j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled')`

// UploadUsage is what a user has used of the upload limits.
type UploadUsage struct {
	// Unfinished counts the user's builds waiting or running.
	Unfinished int
	// Recent counts the versions the user uploaded since the time asked
	// about; OldestRecent is when the first of them was, zero when none.
	Recent       int
	OldestRecent time.Time
}

// UploadUsageLocked returns what ownerID has used of the upload limits,
// counting the uploads made since since. Inside a transaction it first
// locks the user's row, so two uploads of one user are counted one after
// the other and cannot both pass a limit they reach together.
func (s *Store) UploadUsageLocked(ctx context.Context, ownerID int64, since time.Time) (UploadUsage, error) {
	var u UploadUsage
	if _, err := s.db.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, ownerID); err != nil {
		return u, fmt.Errorf("store: lock user %d for an upload: %w", ownerID, err)
	}
	var oldest *time.Time
	err := s.db.QueryRow(ctx, `
		SELECT (SELECT count(*) `+unfinishedBuildJobs+` AND b.owner_id = $1)::int, count(*)::int, min(v.created_at)
		FROM bot_versions v JOIN bots b ON b.id = v.bot_id
		WHERE b.owner_id = $1 AND v.created_at > $2`, ownerID, since).Scan(&u.Unfinished, &u.Recent, &oldest)
	if err != nil {
		return u, fmt.Errorf("store: upload usage of user %d: %w", ownerID, err)
	}
	if oldest != nil {
		u.OldestRecent = *oldest
	}
	return u, nil
}

// BuildQueuePlace tells where a version's build joins the queue: whether
// its bot is a house bot, and how many builds of the same owner wait or
// run already (the version's own job not yet among them).
func (s *Store) BuildQueuePlace(ctx context.Context, versionID int64) (house bool, ahead int, err error) {
	err = s.db.QueryRow(ctx, `
		SELECT ob.house, (SELECT count(*) `+unfinishedBuildJobs+` AND b.owner_id = ob.owner_id AND v.id <> $1)::int
		FROM bot_versions ov JOIN bots ob ON ob.id = ov.bot_id
		WHERE ov.id = $1`, versionID).Scan(&house, &ahead)
	if err != nil {
		return false, 0, fmt.Errorf("store: build queue place of version %d: %w", versionID, interpretError(err))
	}
	return house, ahead, nil
}

// RescuedJob is a job taken back from a worker that stopped sending
// heartbeats.
type RescuedJob struct {
	ID       int64
	Kind     string
	Attempt  int
	WorkerID string
}

// JobsRescueFromDeadWorkers makes the running jobs of workers silent for
// longer than deadAfter available again at once, with an error saying why,
// instead of waiting for River's own rescuer (which must wait longer than
// the longest job may run). A job's worker is the last client that took it
// (River's attempted_by), which the worker also uses as its heartbeat id.
// Jobs of a worker that never sent a heartbeat are left to River.
func (s *Store) JobsRescueFromDeadWorkers(ctx context.Context, deadAfter time.Duration) ([]RescuedJob, error) {
	rows, err := s.db.Query(ctx, `
		WITH dead AS (
		    SELECT worker_id FROM worker_heartbeats
		    WHERE last_seen_at < now() - make_interval(secs => $1)
		)
		UPDATE river_job j
		SET state = 'available', scheduled_at = now(),
		    errors = array_append(j.errors, jsonb_build_object(
		        'at', now(), 'attempt', j.attempt,
		        'error', 'worker ' || j.attempted_by[cardinality(j.attempted_by)] ||
		                 ' stopped sending heartbeats; job rescued',
		        'trace', ''))
		WHERE j.state = 'running'
		  AND j.attempted_by[cardinality(j.attempted_by)] IN (SELECT worker_id FROM dead)
		RETURNING j.id, j.kind, j.attempt, j.attempted_by[cardinality(j.attempted_by)]`,
		deadAfter.Seconds())
	if err != nil {
		return nil, fmt.Errorf("store: rescue jobs of dead workers: %w", err)
	}
	defer rows.Close()
	var out []RescuedJob
	for rows.Next() {
		var j RescuedJob
		if err := rows.Scan(&j.ID, &j.Kind, &j.Attempt, &j.WorkerID); err != nil {
			return nil, fmt.Errorf("store: rescue jobs of dead workers: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// riverMigrationsApplied lists the versions of River's migrations the
// database has (its main line), none where River's table does not exist
// yet (a fresh database).
func (s *Store) riverMigrationsApplied(ctx context.Context) ([]int, error) {
	// to_regclass says whether the table exists without an error that
	// would abort a transaction.
	var exists bool
	if err := s.db.QueryRow(ctx, `SELECT to_regclass('river_migration') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	if !exists {
		return nil, nil
	}
	rows, err := s.db.Query(ctx, `SELECT version FROM river_migration WHERE line = 'main'`)
	if err != nil {
		return nil, fmt.Errorf("store: read the job queue's migrations: %w", err)
	}
	defer rows.Close()
	var applied []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("store: read the job queue's migrations: %w", err)
		}
		applied = append(applied, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read the job queue's migrations: %w", err)
	}
	return applied, nil
}
