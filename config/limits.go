package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limits bounds what clients and tenants can make the host hold: open
// connections, time spent reading bodies, objects per workspace and the
// length of names. Set in the `limits { ... }` block or with
// HERALD_LIMITS_<FIELD> (for example HERALD_LIMITS_MAX_CONNECTIONS).
type Limits struct {
	// MaxConnections caps concurrently open client connections; the
	// listener holds further ones in the kernel backlog until one closes.
	MaxConnections int
	// BodyReadTimeout bounds reading a JSON request body.
	BodyReadTimeout time.Duration
	// CollectReadTimeout bounds reading a public beacon body.
	CollectReadTimeout time.Duration
	// UploadReadTimeout bounds reading bodies that may carry an image
	// (POST /v1/scheduler/create with imageBase64).
	UploadReadTimeout time.Duration
	// MetricsToken, when set, makes /metrics and gRPC reflection require
	// "Authorization: Bearer <token>"; empty leaves them public.
	MetricsToken string
	// MaxVoices, MaxWebhooks, MaxSites and MaxSchedules cap the objects of
	// one workspace (schedules: pending ones); 0 means unlimited.
	MaxVoices, MaxWebhooks, MaxSites, MaxSchedules int
	// MaxEventSubscriptions caps a workspace's event subscriptions; 0
	// means unlimited.
	MaxEventSubscriptions int
	// MaxNameLength caps names and titles in characters.
	MaxNameLength int
	// BlobGracePeriod is how long an unreferenced stored image is kept
	// before the sweeper deletes it.
	BlobGracePeriod time.Duration
}

// DefaultLimits are the limits of a host whose configuration sets none.
func DefaultLimits() Limits {
	return Limits{
		MaxConnections:        1024,
		BodyReadTimeout:       10 * time.Second,
		CollectReadTimeout:    5 * time.Second,
		UploadReadTimeout:     60 * time.Second,
		MaxVoices:             500,
		MaxWebhooks:           100,
		MaxSites:              100,
		MaxSchedules:          10000,
		MaxEventSubscriptions: 20,
		MaxNameLength:         200,
		BlobGracePeriod:       24 * time.Hour,
	}
}

// limitsSchema is the `limits` block of the HCL file.
type limitsSchema struct {
	MaxConnections        *int    `hcl:"max_connections,optional"`
	BodyReadTimeout       *string `hcl:"body_read_timeout,optional"`
	CollectReadTimeout    *string `hcl:"collect_read_timeout,optional"`
	UploadReadTimeout     *string `hcl:"upload_read_timeout,optional"`
	MetricsToken          *string `hcl:"metrics_token,optional"`
	MaxVoices             *int    `hcl:"max_voices,optional"`
	MaxWebhooks           *int    `hcl:"max_webhooks,optional"`
	MaxSites              *int    `hcl:"max_sites,optional"`
	MaxSchedules          *int    `hcl:"max_schedules,optional"`
	MaxEventSubscriptions *int    `hcl:"max_event_subscriptions,optional"`
	MaxNameLength         *int    `hcl:"max_name_length,optional"`
	BlobGracePeriod       *string `hcl:"blob_grace_period,optional"`
}

func (l *Limits) ints() map[string]*int {
	return map[string]*int{
		"max_connections": &l.MaxConnections, "max_voices": &l.MaxVoices, "max_webhooks": &l.MaxWebhooks,
		"max_sites": &l.MaxSites, "max_schedules": &l.MaxSchedules, "max_name_length": &l.MaxNameLength,
		"max_event_subscriptions": &l.MaxEventSubscriptions,
	}
}

func (l *Limits) durations() map[string]*time.Duration {
	return map[string]*time.Duration{
		"body_read_timeout": &l.BodyReadTimeout, "collect_read_timeout": &l.CollectReadTimeout,
		"upload_read_timeout": &l.UploadReadTimeout, "blob_grace_period": &l.BlobGracePeriod,
	}
}

func (c *Config) applyLimitsFile(s *limitsSchema, pos func(string) (string, int)) error {
	if s == nil {
		return nil
	}
	l := &c.Limits
	ints := l.ints()
	for field, src := range map[string]*int{
		"max_connections": s.MaxConnections, "max_voices": s.MaxVoices, "max_webhooks": s.MaxWebhooks,
		"max_sites": s.MaxSites, "max_schedules": s.MaxSchedules, "max_name_length": s.MaxNameLength,
		"max_event_subscriptions": s.MaxEventSubscriptions,
	} {
		setInt(ints[field], src)
	}
	durs := l.durations()
	for field, src := range map[string]*string{
		"body_read_timeout": s.BodyReadTimeout, "collect_read_timeout": s.CollectReadTimeout,
		"upload_read_timeout": s.UploadReadTimeout, "blob_grace_period": s.BlobGracePeriod,
	} {
		if src == nil {
			continue
		}
		d, err := time.ParseDuration(*src)
		if err != nil {
			file, line := pos(field)
			return &Error{File: file, Line: line, Field: "limits." + field, Msg: fmt.Sprintf("%q is not a duration", *src)}
		}
		*durs[field] = d
	}
	if s.MetricsToken != nil {
		l.MetricsToken = *s.MetricsToken
	}
	return nil
}

// limitsEnv is the environment variable of a limits field.
func limitsEnv(field string) string { return "HERALD_LIMITS_" + strings.ToUpper(field) }

func (c *Config) applyLimitsEnv(getenv func(string) string) error {
	l := &c.Limits
	for field, dst := range l.ints() {
		if v := getenv(limitsEnv(field)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return &Error{File: "env " + limitsEnv(field), Field: "limits." + field, Msg: fmt.Sprintf("%q is not an integer", v)}
			}
			*dst = n
		}
	}
	for field, dst := range l.durations() {
		if v := getenv(limitsEnv(field)); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return &Error{File: "env " + limitsEnv(field), Field: "limits." + field, Msg: fmt.Sprintf("%q is not a duration", v)}
			}
			*dst = d
		}
	}
	if v := getenv(limitsEnv("metrics_token")); v != "" {
		l.MetricsToken = v
	}
	return nil
}

func (l *Limits) validate(fail func(field, format string, args ...any) error) error {
	if l.MaxConnections < 1 {
		return fail("limits.max_connections", "must be at least 1, got %d", l.MaxConnections)
	}
	for field, d := range l.durations() {
		if *d <= 0 {
			return fail("limits."+field, "must be positive")
		}
	}
	for field, n := range l.ints() {
		if *n < 0 {
			return fail("limits."+field, "must not be negative, got %d", *n)
		}
	}
	if l.MaxNameLength < 1 {
		return fail("limits.max_name_length", "must be at least 1, got %d", l.MaxNameLength)
	}
	return nil
}
