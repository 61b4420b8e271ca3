// Package fleet is what the worker processes share beyond the job queue:
// each worker's heartbeat, the rescue of the jobs of workers that stopped
// sending one, and the record of the fleet's periodic work in
// periodic_runs (the rescue, and the scheduler's ticks that whichever
// worker leads runs), with its Prometheus collector.
package fleet

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/store"
)

// Recorded runs one periodic job and records its start, end and error, so
// operators see each one's last run. Failing to record is logged, never a
// reason to skip the run.
func Recorded(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, name string, run func(context.Context) error) error {
	st := store.New(pool)
	if err := st.PeriodicStarted(ctx, name); err != nil {
		log.Warn("periodic job: record start", "job", name, "err", err)
	}
	err := run(ctx)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if rerr := st.PeriodicFinished(context.WithoutCancel(ctx), name, msg); rerr != nil {
		log.Warn("periodic job: record end", "job", name, "err", rerr)
	}
	return err
}
