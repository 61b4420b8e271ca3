package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/store"
)

// DefaultHeartbeatEvery and DefaultDeadAfter: a worker silent for three
// heartbeats is taken for dead and its running jobs are run again.
const (
	DefaultHeartbeatEvery = 15 * time.Second
	DefaultDeadAfter      = 3 * DefaultHeartbeatEvery
)

// PeriodicRescue names the rescue in periodic_runs. It is not a River
// job: every worker looks for the jobs of dead workers after each
// heartbeat (see Member.Run).
const PeriodicRescue = "rescue"

// Config is one worker's place in the fleet.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger
	// WorkerID names the worker in heartbeats; it is River's client id
	// too, so a job's attempted_by names the worker running it.
	WorkerID string
	// Started is when the process made the worker, for the admin page.
	Started time.Time
	// Sandbox names the confinement for the admin console's worker list.
	Sandbox string
	// Every is how often the worker records that it is alive and looks
	// for the jobs of dead workers; zero means DefaultHeartbeatEvery.
	Every time.Duration
	// DeadAfter is how long a worker may go without a heartbeat before its
	// running jobs are run again elsewhere; zero means DefaultDeadAfter.
	DeadAfter time.Duration
}

// Member sends one worker's heartbeats and rescues the jobs of the
// workers that stopped sending theirs.
type Member struct {
	cfg Config
}

// NewMember returns the fleet member of cfg.
func NewMember(cfg Config) *Member {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultHeartbeatEvery
	}
	if cfg.DeadAfter <= 0 {
		cfg.DeadAfter = DefaultDeadAfter
	}
	return &Member{cfg: cfg}
}

// Join records the worker's first heartbeat and the rescue's interval.
// It comes before the worker takes any job, so a job never belongs to a
// worker the rescuer has not heard of.
func (m *Member) Join(ctx context.Context) error {
	st := store.New(m.cfg.Pool)
	if err := st.WorkerBeat(ctx, m.heartbeat()); err != nil {
		return fmt.Errorf("fleet: join: %w", err)
	}
	if err := st.PeriodicRegister(ctx, PeriodicRescue, m.cfg.Every); err != nil {
		return fmt.Errorf("fleet: join: %w", err)
	}
	return nil
}

// heartbeat is this worker's row in worker_heartbeats.
func (m *Member) heartbeat() store.WorkerHeartbeat {
	host, _ := os.Hostname()
	return store.WorkerHeartbeat{WorkerID: m.cfg.WorkerID, Hostname: host, StartedAt: m.cfg.Started, Sandbox: m.cfg.Sandbox}
}

// Run records that the worker is alive until ctx ends or stopped is
// closed, and after each heartbeat hands the jobs of dead workers back to
// the queue.
//
// The rescue is no River job on purpose: a periodic job is unique while
// unfinished, so one left running by a dead leader would block every later
// one, the rescue that would free it included. Every worker runs it; the
// update is atomic, so a job is rescued once.
//
// A worker rescues only once it has itself reached the database without a
// break for DeadAfter (see contact). After an outage every worker's last
// heartbeat is old: the first one back must not take the others, still
// playing their matches, for dead before they had the time to beat again.
// The database may only just be back when Run starts: a worker that
// starts waits for the others' heartbeats like one back from an outage.
func (m *Member) Run(ctx context.Context, stopped <-chan struct{}) {
	st := store.New(m.cfg.Pool)
	c := newContact(m.cfg.Every, time.Now())
	t := time.NewTicker(m.cfg.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stopped:
			return
		case <-t.C:
		}
		if err := m.beatOnce(ctx, st); err != nil {
			c.lost()
			if ctx.Err() == nil {
				m.cfg.Logger.Warn("heartbeat failed", "err", err)
			}
			continue
		}
		if since, ok := c.reached(time.Now()); !ok || time.Since(since) < m.cfg.DeadAfter {
			m.cfg.Logger.Debug("rescue waits until this worker has reached the database for WORKER_DEAD_AFTER",
				"reached_since", since, "dead_after", m.cfg.DeadAfter)
			continue
		}
		if err := Recorded(ctx, m.cfg.Pool, m.cfg.Logger, PeriodicRescue, m.rescue); err != nil && ctx.Err() == nil {
			c.lost()
			m.cfg.Logger.Warn("rescue of dead workers' jobs failed", "err", err)
		}
	}
}

// beatOnce records one heartbeat, giving up after DeadAfter: by then the
// others take this worker for dead anyway, and a database that does not
// answer (a lost network drops packets rather than refuse) is as good as
// down.
func (m *Member) beatOnce(ctx context.Context, st *store.Store) error {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.DeadAfter)
	defer cancel()
	return st.WorkerBeat(ctx, m.heartbeat())
}

// contact is how long a worker has reached the database without a break:
// since its first heartbeat after a failed one, or after a gap of more
// than two heartbeats (a process stopped, a machine suspended, a heartbeat
// that hung). Only the Run goroutine uses it.
type contact struct {
	every time.Duration
	// since is the first heartbeat of the current run, last the latest;
	// zero when the last one failed.
	since, last time.Time
}

func newContact(every time.Duration, first time.Time) *contact {
	return &contact{every: every, since: first, last: first}
}

// lost notes a failed heartbeat or query.
func (c *contact) lost() { c.since, c.last = time.Time{}, time.Time{} }

// reached notes a successful heartbeat at now and returns since when the
// worker has reached the database without a break; ok is false when the
// run starts only now.
func (c *contact) reached(now time.Time) (since time.Time, ok bool) {
	if c.last.IsZero() || now.Sub(c.last) > 2*c.every {
		c.since, c.last = now, now
		return now, false
	}
	c.last = now
	return c.since, true
}

// rescue runs again, at once, the jobs of workers that stopped sending
// heartbeats (a killed process, a lost machine), and forgets workers
// silent for a week.
func (m *Member) rescue(ctx context.Context) error {
	st := store.New(m.cfg.Pool)
	jobs, err := st.JobsRescueFromDeadWorkers(ctx, m.cfg.DeadAfter)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		m.cfg.Logger.Warn("rescued a job from a worker that stopped sending heartbeats",
			"job_id", j.ID, "kind", j.Kind, "attempt", j.Attempt, "worker", j.WorkerID)
	}
	return st.WorkerForget(ctx, time.Now().Add(-7*24*time.Hour))
}

// NewWorkerID is unique per process, even where every container's worker
// is pid 1 on a reused host name.
func NewWorkerID() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}
