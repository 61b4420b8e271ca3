package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/build"
	"github.com/broadside/broadside/internal/store"
)

// BuildWorker builds one bot version: fetch its zip, unpack, build in the
// sandbox, archive the built folder, record the outcome.
type BuildWorker struct {
	river.WorkerDefaults[BuildArgs]
	deps Deps
}

// Timeout bounds one build attempt.
func (w *BuildWorker) Timeout(*river.Job[BuildArgs]) time.Duration { return w.deps.Timeouts.Build }

// Work runs the build job.
func (w *BuildWorker) Work(ctx context.Context, job *river.Job[BuildArgs]) error {
	start := time.Now()
	id := job.Args.VersionID
	log := w.deps.Logger.With("job_id", job.ID, "version_id", id, "attempt", job.Attempt)
	st := store.New(w.deps.Pool)

	v, err := st.BotVersionGetByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		log.Warn("build: version gone, nothing to do")
		return nil
	} else if err != nil {
		return err
	}
	if err := st.BotVersionStartBuild(ctx, id); errors.Is(err, store.ErrBuildDone) {
		log.Info("build: already built, nothing to do")
		return nil
	} else if err != nil {
		return err
	}
	if job.Attempt > job.MaxAttempts {
		// Rescued from dead workers more often than it may be tried.
		msg := fmt.Sprintf("The build was interrupted %d times because the worker running it stopped. "+
			"Please upload the version again; if this persists, tell the organisers.", job.Attempt-1)
		return w.finish(ctx, job, store.BuildResult{Log: msg})
	}
	res, artifact, err := w.build(ctx, v)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Over the time limit: another attempt would only take as long
		// again, holding a build slot others wait for. The outcome is
		// recorded with what the build printed, on a context of its own.
		w.deps.Metrics.jobDone("build", "failed", time.Since(start))
		log.Info("build: over its time limit", "limit", w.deps.Timeouts.Build)
		res.Log += fmt.Sprintf("\nBuild failed: it ran longer than this platform's build time limit of %s and was stopped. "+
			"A build, dependency downloads included, must finish within %[1]s: make it faster (fewer or prebuilt "+
			"dependencies, a smaller project) and upload it again.\n", spoken(w.deps.Timeouts.Build))
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		return w.finish(rctx, job, store.BuildResult{Log: res.Log})
	}
	if err != nil {
		w.deps.Metrics.jobDone("build", "error", time.Since(start))
		if job.Attempt >= job.MaxAttempts && ctx.Err() == nil {
			// No retry is left: say so rather than leave it building.
			res = build.Result{Log: fmt.Sprintf("The build could not run because of a platform problem (%v). "+
				"Please upload the version again; if this persists, tell the organisers.", err)}
			if ferr := st.BotVersionFinishBuild(ctx, id, store.BuildResult{Log: res.Log}); ferr != nil {
				log.Error("build: record platform failure", "err", ferr)
			}
		}
		return fmt.Errorf("build version %d: %w", id, err)
	}
	if err := w.finish(ctx, job, store.BuildResult{OK: res.OK, Log: res.Log, ArtifactKey: artifact}); err != nil {
		return err
	}
	outcome := "failed"
	if res.OK {
		outcome = "ok"
	}
	w.deps.Metrics.jobDone("build", outcome, time.Since(start))
	log.Info("build: done", "ok", res.OK, "duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// finish records the build's outcome and completes its job in one
// transaction. A successful build also tells the scheduler, in that
// transaction (Scheduler.AfterBuildTx: the ladder matches the bot at once).
func (w *BuildWorker) finish(ctx context.Context, job *river.Job[BuildArgs], res store.BuildResult) error {
	id := job.Args.VersionID
	log := w.deps.Logger.With("job_id", job.ID, "version_id", id)
	err := untilReachable(ctx, log, "build: record outcome", func() error {
		return pgx.BeginFunc(ctx, w.deps.Pool, func(tx pgx.Tx) error {
			err := store.NewTx(tx).BotVersionFinishBuild(ctx, id, res)
			if err != nil && !errors.Is(err, store.ErrBuildDone) {
				return err
			}
			if res.OK && w.deps.Scheduler != nil {
				if err := w.deps.Scheduler.AfterBuildTx(ctx, tx); err != nil {
					return err
				}
			}
			_, err = river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("record build of version %d: %w", id, err)
	}
	return nil
}

// build unpacks and builds the version and stores its artifact; it returns
// the artifact key when the build succeeded.
func (w *BuildWorker) build(ctx context.Context, v *store.BotVersion) (build.Result, string, error) {
	tmp, err := os.MkdirTemp(w.deps.WorkDir, fmt.Sprintf("build-%d-", v.ID))
	if err != nil {
		return build.Result{}, "", err
	}
	defer os.RemoveAll(tmp)

	zipPath := filepath.Join(tmp, "source.zip")
	if err := blob.GetFile(ctx, w.deps.Bucket, v.SourceKey, zipPath); err != nil {
		return build.Result{}, "", err
	}
	f, err := os.Open(zipPath)
	if err != nil {
		return build.Result{}, "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return build.Result{}, "", err
	}
	dir := filepath.Join(tmp, "bot")
	m, err := botzip.Extract(f, info.Size(), dir, botzip.DefaultLimits())
	if err != nil {
		var refusal *botzip.Error
		if errors.As(err, &refusal) {
			// Checked at upload; only a changed limit gets here.
			return build.Result{Log: "The uploaded zip was refused: " + refusal.Msg}, "", nil
		}
		return build.Result{}, "", err
	}
	res, err := w.deps.Builder.BuildLive(ctx, dir, m, publishBuildLog(store.New(w.deps.Pool), v.ID, w.deps.Logger))
	if err != nil || !res.OK {
		return res, "", err
	}
	// Packed to a file: node_modules and jars can be large.
	artifact := filepath.Join(tmp, "artifact.tar.gz")
	out, err := os.Create(artifact)
	if err != nil {
		return build.Result{}, "", err
	}
	if err := build.Pack(dir, out); err != nil {
		out.Close()
		return build.Result{}, "", err
	}
	if err := out.Close(); err != nil {
		return build.Result{}, "", err
	}
	key := blob.ArtifactKey(v.ID)
	if err := blob.PutFile(ctx, w.deps.Bucket, key, artifact, "application/gzip"); err != nil {
		return build.Result{}, "", err
	}
	return res, key, nil
}

// spoken writes a time limit for people: "5 minutes", "90 seconds".
func spoken(d time.Duration) string {
	switch {
	case d%time.Minute == 0 && d > time.Minute:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	case d == time.Minute:
		return "1 minute"
	case d%time.Second == 0:
		return fmt.Sprintf("%d seconds", d/time.Second)
	}
	return d.String()
}
