// Package store holds every SQL query of the platform (pgx). Methods are
// named entity then verb (BotGetByID) and run on whatever the Store was made
// from: the pool, or a transaction when several writes must land together.
// Files are named for the tables they query (bots.go, matches.go, ...),
// never for their callers; every query of River's own tables is in
// river.go, pinned to the River release it was checked against.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a write breaks a uniqueness rule (a taken
// username, a bot name already used by the same owner).
var ErrConflict = errors.New("store: already exists")

// DBTX is what queries run on: a *pgxpool.Pool or a pgx.Tx.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Store runs the platform's queries.
type Store struct {
	db   DBTX
	pool *pgxpool.Pool
}

// New returns a Store on a pool.
func New(pool *pgxpool.Pool) *Store {
	return &Store{db: pool, pool: pool}
}

// NewTx returns a Store whose queries run inside tx. InTx on it runs the
// function in the same transaction.
func NewTx(tx pgx.Tx) *Store {
	return &Store{db: tx}
}

// DB returns what the Store's queries run on.
func (s *Store) DB() DBTX { return s.db }

// InTx runs fn in a transaction and commits it when fn returns nil. On a
// Store already inside a transaction, fn runs in a savepoint of it: its
// writes land with the outer transaction, and an error undoes only them.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx, st *Store) error) error {
	if tx, ok := s.db.(pgx.Tx); ok {
		return pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
			return fn(sp, NewTx(sp))
		})
	}
	if conn, ok := s.db.(*pgx.Conn); ok {
		// A Store on one session (WithSessionLock).
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			return fn(tx, NewTx(tx))
		})
	}
	if s.pool == nil {
		return errors.New("store: no pool to begin a transaction on")
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return fn(tx, NewTx(tx))
	})
}

// InSnapshot runs fn in a read-only transaction that sees the database as
// it was when the transaction started (repeatable read), so a long read of
// several tables (the ratings and their whole history) is consistent while
// matches go on finishing. Inside a transaction it runs in that one.
func (s *Store) InSnapshot(ctx context.Context, fn func(st *Store) error) error {
	if _, ok := s.db.(pgx.Tx); ok {
		return s.InTx(ctx, func(_ pgx.Tx, st *Store) error { return fn(st) })
	}
	if s.pool == nil {
		return errors.New("store: no pool to begin a transaction on")
	}
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	return pgx.BeginTxFunc(ctx, s.pool, opts, func(tx pgx.Tx) error { return fn(NewTx(tx)) })
}

// interpretError maps driver errors to the store's errors, once, here.
func interpretError(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return fmt.Errorf("%w: %s", ErrConflict, pgErr.ConstraintName)
	}
	return err
}

// ErrLockHeld is returned by WithSessionLock when another session holds
// the lock.
var ErrLockHeld = errors.New("store: the lock is held by another session")

// WithSessionLock runs fn while this process holds the advisory lock key,
// on a connection of its own that fn's Store uses: the lock lasts as long
// as that session, so a process that dies or loses its connection gives it
// up at once, and fn learns of a lost connection from its own statements.
// It returns ErrLockHeld without calling fn when another session holds the
// lock, else fn's error.
func (s *Store) WithSessionLock(ctx context.Context, key int64, fn func(ctx context.Context, st *Store) error) error {
	// Closing the session releases the lock whatever state fn left it in.
	conn, err := s.ownSession(ctx)
	if err != nil {
		return fmt.Errorf("store: session lock %d: %w", key, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var held bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&held); err != nil {
		return fmt.Errorf("store: session lock %d: %w", key, err)
	}
	if !held {
		return ErrLockHeld
	}
	return fn(ctx, &Store{db: conn})
}

// ownSession takes a connection out of the pool for good, for a session
// whose state outlives a statement (a LISTEN, a session lock): the caller
// closes it rather than give it back to the pool.
func (s *Store) ownSession(ctx context.Context) (*pgx.Conn, error) {
	if s.pool == nil {
		return nil, errors.New("store: a session of its own needs a pool")
	}
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return pc.Hijack(), nil
}
