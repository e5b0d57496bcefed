package agent

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the agent's collectors.
type metrics struct {
	messages  prometheus.Counter
	toolCalls *prometheus.CounterVec
	feedback  *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		messages: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herald_agent_messages_total",
			Help: "Agent messages answered (each cost one AI credit).",
		}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_agent_tool_calls_total",
			Help: "Tool calls the agent ran, by tool and outcome (ok or error).",
		}, []string{"tool", "outcome"}),
		feedback: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_feedback_total",
			Help: "Feedback received, by target (chat_block, job, generation) and rating (up or down).",
		}, []string{"target", "rating"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.messages, err = register(reg, m.messages); err != nil {
		return nil, err
	}
	if m.toolCalls, err = register(reg, m.toolCalls); err != nil {
		return nil, err
	}
	if m.feedback, err = register(reg, m.feedback); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c, or returns the collector already registered under
// its name (a second Service on the same registry shares the counters).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}
