package jobs

import (
	"context"
	"log/slog"
)

// riverLogger is the logger River gets: River reports its routine at info
// level (its producers' job counts every few seconds, leadership, queue
// starts), which buries the worker's own lines, so its info lines go to
// debug; its warnings and errors stay as they are.
func riverLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(debugInfo{l.Handler()})
}

// debugInfo is a handler that records info lines at debug level.
type debugInfo struct{ h slog.Handler }

func (d debugInfo) Enabled(ctx context.Context, level slog.Level) bool {
	return d.h.Enabled(ctx, demote(level))
}

func (d debugInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return d.h.Handle(ctx, r)
}

func (d debugInfo) WithAttrs(attrs []slog.Attr) slog.Handler {
	return debugInfo{d.h.WithAttrs(attrs)}
}

func (d debugInfo) WithGroup(name string) slog.Handler { return debugInfo{d.h.WithGroup(name)} }

func demote(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}
