package fleet

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/broadside/broadside/internal/store"
)

// PeriodicLister reads the periodic jobs' last runs (store.Store).
type PeriodicLister interface {
	PeriodicList(ctx context.Context) ([]store.PeriodicRun, error)
}

// PeriodicCollector exports each periodic job's last run, and whether it
// is overdue (not run for three intervals), read from the database at
// every scrape: any worker's /metrics tells whether the season runs,
// whichever worker leads.
type PeriodicCollector struct {
	list PeriodicLister
	// Now is the clock overdue jobs are judged by: time.Now, or a later
	// one where a test shows the alarm without waiting for it.
	Now     func() time.Time
	lastRun *prometheus.Desc
	overdue *prometheus.Desc
	runs    *prometheus.Desc
	up      *prometheus.Desc
}

// NewPeriodicCollector returns a collector to register on the worker's
// registry.
func NewPeriodicCollector(list PeriodicLister) *PeriodicCollector {
	return &PeriodicCollector{
		list: list,
		Now:  time.Now,
		lastRun: prometheus.NewDesc("broadside_periodic_last_run_timestamp_seconds",
			"When the periodic job last finished a run (Unix time).", []string{"job"}, nil),
		overdue: prometheus.NewDesc("broadside_periodic_overdue",
			"1 when the periodic job has not run for three intervals: the season has stopped running by itself.", []string{"job"}, nil),
		runs: prometheus.NewDesc("broadside_periodic_runs_total",
			"Runs of the periodic job, by every worker.", []string{"job"}, nil),
		up: prometheus.NewDesc("broadside_periodic_scrape_ok",
			"1 when the periodic jobs could be read from the database.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *PeriodicCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lastRun
	ch <- c.overdue
	ch <- c.runs
	ch <- c.up
}

// Collect implements prometheus.Collector.
func (c *PeriodicCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	runs, err := c.list.PeriodicList(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	now := c.Now()
	for _, r := range runs {
		if r.LastFinishedAt != nil {
			ch <- prometheus.MustNewConstMetric(c.lastRun, prometheus.GaugeValue, float64(r.LastFinishedAt.UnixMilli())/1000, r.Name)
		}
		late := 0.0
		if r.Overdue(now) {
			late = 1
		}
		ch <- prometheus.MustNewConstMetric(c.overdue, prometheus.GaugeValue, late, r.Name)
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.CounterValue, float64(r.Runs), r.Name)
	}
}
