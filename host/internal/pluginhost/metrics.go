package pluginhost

import (
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// method is a plugin RPC, as metrics label it.
type method int

const (
	methodInfo method = iota
	methodGenerateText
	methodChat
	methodGenerateImage
	methodValidate
	methodExport
	methodCheckConnection
	methodStartFineTune
	methodGetFineTune
	methodAnalytics
	numMethods
)

var methodNames = [numMethods]string{"Info", "GenerateText", "Chat", "GenerateImage", "Validate", "Export", "CheckConnection", "StartFineTune", "GetFineTune", "Analytics"}

func (m method) String() string { return methodNames[m] }

// metrics are the manager's collectors. They are registered once per
// registry and shared by every generation.
type metrics struct {
	calls     *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	restarts  *prometheus.CounterVec
	starts    *prometheus.CounterVec
	fallbacks *prometheus.CounterVec
	cooldowns *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_plugin_calls_total",
			Help: "Calls from the host to plugins, by plugin, method and outcome (ok, an sdk error code, timeout, crashed or start_failed).",
		}, []string{"plugin", "method", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "herald_plugin_call_duration_seconds",
			Help:    "Duration of calls from the host to plugins, including a start or restart they waited for.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 11), // 100µs … 105s
		}, []string{"plugin", "method"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_plugin_restarts_total",
			Help: "Plugin processes that exited unexpectedly and were restarted.",
		}, []string{"plugin"}),
		starts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_plugin_starts_total",
			Help: "Plugin process starts, by outcome (ok or error).",
		}, []string{"plugin", "outcome"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_model_fallbacks_total",
			Help: "Model calls that moved on from a failed deployment to another attempt.",
		}, []string{"model", "provider"}),
		cooldowns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_model_cooldowns_total",
			Help: "Times a deployment was put in cooldown after failing repeatedly or asking for a Retry-After.",
		}, []string{"model", "provider"}),
	}
	if reg == nil {
		return m
	}
	m.calls = register(reg, m.calls)
	m.latency = register(reg, m.latency)
	m.restarts = register(reg, m.restarts)
	m.starts = register(reg, m.starts)
	m.fallbacks = register(reg, m.fallbacks)
	m.cooldowns = register(reg, m.cooldowns)
	return m
}

// register registers c, or returns the collector already registered under
// its name (a second manager on one registry, as tests make).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}

// processMetrics holds one plugin's label values, each resolved on the
// method's first call, so a successful call costs no label lookup and
// /metrics shows no series for methods a plugin never serves (a
// destination has no GenerateText).
type processMetrics struct {
	name     string
	m        *metrics
	once     [numMethods]sync.Once
	ok       [numMethods]prometheus.Counter
	latency  [numMethods]prometheus.Observer
	restarts prometheus.Counter
	starts   *prometheus.CounterVec
}

func (m *metrics) forPlugin(name string) *processMetrics {
	return &processMetrics{name: name, m: m, restarts: m.restarts.WithLabelValues(name), starts: m.starts.MustCurryWith(prometheus.Labels{"plugin": name})}
}

// resolve creates method m's series on its first call.
func (pm *processMetrics) resolve(m method) {
	pm.once[m].Do(func() {
		pm.ok[m] = pm.m.calls.WithLabelValues(pm.name, m.String(), "ok")
		pm.latency[m] = pm.m.latency.WithLabelValues(pm.name, m.String())
	})
}

func (pm *processMetrics) observeOK(m method, start time.Time) {
	pm.resolve(m)
	pm.ok[m].Inc()
	pm.latency[m].Observe(time.Since(start).Seconds())
}

func (pm *processMetrics) observe(m method, start time.Time, outcome string) {
	pm.resolve(m)
	pm.m.calls.WithLabelValues(pm.name, m.String(), outcome).Inc()
	pm.latency[m].Observe(time.Since(start).Seconds())
}
