package plans

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/heraldhq/herald/config"
)

// Snapshot is one version of what every host must apply alike: the plans
// and the per-workspace caps of the limits block.
type Snapshot struct {
	// Version is the stored version (0: not stored, e.g. a fresh table).
	Version int64
	Plans   map[string]config.Plan
	// Caps are nil in a table that never applied a stored version.
	Caps *Caps
	// Source says where the version came from ("sighup host-a herald.hcl").
	Source string
}

// Caps are the per-workspace caps that travel with the plans (limits block:
// max_voices, max_webhooks, max_sites, max_schedules, max_name_length).
type Caps struct {
	Voices     int `json:"max_voices"`
	Webhooks   int `json:"max_webhooks"`
	Sites      int `json:"max_sites"`
	Schedules  int `json:"max_schedules"`
	NameLength int `json:"max_name_length"`
	// EventSubscriptions is max_event_subscriptions (0 in versions stored
	// before it existed: unlimited).
	EventSubscriptions int `json:"max_event_subscriptions,omitempty"`
}

// CapsOf takes the per-workspace caps out of a limits block (the zero
// Limits mean the defaults).
func CapsOf(l config.Limits) Caps {
	if l == (config.Limits{}) {
		l = config.DefaultLimits()
	}
	return Caps{Voices: l.MaxVoices, Webhooks: l.MaxWebhooks, Sites: l.MaxSites, Schedules: l.MaxSchedules, NameLength: l.MaxNameLength,
		EventSubscriptions: l.MaxEventSubscriptions}
}

// FromConfig is the snapshot a config file proposes: its plan blocks over
// the defaults (config already merged them) and its limits' caps.
func FromConfig(cfg *config.Config, source string) Snapshot {
	p := cfg.Plans
	if len(p) == 0 {
		p = config.DefaultPlans()
	}
	c := CapsOf(cfg.Limits)
	return Snapshot{Plans: maps.Clone(p), Caps: &c, Source: source}
}

// storedPlan is a plan in the stored JSON, named like the HCL attributes.
type storedPlan struct {
	PromptsPerReport   int  `json:"prompts_per_report"`
	RefreshesPer24h    int  `json:"refreshes_per_24h"`
	MonthlyAICredits   int  `json:"monthly_ai_credits"`
	FreeAudits         int  `json:"free_audits"`
	SchedulerAPIAccess bool `json:"scheduler_api_access"`
	JobsRunning        int  `json:"jobs_running"`
	JobsQueued         int  `json:"jobs_queued"`
	// Trackers and TrackerCadences: without them every host
	// reading a stored version saw trackers = 0 (no plan could track).
	Trackers        int      `json:"trackers"`
	TrackerCadences []string `json:"tracker_cadences"`
	// ReportSamples and TrackerSamples: 0 in versions stored before them
	// (read as 1).
	ReportSamples  int    `json:"report_samples"`
	TrackerSamples int    `json:"tracker_samples"`
	LogLinesPerDay int    `json:"log_lines_per_day"`
	LogIPStorage   string `json:"log_ip_storage"`
	// PostDestinations and RepeatHorizonDays: 0 in versions stored before
	// them (read as the defaults).
	PostDestinations  int `json:"post_destinations"`
	RepeatHorizonDays int `json:"repeat_horizon_days"`
}

type storedBody struct {
	Plans  map[string]storedPlan `json:"plans"`
	Limits Caps                  `json:"limits"`
}

// Encode returns the stored JSON of s (plans and caps; version and source
// are columns) and its digest, the SHA-256 of that JSON: equal snapshots
// have equal digests (map keys are sorted by encoding/json).
func Encode(s Snapshot) (body, digest string) {
	b := storedBody{Plans: map[string]storedPlan{}}
	for _, name := range slices.Sorted(maps.Keys(s.Plans)) {
		p := s.Plans[name]
		b.Plans[name] = storedPlan{p.PromptsPerReport, p.RefreshesPer24h, p.MonthlyAICredits, p.FreeAudits, p.SchedulerAPIAccess, p.JobsRunning, p.JobsQueued,
			p.Trackers, p.TrackerCadences, p.ReportSamples, p.TrackerSamples, p.LogLinesPerDay, p.LogIPStorage,
			p.PostDestinations, p.RepeatHorizonDays}
	}
	if s.Caps != nil {
		b.Limits = *s.Caps
	}
	raw, _ := json.Marshal(b)
	sum := sha256.Sum256(raw)
	return string(raw), hex.EncodeToString(sum[:])
}

// Decode reads a stored body back into a snapshot of version.
func Decode(version int64, body, source string) (Snapshot, error) {
	var b storedBody
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		return Snapshot{}, fmt.Errorf("decode plans version %d: %w", version, err)
	}
	s := Snapshot{Version: version, Plans: map[string]config.Plan{}, Caps: &b.Limits, Source: source}
	for name, p := range b.Plans {
		s.Plans[name] = config.Plan{PromptsPerReport: p.PromptsPerReport, RefreshesPer24h: p.RefreshesPer24h, MonthlyAICredits: p.MonthlyAICredits,
			FreeAudits: p.FreeAudits, SchedulerAPIAccess: p.SchedulerAPIAccess, JobsRunning: p.JobsRunning, JobsQueued: p.JobsQueued,
			Trackers: p.Trackers, TrackerCadences: p.TrackerCadences, ReportSamples: max(1, p.ReportSamples), TrackerSamples: max(1, p.TrackerSamples), LogLinesPerDay: p.LogLinesPerDay, LogIPStorage: p.LogIPStorage,
			PostDestinations: p.PostDestinations, RepeatHorizonDays: p.RepeatHorizonDays}
	}
	return s, nil
}
