package jobs

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
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
