package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/store"
)

// makeOrganiser gives an existing account the organiser role: it may then
// create and run battles and use the admin console at /admin.
func makeOrganiser(ctx context.Context, cfg Config, logger *slog.Logger, username string, out io.Writer) error {
	if username == "" {
		return errors.New("make-organiser needs a username: portal make-organiser USERNAME")
	}
	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	defer pool.Close()
	st := store.New(pool)
	if err := st.SchemaCheck(ctx, "portal"); err != nil {
		return err
	}
	u, err := st.UserSetRole(ctx, username, "organiser")
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("there is no account called %q; register it first", username)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s is now an organiser.\n", u.Username)
	return nil
}
