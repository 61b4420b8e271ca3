package jobs

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/broadside/broadside/internal/store"
)

// Metrics counts the worker's jobs for Prometheus.
type Metrics struct {
	jobs     *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewMetrics registers the job metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "broadside_jobs_total",
			Help: "Jobs run by this worker, by kind and outcome.",
		}, []string{"kind", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "broadside_job_duration_seconds",
			Help:    "Duration of jobs run by this worker, by kind.",
			Buckets: prometheus.ExponentialBuckets(0.5, 2, 12),
		}, []string{"kind"}),
	}
	reg.MustRegister(m.jobs, m.duration)
	return m
}

// jobDone counts one job; a nil Metrics counts nothing.
func (m *Metrics) jobDone(kind, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.jobs.WithLabelValues(kind, outcome).Inc()
	m.duration.WithLabelValues(kind).Observe(d.Seconds())
}

// QueueCounter reads the queue's depth (store.Store).
type QueueCounter interface {
	JobQueueDepth(ctx context.Context) ([]store.QueueCount, error)
}

// QueueCollector exports how many jobs wait or run, by kind and state,
// read from the database at each scrape. Every worker exports the same
// numbers (the queue is the fleet's): an autoscaler takes their maximum.
type QueueCollector struct {
	count QueueCounter
	jobs  *prometheus.Desc
	up    *prometheus.Desc
}

// NewQueueCollector returns a collector to register on the worker's
// registry.
func NewQueueCollector(count QueueCounter) *QueueCollector {
	return &QueueCollector{
		count: count,
		jobs: prometheus.NewDesc("broadside_queue_jobs",
			"Jobs in the fleet's queue by kind (match, build, ...) and state (available, scheduled, retryable, running).",
			[]string{"kind", "state"}, nil),
		up: prometheus.NewDesc("broadside_queue_scrape_ok", "1 when the queue could be read from the database.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *QueueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.jobs
	ch <- c.up
}

// Collect implements prometheus.Collector.
func (c *QueueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.count.JobQueueDepth(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	for _, q := range counts {
		ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(q.Count), q.Kind, q.State)
	}
}
