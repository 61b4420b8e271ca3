package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Ping checks that the database answers a query, for the health check.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.db.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// ladderLockKey names the advisory lock that keeps two ladder ticks (of
// two worker processes) from matching the same bots at once.
const ladderLockKey = 0x6c6164646572 // "ladder"

// WithLadderLock runs fn while holding the ladder's session advisory lock,
// on a connection of its own. When another process holds the lock, fn does
// not run and ran is false: that process is doing the same work.
func (s *Store) WithLadderLock(ctx context.Context, fn func(ctx context.Context) error) (ran bool, err error) {
	if s.pool == nil {
		return false, errors.New("store: the ladder lock needs a pool")
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("store: ladder lock: %w", err)
	}
	defer conn.Release()
	var locked bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, ladderLockKey).Scan(&locked); err != nil {
		return false, fmt.Errorf("store: ladder lock: %w", err)
	}
	if !locked {
		return false, nil
	}
	defer func() {
		// A fresh context: the lock must go even when ctx has ended.
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, ladderLockKey)
	}()
	return true, fn(ctx)
}

// RatingsLockTable locks the ratings table against writers (finishing matches)
// until the transaction ends; readers go on. The Store must be inside a
// transaction.
func (s *Store) RatingsLockTable(ctx context.Context) error {
	if _, ok := s.db.(pgx.Tx); !ok {
		return errors.New("store: locking the ratings needs a transaction")
	}
	if _, err := s.db.Exec(ctx, `LOCK TABLE ratings IN EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("store: lock ratings: %w", err)
	}
	return nil
}
