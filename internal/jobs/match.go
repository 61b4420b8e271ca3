package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/command"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/repro"
	"github.com/broadside/broadside/internal/store"
)

// MatchWorker plays one match: load its seats' built versions, unpack them,
// play in the sandbox, store the replay, then record the result, the
// ratings and the job's completion in one transaction.
type MatchWorker struct {
	river.WorkerDefaults[MatchArgs]
	deps Deps
	seat *seatRunners
	// live says which matches somebody follows, so their rounds are
	// published.
	live *liveWatch
}

// Timeout bounds one attempt at a match.
func (w *MatchWorker) Timeout(*river.Job[MatchArgs]) time.Duration { return w.deps.Timeouts.Match }

// errPermanent marks a match that can never be played (a seat without a
// built version, an unknown game, a build artifact the store lost): it is
// failed at once, not retried. fault is store.FaultPlatform when the
// platform is to blame.
type errPermanent struct{ msg, fault string }

func (e *errPermanent) Error() string { return e.msg }

// Work runs the match job.
func (w *MatchWorker) Work(ctx context.Context, job *river.Job[MatchArgs]) error {
	start := time.Now()
	id := job.Args.MatchID
	log := w.deps.Logger.With("job_id", job.ID, "match_id", id, "attempt", job.Attempt)
	st := store.New(w.deps.Pool)

	attempt, err := st.MatchStart(ctx, id)
	switch {
	case errors.Is(err, store.ErrMatchDone):
		log.Info("match: already ended, nothing to do")
		return w.complete(ctx, job)
	case errors.Is(err, store.ErrNotFound):
		log.Warn("match: gone, nothing to do")
		return nil
	case err != nil:
		return err
	}
	log = log.With("match_attempt", attempt)
	if job.Attempt > job.MaxAttempts {
		// Rescued from dead workers more often than it may be tried: a
		// match that kills its workers must not go round for ever.
		log.Warn("match: out of attempts after its workers stopped")
		return w.fail(ctx, job, store.FaultPlatform,
			fmt.Sprintf("The match was interrupted %d times because the worker playing it stopped; it will not be retried.", job.Attempt-1))
	}
	res, err := w.play(ctx, id, log)
	var perm *errPermanent
	if errors.As(err, &perm) || (err != nil && job.Attempt >= job.MaxAttempts && ctx.Err() == nil) {
		msg, fault := platformFailure(err, job.Attempt)
		if perm != nil {
			msg, fault = perm.msg, perm.fault
		}
		log.Warn("match: failed", "err", err)
		w.deps.Metrics.jobDone("match", "failed", time.Since(start))
		return w.fail(ctx, job, fault, msg)
	}
	if err != nil {
		w.deps.Metrics.jobDone("match", "error", time.Since(start))
		return fmt.Errorf("play match %d: %w", id, err)
	}
	var duelEnded int64
	err = untilReachable(ctx, log, "match: record result", func() error {
		return pgx.BeginFunc(ctx, w.deps.Pool, func(tx pgx.Tx) error {
			if err := recordResult(ctx, store.NewTx(tx), res, w.deps.LadderPauseAfter); err != nil {
				return err
			}
			// The match's row says whether it is a duel's game: a match
			// of none costs no statement to find that out.
			if res.match.DuelID != nil {
				var err error
				if duelEnded, err = competition.AdvanceDuel(ctx, tx, w.queue(ctx), id); err != nil {
					return err
				}
			}
			_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
			return err
		})
	})
	if errors.Is(err, store.ErrMatchDone) {
		// Another attempt recorded it first (a duplicate after a rescue).
		log.Info("match: result already recorded by another attempt")
		return w.complete(ctx, job)
	}
	if err != nil {
		return fmt.Errorf("record match %d: %w", id, err)
	}
	w.deps.Metrics.jobDone("match", "finished", time.Since(start))
	log.Info("match: finished", "rounds", res.summary.Rounds, "duration", time.Since(start).Round(time.Millisecond))
	if w.deps.AfterMatch != nil {
		w.deps.AfterMatch(ctx, id, res.match.Kind)
	}
	w.duelFinished(ctx, log, duelEnded)
	return nil
}

// queue enqueues the next games of a duel on the River client running
// this job, inside the result's transaction.
func (w *MatchWorker) queue(context.Context) competition.Enqueuer { return jobQueue{} }

// jobQueue enqueues on the River client of the job whose context it is
// given.
type jobQueue struct{}

func (jobQueue) EnqueueMatchTx(ctx context.Context, tx pgx.Tx, matchID int64) (bool, error) {
	rc, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return false, fmt.Errorf("jobs: enqueue match %d: %w", matchID, err)
	}
	return (&Client{river: rc}).EnqueueMatchTx(ctx, tx, matchID)
}

// duelFinished is the hook point of a duel's end: called once, after the
// transaction that recorded its verdict (or its failure) committed, with
// the duel's id; zero means no duel ended.
func (w *MatchWorker) duelFinished(ctx context.Context, log *slog.Logger, duelID int64) {
	if duelID == 0 {
		return
	}
	log.Info("duel: finished", "duel_id", duelID)
	if w.deps.DuelFinished != nil {
		w.deps.DuelFinished(ctx, duelID)
	}
}

// complete marks the job done without recording anything.
func (w *MatchWorker) complete(ctx context.Context, job *river.Job[MatchArgs]) error {
	return pgx.BeginFunc(ctx, w.deps.Pool, func(tx pgx.Tx) error {
		_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
		return err
	})
}

// fail records the match as failed and completes the job, together.
func (w *MatchWorker) fail(ctx context.Context, job *river.Job[MatchArgs], fault, msg string) error {
	var duelEnded int64
	err := pgx.BeginFunc(ctx, w.deps.Pool, func(tx pgx.Tx) error {
		err := store.NewTx(tx).MatchFail(ctx, job.Args.MatchID, fault, msg)
		if err != nil && !errors.Is(err, store.ErrMatchDone) {
			return err
		}
		if err == nil {
			// A duel stops at a game that cannot be played.
			if duelEnded, err = competition.AdvanceDuel(ctx, tx, w.queue(ctx), job.Args.MatchID); err != nil {
				return err
			}
		}
		_, err = river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
		return err
	})
	if err == nil {
		w.duelFinished(ctx, w.deps.Logger.With("match_id", job.Args.MatchID), duelEnded)
	}
	return err
}

// platformFailure is the reason shown for a match the platform failed on
// its last attempt: what stopped the bots, without the worker's paths.
func platformFailure(err error, attempts int) (msg, fault string) {
	why := "a platform problem"
	var over *overloadError
	switch {
	case errors.As(err, &over):
		why = over.Error()
	case errors.Is(err, command.ErrPlatform):
		why = "the sandbox could not run a bot"
	}
	return fmt.Sprintf("The match could not be played: %s (%d attempts); it will not be retried.", why, attempts),
		store.FaultPlatform
}

// played is a match played to its end, ready to record.
type played struct {
	match   *store.MatchRow
	summary *game.Summary
	replay  string // blob key
	// traits are the rule set's, for the seats' keys.
	traits game.Traits
}

// play runs the named steps of a match in a private folder removed after.
func (w *MatchWorker) play(ctx context.Context, id int64, log *slog.Logger) (*played, error) {
	st := store.New(w.deps.Pool)
	m, err := st.MatchDetailGet(ctx, id)
	if err != nil {
		return nil, err
	}
	seats, err := st.MatchSeats(ctx, id)
	if err != nil {
		return nil, err
	}
	rs, err := w.deps.Games.Get(m.Game)
	if err != nil {
		return nil, &errPermanent{msg: fmt.Sprintf("This platform does not host the game %q.", m.Game)}
	}
	for _, s := range seats {
		if s.BuildStatus != store.BuildOK || s.ArtifactKey == "" {
			return nil, &errPermanent{msg: fmt.Sprintf("%s has no successfully built version to play.", s.BotName)}
		}
	}
	tmp, err := os.MkdirTemp(w.deps.WorkDir, fmt.Sprintf("match-%d-", id))
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	dirs, err := w.fetchBots(ctx, seats, tmp)
	if err != nil {
		return nil, err
	}
	archive, err := createReplayArchive(filepath.Join(tmp, "replay.zip"))
	if err != nil {
		return nil, err
	}
	defer archive.Close()
	live := newLivePublisher(ctx, st, id, log, w.deps.LiveEvery)
	unwatch := w.live.add(id, live)
	sum, err := w.seat.play(ctx, rs, dirs, game.Options{
		Seed:       m.Seed,
		Size:       m.MapSize,
		ReplayDir:  filepath.Join(tmp, "replay"),
		ReplayZip:  archive,
		Tournament: true,
		NoLimit:    w.deps.NoTimeLimits,
		Names:      seatNames(m, rs.Traits()),
		Logger:     log,
		Progress:   live.Progress,
	})
	unwatch()
	live.Close()
	if err != nil {
		return nil, err
	}
	key := blob.ReplayKey(id)
	if err := archive.store(ctx, w.deps.Bucket, key); err != nil {
		return nil, err
	}
	return &played{match: m, summary: sum, replay: key, traits: rs.Traits()}, nil
}

// seatNames are the names the match's pages show for its seats, by seat
// key: what the rule set writes for people (a Reason naming the bot that
// sank another) then names the bots as the pages do, not by the names
// their manifests give, which two seats may share.
func seatNames(m *store.MatchRow, traits game.Traits) map[string]string {
	names := make(map[string]string, len(m.Players))
	for _, p := range m.Players {
		owner := p.Owner
		if owner == houseUser {
			owner = "house bot"
		}
		names[traits.Key(p.Seat)] = p.BotName + " (" + owner + ")"
	}
	return names
}

// houseUser owns the house bots.
const houseUser = "house"

// fetchBots unpacks each seat's built artifact into its own folder, named
// for the bot as the match page's battleship command names it
// (repro.Folder): a bot whose manifest names no player is named for its
// folder, in the replay as on the contestant's machine.
func (w *MatchWorker) fetchBots(ctx context.Context, seats []store.MatchSeat, tmp string) ([]string, error) {
	dirs := make([]string, len(seats))
	for i, s := range seats {
		r, err := blob.Get(ctx, w.deps.Bucket, s.ArtifactKey)
		if errors.Is(err, blob.ErrNotFound) {
			return nil, &errPermanent{fault: store.FaultPlatform,
				msg: fmt.Sprintf("The built files of %s are missing; rebuild it by uploading again.", s.BotName)}
		} else if err != nil {
			return nil, err
		}
		seatDir := filepath.Join(tmp, fmt.Sprintf("seat-%d", i))
		if err := os.Mkdir(seatDir, 0o755); err != nil {
			r.Close()
			return nil, err
		}
		dirs[i] = filepath.Join(seatDir, repro.Folder(s.BotName))
		err = build.Unpack(r, dirs[i])
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("seat %d (%s): %w", i, s.BotName, err)
		}
	}
	return dirs, nil
}

// summaryJSON is the stored summary: the --json form, logs left out.
func summaryJSON(s *game.Summary) (json.RawMessage, error) {
	return json.Marshal(s)
}

// untilReachable runs fn again while the database cannot be reached, until
// ctx ends, waiting a little longer each time: a match played to its end,
// or a finished build, is recorded once the database is back rather than
// thrown away and played again. A commit whose answer was lost and is
// tried again finds its work done (store.ErrMatchDone, store.ErrBuildDone).
func untilReachable(ctx context.Context, log *slog.Logger, what string, fn func() error) error {
	wait := time.Second
	for {
		err := fn()
		if err == nil || !store.Unavailable(err) || ctx.Err() != nil {
			return err
		}
		log.Warn(what+": the database cannot be reached; trying again", "in", wait, "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 15*time.Second)
	}
}
