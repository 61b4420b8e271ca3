package jobs

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestRiverLogger: River's info lines reach the worker's log only at
// debug level, as debug lines; its warnings and errors always do.
func TestRiverLogger(t *testing.T) {
	tests := []struct {
		name  string
		level slog.Level
		log   func(l *slog.Logger)
		want  string // "" means nothing is written
	}{
		{"info hidden at info", slog.LevelInfo, func(l *slog.Logger) { l.Info("producer job counts", "queue", "match") }, ""},
		{"info kept at debug", slog.LevelDebug, func(l *slog.Logger) { l.Info("producer job counts") }, "level=DEBUG msg=\"producer job counts\""},
		{"warning kept", slog.LevelInfo, func(l *slog.Logger) { l.Warn("job failed") }, "level=WARN msg=\"job failed\""},
		{"error kept", slog.LevelWarn, func(l *slog.Logger) { l.Error("lost leadership") }, "level=ERROR"},
		{"attrs and groups kept", slog.LevelDebug, func(l *slog.Logger) {
			l.With("worker", "w1").WithGroup("job").Info("started", "id", 7)
		}, "worker=w1 job.id=7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tt.log(riverLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tt.level}))))
			got := buf.String()
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("logged %q, want %q", got, tt.want)
			}
		})
	}
	if riverLogger(nil) != nil {
		t.Fatal("a nil logger must stay nil, for River's own default")
	}
}
