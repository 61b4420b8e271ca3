package jobs_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/testdb"
)

// TestQueueCollector checks the queue depth an autoscaler reads from a
// worker's /metrics: jobs queued through the platform's own client, with
// no worker to take them, show as available by kind.
func TestQueueCollector(t *testing.T) {
	e := newEnv(t, testdb.NewPool(t), t.TempDir())
	c := jobs.NewQueueCollector(e.st)
	if got := queueGauges(t, c); len(got) != 0 {
		t.Fatalf("empty queue: %v", got)
	}
	e.upload(t, "one", zipDir(t, "../../bots/entelect-python3", nil))
	e.upload(t, "two", zipDir(t, "../../bots/entelect-python3", nil))
	got := queueGauges(t, c)
	if got["build/available"] != 2 || len(got) != 1 {
		t.Errorf("two uploads: %v, want build/available 2", got)
	}
}

// queueGauges gathers broadside_queue_jobs as "kind/state" → value, and
// fails unless the scrape says the database answered.
func queueGauges(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	ok := false
	for _, mf := range mfs {
		switch mf.GetName() {
		case "broadside_queue_scrape_ok":
			ok = mf.GetMetric()[0].GetGauge().GetValue() == 1
		case "broadside_queue_jobs":
			for _, m := range mf.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				out[labels["kind"]+"/"+labels["state"]] = m.GetGauge().GetValue()
			}
		}
	}
	if !ok {
		t.Fatal("broadside_queue_scrape_ok is not 1")
	}
	return out
}
