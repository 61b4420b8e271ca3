package schedule

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/store"
)

// RatingCheckArgs asks for the nightly check of the ratings: every rating
// recomputed from the match history (worker recompute-ratings without
// --write) and compared with the stored table. A difference, or a check
// that cannot run, raises the alarm on /admin.
type RatingCheckArgs struct{}

// Kind is the stable job kind stored in river_job.
func (RatingCheckArgs) Kind() string { return periodicRatingCheck }

// InsertOpts keeps at most one check waiting or running.
func (RatingCheckArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueCompetition, MaxAttempts: 1, UniqueOpts: jobs.WhileUnfinished()}
}

// periodicRatingCheck names the check in periodic_runs and river_job.
const periodicRatingCheck = "rating_check"

// nightly is a River schedule that fires once a day at a fixed UTC hour,
// when the ladder is quietest for most seasons.
type nightly struct{ hour int }

// Next is the next time the hour strikes after current.
func (n nightly) Next(current time.Time) time.Time {
	t := current.UTC()
	next := time.Date(t.Year(), t.Month(), t.Day(), n.hour, 0, 0, 0, time.UTC)
	if !next.After(t) {
		next = next.AddDate(0, 0, 1)
	}
	return next
}

// ratingCheckSchedule is the check's schedule: nightly at 03:00 UTC, or
// every RatingCheckEvery where that is set (tests, busy seasons).
func (s *Scheduler) ratingCheckSchedule() (river.PeriodicSchedule, time.Duration) {
	if s.cfg.RatingCheckEvery > 0 {
		return river.PeriodicInterval(s.cfg.RatingCheckEvery), s.cfg.RatingCheckEvery
	}
	return nightly{hour: 3}, 24 * time.Hour
}

// RatingCheck recomputes the ratings from history, compares them with the
// stored ones and records the outcome for /admin; it changes no rating.
func (s *Scheduler) RatingCheck(ctx context.Context) error {
	st := store.New(s.cfg.Pool)
	rep, err := competition.RecomputeRatings(ctx, st, false)
	check := store.RatingCheck{}
	if err != nil {
		check.Error = err.Error()
	} else {
		check.Matches, check.Bots, check.Differences = rep.Matches, rep.Bots, len(rep.Differences)
		check.Detail = differenceDetail(rep.Differences)
	}
	if rerr := st.RatingCheckRecord(context.WithoutCancel(ctx), check); rerr != nil {
		return rerr
	}
	if err != nil {
		return err
	}
	if check.Differences > 0 {
		s.cfg.Logger.Error("rating check: stored ratings differ from their history",
			"bots", check.Differences, "detail", check.Detail)
	}
	return nil
}

// differenceDetail names the first few bots whose stored rating is not
// what history gives.
func differenceDetail(diffs []competition.RatingDifference) string {
	const most = 5
	var parts []string
	for i, d := range diffs {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(diffs)-most))
			break
		}
		parts = append(parts, fmt.Sprintf("bot %d on %s: stored %.2f ± %.2f (%d games), history %.2f ± %.2f (%d games)",
			d.Recomputed.BotID, d.Recomputed.Ladder, d.Stored.Rating, d.Stored.Deviation, d.Stored.Games,
			d.Recomputed.Rating, d.Recomputed.Deviation, d.Recomputed.Games))
	}
	return strings.Join(parts, "; ")
}
