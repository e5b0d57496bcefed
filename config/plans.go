package config

// Plan is the set of limits the API attaches to a workspace's plan.
type Plan struct {
	// PromptsPerReport caps buyer prompts in a visibility report.
	PromptsPerReport int
	// RefreshesPer24h caps report refreshes in any 24 hours; 0 blocks refreshes.
	RefreshesPer24h int
	// MonthlyAICredits is the monthly allowance of AI credits.
	MonthlyAICredits int
	// FreeAudits is how many visibility reports a workspace may run in total
	// on this plan; 0 means unlimited.
	FreeAudits int
	// SchedulerAPIAccess allows the scheduler with an api-key (SPEC: Business
	// and higher); sessions are always allowed.
	SchedulerAPIAccess bool
	// JobsRunning caps a workspace's running jobs in each queue, across
	// hosts: its other jobs wait while others' run (0: unlimited).
	JobsRunning int
	// JobsQueued caps a workspace's jobs waiting to run in each queue: an
	// enqueue beyond it is a 429 with Retry-After (0: unlimited).
	JobsQueued int
	// Trackers caps a workspace's active visibility trackers (0: the plan
	// cannot create trackers).
	Trackers int
	// TrackerCadences are the cadences a tracker may have on this plan
	// ("daily", "weekly").
	TrackerCadences []string
	// ReportSamples and TrackerSamples are how many times a report and a
	// tracker's run ask each prompt on each engine (1 to MaxSamples): one
	// answer is a sample of what an engine says, not a fact, and more
	// samples narrow every figure's interval. Each answer costs a credit.
	ReportSamples  int
	TrackerSamples int
	// LogLinesPerDay caps the server log lines a site may post per UTC day
	// (POST /v1/ai-traffic/logs; 429 with Retry-After over it; 0: no cap).
	LogLinesPerDay int
	// LogIPStorage is how a crawler hit's IP from a log is stored:
	// "truncated" (IPv4 /24, IPv6 /48; the default), "hashed", "full" or
	// "none".
	LogIPStorage string
	// PostDestinations caps the destinations of one post (0: the
	// default of DefaultPostDestinations).
	PostDestinations int
	// RepeatHorizonDays is how far ahead a repeat rule may end: a rule
	// without an end, or ending later, is refused (0: the default of
	// DefaultRepeatHorizonDays).
	RepeatHorizonDays int
}

// Defaults of a plan's post_destinations and repeat_horizon_days, for plans
// (and stored plan versions) that do not set them.
const (
	DefaultPostDestinations  = 5
	DefaultRepeatHorizonDays = 366
)

// MaxSamples caps report_samples, tracker_samples and a tracker's samples.
const MaxSamples = 10

// LogIPStorageModes are the values of a plan's log_ip_storage.
var LogIPStorageModes = []string{"truncated", "hashed", "full", "none"}

// TrackerCadenceNames are the cadences a visibility tracker may run at.
var TrackerCadenceNames = []string{"daily", "weekly"}

// PlanNames lists the plans in increasing order of privilege.
var PlanNames = []string{"free", "pro", "business", "enterprise"}

// DefaultPlans returns the plan limits used when config does not set them.
func DefaultPlans() map[string]Plan {
	plans := map[string]Plan{
		"free":       {PromptsPerReport: 5, RefreshesPer24h: 0, MonthlyAICredits: 25, FreeAudits: 1, SchedulerAPIAccess: false},
		"pro":        {PromptsPerReport: 25, RefreshesPer24h: 3, MonthlyAICredits: 500, FreeAudits: 0, SchedulerAPIAccess: false},
		"business":   {PromptsPerReport: 50, RefreshesPer24h: 10, MonthlyAICredits: 2000, FreeAudits: 0, SchedulerAPIAccess: true},
		"enterprise": {PromptsPerReport: 200, RefreshesPer24h: 50, MonthlyAICredits: 20000, FreeAudits: 0, SchedulerAPIAccess: true},
	}
	for name, caps := range defaultJobCaps {
		p := plans[name]
		p.JobsRunning, p.JobsQueued = caps[0], caps[1]
		plans[name] = p
	}
	// Trackers: none on free; weekly on pro (a daily tracker of 5 prompts
	// on 4 engines would spend 600 of its 500 monthly credits); daily too
	// from business up.
	for name, t := range defaultTrackers {
		p := plans[name]
		p.Trackers, p.TrackerCadences = t.n, t.cadences
		plans[name] = p
	}
	// Samples: one answer per prompt and engine on free, three on paid
	// plans (enough for an interval that tells a real change from noise).
	for name, p := range plans {
		p.ReportSamples, p.TrackerSamples = 3, 3
		if name == "free" {
			p.ReportSamples, p.TrackerSamples = 1, 1
		}
		plans[name] = p
	}
	for name, d := range defaultPosts {
		p := plans[name]
		p.PostDestinations, p.RepeatHorizonDays = d[0], d[1]
		plans[name] = p
	}
	for name, n := range defaultLogLines {
		p := plans[name]
		p.LogLinesPerDay, p.LogIPStorage = n, "truncated"
		plans[name] = p
	}
	return plans
}

// defaultPosts are the post_destinations and repeat_horizon_days of each
// plan.
var defaultPosts = map[string][2]int{"free": {2, 31}, "pro": {3, 92}, "business": {10, 366}, "enterprise": {25, 731}}

// defaultLogLines are the log_lines_per_day of each plan.
var defaultLogLines = map[string]int{"free": 20000, "pro": 200000, "business": 2000000, "enterprise": 0}

var defaultTrackers = map[string]struct {
	n        int
	cadences []string
}{
	"free": {0, []string{}}, "pro": {3, []string{"weekly"}},
	"business": {10, []string{"daily", "weekly"}}, "enterprise": {100, []string{"daily", "weekly"}},
}

// defaultJobCaps are the JobsRunning and JobsQueued of each plan.
var defaultJobCaps = map[string][2]int{
	"free": {2, 100}, "pro": {4, 500}, "business": {8, 2000}, "enterprise": {16, 10000},
}
