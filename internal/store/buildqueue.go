package store

import (
	"context"
	"fmt"
	"time"
)

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
