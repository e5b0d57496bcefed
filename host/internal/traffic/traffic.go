package traffic

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"html"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic/crawlers"
)

// SiteKeyPrefix starts every site key.
const SiteKeyPrefix = "ks_"

// MaxBeaconBytes caps a collect body; a beacon is a few hundred bytes.
const MaxBeaconBytes = 16 << 10

// Field limits of a beacon. Longer text fields are cut; longer paths and
// session ids are refused.
const (
	maxPathLen    = 2048
	maxSessionLen = 128
	maxTextLen    = 512
	maxDurationMs = 7 * 24 * 3600 * 1000

	siteCacheTTL    = 30 * time.Second
	siteMissTTL     = 5 * time.Second
	siteCacheMaxLen = 10000
)

// Deps is what the AI traffic service needs.
type Deps struct {
	// Store is required.
	Store *store.Store
	// Writer is the group commit of beacons; required.
	Writer *Writer
	// BaseURL is the public base URL that scriptUrl and snippets use
	// (config BaseURL, from HERALD_PUBLIC_URL); required.
	BaseURL string
	// Quota caps the sites of each workspace (config.Limits.MaxSites);
	// nil: no cap.
	Quota *quota.Checker
	// Plans gives a log request's plan (log_lines_per_day,
	// log_ip_storage); nil: the default plans.
	Plans *plans.Table
	// Verifier checks crawler hits from logs; nil: the shipped ranges and
	// the system's DNS.
	Verifier *crawlers.Verifier
	// Citations gives the pages view the engines' citations; nil: no page
	// is cited.
	Citations CitationSource
	// External answers stats from Google Analytics for the sites mapped to
	// a GA4 property (package analytics); nil: always the script.
	External External
}

// Service is the AI traffic domain logic over the store.
type Service struct {
	store   *store.Store
	writer  *Writer
	baseURL string
	quota   *quota.Checker
	logs    logDeps
	// external is Deps.External (nil: script only).
	external External

	mu    sync.Mutex
	sites map[string]cachedSite // by site key
}

type cachedSite struct {
	site  store.TrafficSite
	found bool
	exp   time.Time
}

// Site is a website tracked for AI traffic.
type Site struct {
	ID, SiteKey, Domain, Name string
	IsActive                  bool
	// CreatedAt is epoch milliseconds.
	CreatedAt int64
	// IngestSecret is set only when the site was just created.
	IngestSecret string
}

// siteOf is the stored site s as the service returns it.
func siteOf(s store.TrafficSite) Site {
	return Site{ID: s.ID, SiteKey: s.SiteKey, Domain: s.Domain, Name: s.Name, IsActive: s.IsActive, CreatedAt: s.CreatedAt}
}

// New returns a Service, or an error naming each required dep missing.
func New(d Deps) (*Service, error) {
	if err := deps.Check("traffic",
		deps.Need("Store", d.Store == nil),
		deps.Need("Writer", d.Writer == nil),
		deps.Need("BaseURL", d.BaseURL == ""),
	); err != nil {
		return nil, err
	}
	s := &Service{store: d.Store, writer: d.Writer, baseURL: strings.TrimRight(d.BaseURL, "/"), quota: d.Quota,
		external: d.External, sites: map[string]cachedSite{}}
	if err := s.logs.init(d); err != nil {
		return nil, err
	}
	return s, nil
}

// ScriptURL is where the tracking script is served.
func (s *Service) ScriptURL() string { return s.baseURL + "/v1/ai-traffic/t.js" }

// Snippet is the script tag a site owner adds to every page.
func (s *Service) Snippet(siteKey string) string {
	return `<script defer src="` + html.EscapeString(s.ScriptURL()) + `" data-site="` + html.EscapeString(siteKey) + `"></script>`
}

// ListSites returns the caller's sites, oldest first.
func (s *Service) ListSites(ctx context.Context, p auth.Principal) ([]Site, error) {
	rows, err := s.store.ListTrafficSites(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]Site, 0, len(rows))
	for _, r := range rows {
		out = append(out, siteOf(r))
	}
	return out, nil
}

// NewSite is the input of CreateSite.
type NewSite struct {
	// Domain is a domain or URL, normalised by validate (NormalizeDomain).
	Domain string
	// Name defaults to the domain.
	Name string
}

// validate normalises the domain and names the site after it by default.
func (in *NewSite) validate(names *quota.Checker) error {
	d, err := NormalizeDomain(in.Domain)
	if err != nil {
		return apierr.Invalid("%s", err.Error())
	}
	in.Domain = d
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		in.Name = d
	}
	return names.Name("name", in.Name)
}

// CreateSite adds a site for in.Domain, or returns the workspace's site
// that already has that domain (created is false then). The first site of
// a workspace without a website records its domain as the website.
func (s *Service) CreateSite(ctx context.Context, p auth.Principal, in NewSite) (Site, bool, error) {
	if err := in.validate(s.quota); err != nil {
		return Site{}, false, err
	}
	d, name := in.Domain, in.Name
	if err := s.quota.Room(ctx, store.CountSites, p.WorkspaceID); err != nil {
		// At the cap, asking again for a site it has is still answered.
		if sites, lerr := s.store.ListTrafficSites(ctx, p.WorkspaceID); lerr == nil {
			for _, site := range sites {
				if site.Domain == d {
					return siteOf(site), false, nil
				}
			}
		}
		return Site{}, false, err
	}
	site, created, err := s.store.CreateTrafficSite(ctx, store.TrafficSite{
		WorkspaceID: p.WorkspaceID, SiteKey: newSiteKey(), Domain: d, Name: name, IsActive: true,
	}, s.quota.Cap(store.CountSites))
	if err != nil {
		return Site{}, false, quota.Err(err)
	}
	out := siteOf(site)
	if created {
		if out.IngestSecret, err = s.newIngestSecret(ctx, site.ID); err != nil {
			return Site{}, false, err
		}
	}
	if created && p.Website == "" {
		if err := s.store.RecordWorkspaceWebsite(ctx, p.WorkspaceID, "https://"+d); err != nil {
			return Site{}, false, err
		}
	}
	return out, created, nil
}

// EnsureSite returns the workspace's first site, creating one from the
// workspace website, else the calling user's website, when there is none.
// It returns nil when there is neither a site nor a usable website.
func (s *Service) EnsureSite(ctx context.Context, p auth.Principal) (*Site, error) {
	sites, err := s.store.ListTrafficSites(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if len(sites) > 0 {
		first := siteOf(sites[0])
		return &first, nil
	}
	website := p.Website
	if _, err := NormalizeDomain(website); err != nil {
		// SPEC: the team website, else the calling user's own.
		if website, err = s.store.UserWebsite(ctx, p.UserID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if _, err := NormalizeDomain(website); err != nil {
			return nil, nil
		}
	}
	site, _, err := s.CreateSite(ctx, p, NewSite{Domain: website})
	if err != nil {
		return nil, err
	}
	return &site, nil
}

// newSiteKey returns "ks_" and 32 base62 characters (190 random bits).
func newSiteKey() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, 0, 32)
	var buf [64]byte
	for len(out) < 32 {
		rand.Read(buf[:])
		for _, c := range buf {
			if c < 248 && len(out) < 32 {
				out = append(out, alphabet[c%62])
			}
		}
	}
	return SiteKeyPrefix + string(out)
}

// siteByKey finds an active site by key through a short cache, so that a
// beacon flood costs no site query per beacon. Deactivation takes effect
// within siteCacheTTL.
func (s *Service) siteByKey(ctx context.Context, key string) (store.TrafficSite, error) {
	now := time.Now()
	s.mu.Lock()
	c, ok := s.sites[key]
	s.mu.Unlock()
	if !ok || now.After(c.exp) {
		site, err := s.store.TrafficSiteByKey(ctx, key)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.TrafficSite{}, err
		}
		c = cachedSite{site: site, found: err == nil, exp: now.Add(siteCacheTTL)}
		if !c.found {
			c.exp = now.Add(siteMissTTL)
		}
		s.mu.Lock()
		if len(s.sites) >= siteCacheMaxLen {
			clear(s.sites)
		}
		s.sites[key] = c
		s.mu.Unlock()
	}
	if !c.found {
		return store.TrafficSite{}, apierr.NotFound("unknown siteKey %q", key)
	}
	if !c.site.IsActive {
		return store.TrafficSite{}, apierr.Forbidden("site %s (%s) is inactive", key, c.site.Domain)
	}
	return c.site, nil
}

// Beacon is SPEC's collect beacon body.
type Beacon struct {
	SiteKey, Path, Referrer, Title, SessionID, UserAgent string
	UTMSource, UTMMedium, UTMCampaign                    string
	// SessionDurationMs and ScrollDepth are set on engagement updates.
	SessionDurationMs *int64
	ScrollDepth       *int32
}

// Collected is what Collect did with a beacon.
type Collected struct {
	// Kind is "pageview", "engagement", "crawler" or "ignored".
	Kind string
	// Source is the AI source id of the visit, "" when none.
	Source string
}

// validate strips NUL bytes from a beacon, checks it and returns its event
// (a pageview or an engagement update, not yet classified). headerUA is
// the request's User-Agent, used when the body has none.
func (b *Beacon) validate(headerUA string) (store.TrafficEvent, error) {
	// Beacons carry whatever the page had: NUL bytes are stripped, not
	// refused, and never reach the store.
	for _, f := range []*string{&b.SiteKey, &b.Path, &b.Referrer, &b.Title, &b.SessionID, &b.UserAgent,
		&b.UTMSource, &b.UTMMedium, &b.UTMCampaign} {
		*f = stripNUL(*f)
	}
	headerUA = stripNUL(headerUA)
	b.SiteKey = strings.TrimSpace(b.SiteKey)
	if b.SiteKey == "" {
		return store.TrafficEvent{}, apierr.Invalid("siteKey is required")
	}
	if !strings.HasPrefix(b.SiteKey, SiteKeyPrefix) || len(b.SiteKey) > 64 {
		return store.TrafficEvent{}, apierr.Invalid("siteKey %q is not a site key (they start with %s)", truncate(b.SiteKey, 70), SiteKeyPrefix)
	}
	path, err := beaconPath(b.Path)
	if err != nil {
		return store.TrafficEvent{}, err
	}
	session := strings.TrimSpace(b.SessionID)
	if len(session) > maxSessionLen || strings.IndexFunc(session, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) >= 0 {
		return store.TrafficEvent{}, apierr.Invalid("sessionId must be at most %d letters, digits, '-', '_' or '.'", maxSessionLen)
	}
	ev := store.TrafficEvent{Kind: store.TrafficPageview, SessionID: session, Path: path, DurationMs: -1, ScrollDepth: -1,
		Title: truncate(b.Title, maxTextLen), Referrer: truncate(strings.TrimSpace(b.Referrer), maxPathLen),
		UTMSource: truncate(b.UTMSource, maxTextLen), UTMMedium: truncate(b.UTMMedium, maxTextLen),
		UTMCampaign: truncate(b.UTMCampaign, maxTextLen)}
	if b.SessionDurationMs != nil {
		if v := *b.SessionDurationMs; v < 0 || v > maxDurationMs {
			return store.TrafficEvent{}, apierr.Invalid("sessionDurationMs must be between 0 and %d", maxDurationMs)
		}
		ev.DurationMs = *b.SessionDurationMs
	}
	if b.ScrollDepth != nil {
		if v := *b.ScrollDepth; v < 0 || v > 100 {
			return store.TrafficEvent{}, apierr.Invalid("scrollDepth must be a percentage between 0 and 100")
		}
		ev.ScrollDepth = int(*b.ScrollDepth)
	}
	if b.engagement() && session == "" {
		return store.TrafficEvent{}, apierr.Invalid("engagement updates (sessionDurationMs, scrollDepth) need the sessionId of their pageview")
	}
	// The whole user agent is classified; the event keeps its start.
	b.UserAgent = strings.TrimSpace(b.UserAgent)
	if b.UserAgent == "" {
		b.UserAgent = strings.TrimSpace(headerUA)
	}
	ev.UserAgent = truncate(b.UserAgent, maxTextLen)
	return ev, nil
}

// engagement reports whether b updates a pageview's engagement.
func (b *Beacon) engagement() bool { return b.SessionDurationMs != nil || b.ScrollDepth != nil }

// Collect validates and classifies a beacon and stores it durably.
// headerUA is the request's User-Agent, used when the body has none.
// Beacons of bots other than AI crawlers are answered but not stored.
func (s *Service) Collect(ctx context.Context, b Beacon, headerUA string) (Collected, error) {
	ev, err := b.validate(headerUA)
	if err != nil {
		return Collected{}, err
	}
	site, err := s.siteByKey(ctx, b.SiteKey)
	if err != nil {
		return Collected{}, err
	}
	ev.SiteID = site.ID

	c := Classify(ev.Referrer, ev.UTMSource, b.UserAgent)
	switch {
	case c.Kind == Bot:
		return Collected{Kind: "ignored"}, nil
	case c.Kind == AICrawler:
		ev.Kind, ev.Bot, ev.DurationMs, ev.ScrollDepth = store.TrafficCrawler, c.Crawler.Token, 0, -1
	case b.engagement():
		ev.Kind = store.TrafficEngagement
	default:
		if c.Source != nil {
			ev.Source = c.Source.ID
		}
		if ev.SessionID == "" {
			ev.SessionID = store.NewID()
		}
		ev.DurationMs, ev.ScrollDepth = 0, -1
	}
	ev.At = s.store.Now()
	out, err := s.writer.Write(ctx, ev)
	if errors.Is(err, ErrWriterClosed) {
		return Collected{}, apierr.Unavailable("the server is shutting down; retry")
	}
	if err != nil {
		return Collected{}, fmt.Errorf("store %s beacon for site %s: %w", ev.Kind, site.ID, err)
	}
	if !out.Stored {
		return Collected{Kind: "ignored", Source: out.Source}, nil
	}
	return Collected{Kind: string(ev.Kind), Source: out.Source}, nil
}

// beaconPath accepts a path ("/pricing") or a full URL and returns the path
// without query or fragment; "/" when empty.
func beaconPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "/", nil
	}
	if len(p) > maxPathLen {
		return "", apierr.Invalid("path is longer than %d characters", maxPathLen)
	}
	if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
		u, err := url.Parse(p)
		if err != nil {
			return "", apierr.Invalid("path %q is not a path or URL", truncate(p, 100))
		}
		p = u.EscapedPath()
		if p == "" {
			p = "/"
		}
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if !strings.HasPrefix(p, "/") {
		return "", apierr.Invalid("path must start with /, got %q", truncate(p, 100))
	}
	return p, nil
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
