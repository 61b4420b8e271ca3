// Package notify tells users of their events (internal/event) through the
// channels they chose: webhooks and e-mail.
//
// Events are written by the store in the transaction of the change they
// tell of. The worker's Deliverer takes them in order (dispatch), and in
// one transaction records a delivery per hook that hears of the event,
// queues a River job for each and for the e-mail, and marks the event
// dispatched: an event is handed on once, and every delivery job exists
// exactly when its record does. Webhook jobs retry with a growing delay;
// a hook that keeps failing is switched off. The portal's side (Settings)
// checks hook URLs and starts address verifications.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/broadside/broadside/internal/egress"
	"github.com/broadside/broadside/internal/store"
)

// Queue is the River queue of notification jobs.
const Queue = "notify"

// Config configures a Deliverer.
type Config struct {
	Store  *store.Store
	Logger *slog.Logger
	// Mailer sends e-mail; nil sends none (SMTP_URL unset).
	Mailer Mailer
	// From is the sender of e-mail (SMTP_FROM).
	From string
	// PublicURL is the portal's address for links in e-mail (PUBLIC_URL).
	PublicURL string
	// Egress decides which addresses hooks may reach.
	Egress egress.Policy
	// DispatchEvery is how often the dispatcher looks for pending events
	// besides when one is announced (it listens for new events): the
	// fallback for announcements lost with the listening connection. Zero
	// means 15 seconds.
	DispatchEvery time.Duration
	// LeadEvery is how often a worker that is not the fleet's dispatcher
	// tries to become it; zero means 30 seconds.
	LeadEvery time.Duration
	// RetryBase is the delay before a failed delivery's first retry; each
	// further retry waits four times longer, up to six hours. Zero means
	// ten seconds.
	RetryBase time.Duration
	// MaxAttempts bounds the attempts at one delivery; zero means 8.
	MaxAttempts int
	// DisableAfter failures in a row spanning at least DisableSpan switch
	// a hook off; zeros mean 10 and a day.
	DisableAfter int
	DisableSpan  time.Duration
	// Concurrency is how many deliveries run at once; zero means 4.
	Concurrency int
}

// Deliverer runs the notification jobs on a worker (jobs.Addon) and the
// dispatcher (Run).
type Deliverer struct {
	cfg    Config
	client *http.Client
	river  *river.Client[pgx.Tx]
}

// NewDeliverer returns a Deliverer; the worker attaches its River client.
func NewDeliverer(cfg Config) *Deliverer {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.DispatchEvery <= 0 {
		cfg.DispatchEvery = 15 * time.Second
	}
	if cfg.LeadEvery <= 0 {
		cfg.LeadEvery = 30 * time.Second
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = 10 * time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 8
	}
	if cfg.DisableAfter <= 0 {
		cfg.DisableAfter = 10
	}
	if cfg.DisableSpan <= 0 {
		cfg.DisableSpan = 24 * time.Hour
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	return &Deliverer{cfg: cfg, client: newHTTPClient(cfg.Egress)}
}

// AddWorkers registers the notification jobs and their queue.
func (d *Deliverer) AddWorkers(workers *river.Workers, queues map[string]river.QueueConfig) {
	river.AddWorker(workers, &webhookWorker{d: d})
	river.AddWorker(workers, &emailWorker{d: d})
	river.AddWorker(workers, &verifyWorker{d: d})
	queues[Queue] = river.QueueConfig{MaxWorkers: d.cfg.Concurrency}
}

// Attach keeps the worker's River client for the dispatcher's inserts.
func (d *Deliverer) Attach(rc *river.Client[pgx.Tx]) { d.river = rc }

// dispatcherLock is the advisory lock (Store.WithSessionLock) that makes
// one worker of the fleet the dispatcher.
const dispatcherLock = 0x6e6f74696679 // "notify"

// Run dispatches pending events until ctx ends, and once an hour deletes
// events a month old. One worker of the fleet does it at a time, the one
// holding the dispatcher's lock: a look for events costs the database a
// statement, and a fleet of workers each looking would pay one per worker.
// The others try for the lock every LeadEvery, so when the dispatcher's
// worker stops or loses its connection another takes over within that
// time.
func (d *Deliverer) Run(ctx context.Context) {
	for {
		err := d.cfg.Store.WithSessionLock(ctx, dispatcherLock, d.dispatchLoop)
		if ctx.Err() != nil {
			return
		}
		if err != nil && !errors.Is(err, store.ErrLockHeld) {
			d.cfg.Logger.Warn("notify: dispatcher", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(d.cfg.LeadEvery):
		}
	}
}

// dispatchLoop dispatches pending events on st, the session holding the
// dispatcher's lock, when new ones are announced and every DispatchEvery,
// until ctx ends or a look fails (the session may be gone, and the lock
// with it). A look costs a statement: looking only when told spares the
// database one a second while nothing happens.
func (d *Deliverer) dispatchLoop(ctx context.Context, st *store.Store) error {
	ctx, stop := context.WithCancel(ctx)
	announced := make(chan struct{}, 1)
	listening := make(chan struct{})
	go func() {
		defer close(listening)
		d.listen(ctx, announced)
	}()
	// The listening connection is closed before the lock's session is.
	defer func() {
		stop()
		<-listening
	}()
	t := time.NewTicker(d.cfg.DispatchEvery)
	defer t.Stop()
	var swept time.Time
	for {
		for {
			n, err := d.dispatch(ctx, st)
			if err != nil {
				return err
			}
			if n < dispatchBatch {
				break
			}
		}
		if time.Since(swept) > time.Hour {
			swept = time.Now()
			if n, err := st.EventsDeleteBefore(ctx, time.Now().Add(-30*24*time.Hour)); err != nil && ctx.Err() == nil {
				d.cfg.Logger.Warn("notify: delete old events", "err", err)
			} else if n > 0 {
				d.cfg.Logger.Info("notify: deleted old events", "count", n)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-announced:
		}
	}
}

// listen signals announced when new events are committed, and once when it
// starts listening, until ctx ends; when its connection fails it listens
// again after DispatchEvery, the looks of dispatchLoop's ticker finding the
// events meanwhile.
func (d *Deliverer) listen(ctx context.Context, announced chan<- struct{}) {
	signal := func() {
		select {
		case announced <- struct{}{}:
		default: // a look is due already
		}
	}
	store.KeepListening(ctx, d.cfg.DispatchEvery,
		func(ctx context.Context) error { return d.cfg.Store.EventsListen(ctx, signal) },
		func(err error) { d.cfg.Logger.Warn("notify: listen for new events", "err", err) })
}

const dispatchBatch = 100

// Dispatch hands up to a batch of pending events to their deliveries, in
// one transaction, and returns how many it took.
func (d *Deliverer) Dispatch(ctx context.Context) (int, error) {
	return d.dispatch(ctx, d.cfg.Store)
}

// dispatch is Dispatch on st.
func (d *Deliverer) dispatch(ctx context.Context, st *store.Store) (int, error) {
	if d.river == nil {
		return 0, fmt.Errorf("notify: dispatch before the worker attached its client")
	}
	// Most looks find nothing: one statement says so, where the locking
	// transaction below takes three. This is what the fleet pays the
	// database for notifications while nothing happens.
	switch pending, err := st.EventsPending(ctx); {
	case err != nil:
		return 0, fmt.Errorf("notify: dispatch: %w", err)
	case !pending:
		return 0, nil
	}
	var n int
	err := st.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		evs, err := st.EventsTakePending(ctx, dispatchBatch)
		if err != nil {
			return err
		}
		n = len(evs)
		if n == 0 {
			return nil
		}
		var jobs []river.InsertManyParams
		ids := make([]int64, 0, n)
		for _, ev := range evs {
			ids = append(ids, ev.ID)
			hooks, err := st.WebhooksFor(ctx, ev.UserID, string(ev.Type))
			if err != nil {
				return err
			}
			for _, h := range hooks {
				id, created, err := st.WebhookDeliveryCreate(ctx, h.ID, ev.ID)
				if err != nil {
					return err
				}
				if created {
					jobs = append(jobs, river.InsertManyParams{Args: WebhookArgs{DeliveryID: id},
						InsertOpts: &river.InsertOpts{MaxAttempts: d.cfg.MaxAttempts}})
				}
			}
			if d.cfg.Mailer == nil {
				continue
			}
			em, err := st.NotifyEmailGet(ctx, ev.UserID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if em != nil && em.VerifiedAt != nil && slices.Contains(em.Events, string(ev.Type)) {
				jobs = append(jobs, river.InsertManyParams{Args: EmailArgs{EventID: ev.ID}})
			}
		}
		if len(jobs) > 0 {
			if _, err := d.river.InsertManyTx(ctx, tx, jobs); err != nil {
				return fmt.Errorf("notify: queue deliveries: %w", err)
			}
		}
		return st.EventsMarkDispatched(ctx, ids)
	})
	if err != nil {
		return 0, fmt.Errorf("notify: dispatch: %w", err)
	}
	return n, nil
}
