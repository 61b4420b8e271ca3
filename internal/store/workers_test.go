package store_test

import (
	"testing"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// TestWorkerListRunning counts, per worker, the queue's running jobs whose
// last taker it is: a job rescued and taken again belongs to its new
// worker, and a finished job to nobody.
func TestWorkerListRunning(t *testing.T) {
	b := setup(t)
	for _, id := range []string{"test-w1:1:aa", "test-w2:2:bb", "test-w3:3:cc"} {
		if err := b.st.WorkerBeat(b.ctx, store.WorkerHeartbeat{WorkerID: id, Hostname: "h", StartedAt: time.Now(), Sandbox: "bwrap"}); err != nil {
			t.Fatal(err)
		}
	}
	jobs := []struct {
		state string
		by    []string
	}{
		{"running", []string{"test-w1:1:aa"}},
		{"running", []string{"test-w2:2:bb", "test-w1:1:aa"}},
		{"running", []string{"test-w1:1:aa", "test-w2:2:bb"}},
		{"completed", []string{"test-w1:1:aa"}},
		{"available", []string{"test-w3:3:cc"}},
	}
	for _, j := range jobs {
		var finalized *time.Time
		if j.state == "completed" {
			now := time.Now()
			finalized = &now
		}
		if _, err := b.st.DB().Exec(b.ctx, `
			INSERT INTO river_job (kind, args, max_attempts, state, attempt, attempted_at, attempted_by, finalized_at)
			VALUES ('test', '{}', 5, $1, 1, now(), $2, $3)`, j.state, j.by, finalized); err != nil {
			t.Fatalf("insert job: %v", err)
		}
	}
	list, err := b.st.WorkerList(b.ctx, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, w := range list {
		got[w.WorkerID] = w.Running
	}
	want := map[string]int{"test-w1:1:aa": 2, "test-w2:2:bb": 1, "test-w3:3:cc": 0}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("worker %s: running %d, want %d (all: %v)", id, got[id], n, got)
		}
	}
}
