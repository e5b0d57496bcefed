package visibility

import "github.com/heraldhq/herald/host/internal/store"

// State is a report's state: queued, running, then completed or failed.
// The store keeps it as text; StateOf and stored convert at that
// boundary, and the report area compares only these constants.
type State string

// The report states.
const (
	StateQueued    State = store.ReportQueued
	StateRunning   State = store.ReportRunning
	StateCompleted State = store.ReportCompleted
	StateFailed    State = store.ReportFailed
)

// StateOf is the state of a stored report.
func StateOf(r store.VisibilityReport) State { return State(r.State) }

// stored is s as a report update writes it.
func (s State) stored() *string {
	v := string(s)
	return &v
}
