package jobs

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/store"
)

// metrics are the queue's Prometheus metrics. Depth comes from the store at
// scrape time, so every host reports the same cluster-wide numbers; the
// counters are this host's.
type metrics struct {
	running  *prometheus.GaugeVec
	finished *prometheus.CounterVec
	duration *prometheus.HistogramVec
	rescued  *prometheus.CounterVec
	pruned   prometheus.Counter
	errors   *prometheus.CounterVec
	lost     *prometheus.CounterVec
	depth    *depthCollector
}

func newMetrics(s *store.Store) *metrics {
	return &metrics{
		running: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "herald_jobs_running", Help: "Jobs running on this host, by queue.",
		}, []string{"queue"}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_jobs_attempts_total", Help: "Finished job attempts on this host, by queue and outcome (completed, delayed = will retry, failed = failed for good).",
		}, []string{"queue", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "herald_job_attempt_duration_seconds", Help: "Duration of job attempts on this host, by queue.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"queue"}),
		rescued: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_jobs_rescued_total", Help: "Jobs whose lease expired, returned to waiting or failed by this host's rescuer.",
		}, []string{"queue", "state"}),
		pruned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herald_jobs_pruned_total", Help: "Finished jobs deleted after the retention period by this host.",
		}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_jobs_store_errors_total", Help: "Failed queue operations against the store, by operation.",
		}, []string{"op"}),
		lost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_jobs_lease_lost_total", Help: "Attempts on this host whose lease was lost; their handlers were cancelled.",
		}, []string{"queue"}),
		depth: &depthCollector{store: s, desc: prometheus.NewDesc("herald_jobs",
			"Unfinished jobs in the store (all hosts), by queue and state (waiting, delayed, active).", []string{"queue", "state"}, nil)},
	}
}

func (m *metrics) register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.running, m.finished, m.duration, m.rescued, m.pruned, m.errors, m.lost, m.depth} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func (m *metrics) observe(queue, outcome string, d time.Duration) {
	m.finished.WithLabelValues(queue, outcome).Inc()
	m.duration.WithLabelValues(queue).Observe(d.Seconds())
}

// depthCollector counts unfinished jobs at scrape time.
type depthCollector struct {
	store *store.Store
	desc  *prometheus.Desc
}

func (c *depthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *depthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := jobstore.New(c.store).CountUnfinishedJobs(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	seen := map[[2]string]bool{}
	for _, n := range counts {
		seen[[2]string{n.Queue, n.State}] = true
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n.Count), n.Queue, n.State)
	}
	// Report zeros too, so that alerts on depth see an empty queue.
	for _, q := range QueueNames {
		for _, s := range []string{store.JobWaiting, store.JobDelayed, store.JobActive} {
			if !seen[[2]string{q, s}] {
				ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 0, q, s)
			}
		}
	}
}
