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
	for _, c := range []prometheus.Collector{m.messages, m.toolCalls, m.feedback} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
		}
	}
	return m, nil
}
