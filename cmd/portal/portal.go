package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/notify"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/web"
)

// Main is the running portal: Run opens its connections and starts
// serving, Close stops it. Tests boot it on ":0".
type Main struct {
	cfg    Config
	logger *slog.Logger

	pool    *pgxpool.Pool
	store   *store.Store
	blobs   *blob.Bucket
	handler *web.Handler
	// uploads records bot zips; seeding the house bots uses it.
	uploads *botupload.Service
	ln      net.Listener
	srv     *http.Server
	served  chan error
	stop    context.CancelFunc
	swept   chan struct{}
	// lived closes when the live hub has stopped.
	lived chan struct{}
}

// NewMain returns a portal for cfg; nothing is opened until Run.
func NewMain(cfg Config, logger *slog.Logger) *Main {
	return &Main{cfg: cfg, logger: logger}
}

// open connects the database, the blob store and the queue, and builds the handler.
func (m *Main) open(ctx context.Context) error {
	poolCfg, err := store.PoolConfig(m.cfg.DatabaseURL)
	if err != nil {
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	m.pool = pool
	if err := pool.Ping(ctx); err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	m.store = store.New(pool)
	// Refused here rather than answering 500 on the first page that
	// queries a missing table.
	if err := m.store.SchemaCheck(ctx, "portal"); err != nil {
		return err
	}
	if m.blobs, err = blob.Open(ctx, m.cfg.BlobURL); err != nil {
		return fmt.Errorf("open BLOB_URL: %w", err)
	}
	queue, err := jobs.NewClient(pool)
	if err != nil {
		return err
	}
	wcfg := web.DefaultConfig(rulesets.Registry())
	wcfg.UploadMaxBytes = m.cfg.UploadMaxBytes
	wcfg.UploadMaxQueuedBuilds = m.cfg.UploadMaxQueuedBuilds
	wcfg.UploadsPerHour = m.cfg.UploadsPerHour
	wcfg.CookieSecure = m.cfg.CookieSecure
	wcfg.TrustedProxies = m.cfg.TrustedProxies
	wcfg.Notifier = notify.NewSettings(m.store, queue.River(), m.cfg.Dev, m.cfg.Email)
	limits := botzip.DefaultLimits()
	limits.MaxZipBytes = m.cfg.UploadMaxBytes
	inspect := botupload.ZipInspector{Limits: limits}
	m.handler = web.New(m.store, m.blobs, queue, inspect, m.logger, wcfg)
	// Seeding uploads as the house account, which the per-user limits spare.
	m.uploads = botupload.New(m.store, m.blobs, queue, inspect, m.logger, wcfg.UploadLimits(), wcfg.Rules)
	return nil
}

// Run opens everything and starts serving in the background.
func (m *Main) Run(ctx context.Context) error {
	if err := m.open(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", m.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on ADDR %s: %w", m.cfg.Addr, err)
	}
	m.ln = ln
	m.srv = &http.Server{
		Handler:           m.handler.Routes(),
		ReadHeaderTimeout: 10 * time.Second,
		// Uploads of 20 MiB over slow links need time; reads of pages do not.
		ReadTimeout:  5 * time.Minute,
		WriteTimeout: 5 * time.Minute,
		IdleTimeout:  2 * time.Minute,
		ErrorLog:     slog.NewLogLogger(m.logger.Handler(), slog.LevelWarn),
	}
	m.served = make(chan error, 1)
	go func() { m.served <- m.srv.Serve(ln) }()
	sweepCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	m.stop, m.swept = stop, make(chan struct{})
	go m.sweepSessions(sweepCtx)
	m.lived = make(chan struct{})
	go func() {
		defer close(m.lived)
		m.handler.RunLive(sweepCtx)
	}()
	return nil
}

// sweepSessions deletes expired sessions every hour; they are refused
// anyway, this only keeps the table small.
func (m *Main) sweepSessions(ctx context.Context) {
	defer close(m.swept)
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := m.store.SessionDeleteExpired(ctx); err != nil && ctx.Err() == nil {
			m.logger.Warn("delete expired sessions", "err", err)
		} else if n > 0 {
			m.logger.Info("deleted expired sessions", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Addr is the address the portal listens on, once Run returned.
func (m *Main) Addr() string {
	if m.ln == nil {
		return ""
	}
	return m.ln.Addr().String()
}

// Close stops serving, letting requests under way finish for a while, and
// closes the connections.
func (m *Main) Close() error {
	var errs []error
	if m.stop != nil {
		m.stop()
		<-m.swept
		<-m.lived
	}
	if m.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := m.srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shut down http server: %w", err))
		}
		if err := <-m.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, fmt.Errorf("serve: %w", err))
		}
	}
	if m.blobs != nil {
		if err := m.blobs.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close blob store: %w", err))
		}
	}
	if m.pool != nil {
		m.pool.Close()
	}
	return errors.Join(errs...)
}

func migrate(ctx context.Context, cfg Config, logger *slog.Logger) error {
	if err := store.Migrate(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	logger.Info("database migrated")
	return nil
}
