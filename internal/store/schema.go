package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/broadside/broadside/migrations"
)

// Schema compares the database's migrations with the ones built into this
// program. A portal or worker on a database that is behind fails on its
// first query; one on a database migrated by a newer release may write
// rows the newer code does not expect. Both are refused at start.
type Schema struct {
	// Version is the platform's last applied migration (0: none), Want
	// the newest this program embeds.
	Version, Want int
	// Dirty is set when the migration at Version failed halfway.
	Dirty bool
	// RiverMissing are River's migrations this program has and the
	// database lacks; RiverUnknown the database has and this program does
	// not know.
	RiverMissing, RiverUnknown []int
}

// SchemaGet reads the database's migration state.
func (s *Store) SchemaGet(ctx context.Context) (Schema, error) {
	var sc Schema
	want, err := newestMigration(migrations.FS)
	if err != nil {
		return sc, err
	}
	sc.Want = want
	// The tables do not exist on a fresh database; to_regclass says so
	// without an error that would abort a transaction.
	var platform bool
	if err := s.db.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`,
		migratepgx.DefaultMigrationsTable).Scan(&platform); err != nil {
		return sc, fmt.Errorf("store: read migrations: %w", err)
	}
	if platform {
		err := s.db.QueryRow(ctx, `SELECT version, dirty FROM `+migratepgx.DefaultMigrationsTable+` LIMIT 1`).Scan(&sc.Version, &sc.Dirty)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return sc, fmt.Errorf("store: read migrations: %w", err)
		}
	}
	applied, err := s.riverMigrationsApplied(ctx)
	if err != nil {
		return sc, err
	}
	// Only the list of River's migrations is read from the migrator, which
	// needs no connection for it.
	migrator, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return sc, fmt.Errorf("store: river migrations: %w", err)
	}
	var known []int
	for _, m := range migrator.AllVersions() {
		known = append(known, m.Version)
		if !slices.Contains(applied, m.Version) {
			sc.RiverMissing = append(sc.RiverMissing, m.Version)
		}
	}
	for _, v := range applied {
		if !slices.Contains(known, v) {
			sc.RiverUnknown = append(sc.RiverUnknown, v)
		}
	}
	slices.Sort(sc.RiverUnknown)
	return sc, nil
}

// SchemaCheck is SchemaGet then Schema.Err.
func (s *Store) SchemaCheck(ctx context.Context, program string) error {
	sc, err := s.SchemaGet(ctx)
	if err != nil {
		return err
	}
	return sc.Err(program)
}

// Err says in one line what is wrong with the database for program
// ("portal", "worker"), naming the command that fixes it; nil when the
// database is exactly as program needs it.
func (sc Schema) Err(program string) error {
	const newer = "run a release at least as new as the one that migrated it"
	migrate := program + " migrate"
	switch {
	case sc.Dirty:
		return fmt.Errorf("database migration %d failed halfway (marked dirty in %s): repair it by hand, then run `%s`",
			sc.Version, migratepgx.DefaultMigrationsTable, migrate)
	case sc.Version > sc.Want:
		return fmt.Errorf("database is at migration %d, newer than the %d this %s knows: %s", sc.Version, sc.Want, program, newer)
	case len(sc.RiverUnknown) > 0:
		return fmt.Errorf("database has job queue migrations %v that this %s does not know: %s", sc.RiverUnknown, program, newer)
	case sc.Version < sc.Want:
		return fmt.Errorf("database is at migration %d but this %s needs %d: run `%s`", sc.Version, program, sc.Want, migrate)
	case len(sc.RiverMissing) > 0:
		return fmt.Errorf("database lacks the job queue's migrations %v: run `%s`", sc.RiverMissing, migrate)
	}
	return nil
}

// newestMigration is the highest number among the *.up.sql files of fsys
// (golang-migrate's NNNN_name.up.sql).
func newestMigration(fsys fs.FS) (int, error) {
	names, err := fs.Glob(fsys, "*.up.sql")
	if err != nil {
		return 0, fmt.Errorf("store: list migrations: %w", err)
	}
	newest := 0
	for _, name := range names {
		num, _, _ := strings.Cut(name, "_")
		n, err := strconv.Atoi(num)
		if err != nil {
			return 0, fmt.Errorf("store: migration %s: no leading number", name)
		}
		newest = max(newest, n)
	}
	return newest, nil
}
