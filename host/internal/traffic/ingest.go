package traffic

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic/crawlers"
	"github.com/heraldhq/herald/host/internal/traffic/logs"
)

// Limits of one log request (docs/CRAWLERS.md).
const (
	// MaxLogBytes caps a log request's body, after decompression.
	MaxLogBytes = 8 << 20
	// MaxLogLines caps the lines of one request.
	MaxLogLines = 10000
	// maxReasons is how many rejection reasons an answer lists.
	maxReasons = 10
	// dnsPerRequest caps the DNS checks of one request (uncached IPs).
	dnsPerRequest = 64
	// rangeCheckEvery is how often a host looks for newly loaded ranges.
	rangeCheckEvery = 30 * time.Second
	// IngestSecretPrefix starts every ingest secret.
	IngestSecretPrefix = "kis_"
)

// logDeps is the part of the Service that reads logs.
type logDeps struct {
	plans     *plans.Table
	verifier  *crawlers.Verifier
	citations CitationSource

	mu          sync.Mutex
	rangesAt    time.Time // last look at the loaded ranges
	rangesStamp int64     // the loaded_at in force
}

func (l *logDeps) init(d Deps) error {
	l.plans, l.verifier, l.citations = d.Plans, d.Verifier, d.Citations
	if l.verifier == nil {
		files, err := crawlers.Shipped()
		if err != nil {
			return fmt.Errorf("traffic: shipped crawler ranges: %w", err)
		}
		l.verifier = crawlers.NewVerifier(crawlers.NewRanges(files...), nil)
	}
	return nil
}

// LogBatch is one log request.
type LogBatch struct {
	// SiteKey is the ?siteKey= parameter.
	SiteKey     string
	ContentType string
	Body        []byte
	// Authorization is the request's Authorization header (the ingest
	// secret as a bearer token), used when no api-key authenticated.
	Authorization string
}

// LogResult is the answer to a log request.
type LogResult struct {
	Accepted, Rejected                         int64
	Reasons                                    []string
	CrawlerHits, VerifiedHits, BotHits, Visits int64
}

// logSite authenticates a log request: the caller's api key with the
// site key of one of its workspace's sites, else the site's ingest
// secret. It returns the site and its workspace's plan.
func (s *Service) logSite(ctx context.Context, b LogBatch) (store.TrafficSite, config.Plan, error) {
	if p, ok := auth.FromContext(ctx); ok {
		if b.SiteKey == "" {
			return store.TrafficSite{}, config.Plan{}, apierr.Invalid("siteKey is required with an api-key (or send the site's ingest secret as Authorization: Bearer)")
		}
		site, err := s.store.TrafficSiteByKey(ctx, b.SiteKey)
		if errors.Is(err, store.ErrNotFound) || (err == nil && site.WorkspaceID != p.WorkspaceID) {
			return store.TrafficSite{}, config.Plan{}, apierr.NotFound("site %q not found", truncate(b.SiteKey, 70))
		}
		if err != nil {
			return store.TrafficSite{}, config.Plan{}, err
		}
		plan, _ := s.logs.plans.Get(p.Plan)
		return site, plan, nil
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(b.Authorization), " ")
	token = strings.TrimSpace(token)
	switch {
	case b.Authorization == "":
		return store.TrafficSite{}, config.Plan{}, apierr.Unauthenticated("send the site's ingest secret as Authorization: Bearer kis_…, or an api-key with ?siteKey=")
	case !strings.EqualFold(scheme, "Bearer"):
		return store.TrafficSite{}, config.Plan{}, apierr.Unauthenticated("Authorization must be \"Bearer <ingest secret>\"")
	case strings.HasPrefix(token, SiteKeyPrefix):
		return store.TrafficSite{}, config.Plan{}, apierr.Unauthenticated("the site key is public and is not a credential: send the site's ingest secret (kis_…)")
	case !strings.HasPrefix(token, IngestSecretPrefix) || len(token) > 128:
		return store.TrafficSite{}, config.Plan{}, apierr.Unauthenticated("invalid ingest secret")
	}
	hash := hashSecret(token)
	site, planName, err := s.store.SiteByIngestSecret(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return store.TrafficSite{}, config.Plan{}, apierr.Unauthenticated("invalid ingest secret")
	}
	if err != nil {
		return store.TrafficSite{}, config.Plan{}, fmt.Errorf("verify ingest secret: %w", err)
	}
	if b.SiteKey != "" && subtle.ConstantTimeCompare([]byte(b.SiteKey), []byte(site.SiteKey)) != 1 {
		return store.TrafficSite{}, config.Plan{}, apierr.Unauthenticated("this ingest secret is not the secret of site %q", truncate(b.SiteKey, 70))
	}
	plan, _ := s.logs.plans.Get(planName)
	return site, plan, nil
}

// logWriteTimeout bounds a log request's verification and write once its
// sender is no longer waiting.
const logWriteTimeout = 30 * time.Second

// IngestLogs reads a batch of log lines of one site, classifies each line
// with Classify, verifies the AI crawler hits and stores them with their
// rollups in one transaction. Other bots and visits are counted, not
// stored: visits come from the tracking script only, so none is counted
// twice.
func (s *Service) IngestLogs(ctx context.Context, b LogBatch) (LogResult, error) {
	// The body is read whole before this runs, so a sender that hangs up
	// now (a fire-and-forget post, as the WordPress plugin sends from
	// PHP's built-in server) has said all it will: its lines are still
	// verified and stored, within logWriteTimeout.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), logWriteTimeout)
	defer cancel()
	site, plan, err := s.logSite(ctx, b)
	if err != nil {
		return LogResult{}, err
	}
	if !site.IsActive {
		return LogResult{}, apierr.Forbidden("site %s (%s) is inactive", site.SiteKey, site.Domain)
	}
	kind, err := logs.KindOf(b.ContentType)
	if err != nil {
		return LogResult{}, apierr.Invalid("%s", err.Error())
	}
	if len(strings.TrimSpace(string(b.Body))) == 0 {
		return LogResult{}, apierr.Invalid("the body is empty: post log lines")
	}
	if len(b.Body) > MaxLogBytes {
		return LogResult{}, apierr.Invalid("the body is larger than %d bytes: post fewer lines per request", MaxLogBytes)
	}
	if n := logs.Count(kind, b.Body, MaxLogLines); n > MaxLogLines {
		return LogResult{}, apierr.Invalid("more than %d lines in one request: post them in smaller batches", MaxLogLines)
	}
	s.refreshRanges(ctx)

	now := time.Unix(0, s.store.Now()*int64(time.Millisecond)).UTC()
	var res LogResult
	var hits []store.CrawlerHit
	budget := &crawlers.Budget{Left: dnsPerRequest}
	reject := func(n int, why string) {
		res.Rejected++
		if len(res.Reasons) < maxReasons {
			res.Reasons = append(res.Reasons, fmt.Sprintf("line %d: %s", n, why))
		}
	}
	err = logs.Each(kind, b.Body, func(n int, l logs.Line, _ logs.Format, lerr error) {
		if lerr != nil {
			var le *logs.LineError
			if errors.As(lerr, &le) {
				reject(n, le.Reason)
			} else {
				reject(n, lerr.Error())
			}
			return
		}
		if why := lineProblem(l, site.Domain, now); why != "" {
			reject(n, why)
			return
		}
		res.Accepted++
		c := Classify(l.Referrer, "", l.UserAgent)
		switch c.Kind {
		case AICrawler:
			how := s.logs.verifier.Verify(ctx, c.Crawler.Operator, l.IP, budget)
			hits = append(hits, store.CrawlerHit{At: l.Time.UnixMilli(), Bot: c.Crawler.Token, Operator: c.Crawler.Operator,
				Verified: how != crawlers.Claimed, Method: truncate(l.Method, 16), Path: l.Path, Status: l.Status,
				IP: storedIP(l.IP, site.ID, plan.LogIPStorage), UserAgent: truncate(stripNUL(l.UserAgent), maxTextLen)})
			res.CrawlerHits++
			if how != crawlers.Claimed {
				res.VerifiedHits++
			}
		case Bot:
			res.BotHits++
		default:
			res.Visits++
		}
	})
	if err != nil {
		return LogResult{}, apierr.Invalid("%s", err.Error())
	}
	err = s.store.RecordCrawlerHits(ctx, store.CrawlerBatch{SiteID: site.ID, Lines: res.Accepted + res.Rejected,
		Cap: int64(plan.LogLinesPerDay), Hits: hits, Events: firstSeen(site, hits)})
	if errors.Is(err, store.ErrLogCap) {
		return LogResult{}, overLogCap(plan.LogLinesPerDay, now)
	}
	if err != nil {
		return LogResult{}, err
	}
	return res, nil
}

// firstSeen is a crawler.first_seen event per operator with a verified hit
// in hits, about its earliest one; the store writes each with a dedupe key
// of site and operator, so an operator's first verified hit on a site
// makes the one event and later batches none.
func firstSeen(site store.TrafficSite, hits []store.CrawlerHit) []*store.Event {
	first := map[string]int{}
	var ops []string
	for i, h := range hits {
		if !h.Verified {
			continue
		}
		j, ok := first[h.Operator]
		if !ok {
			ops = append(ops, h.Operator)
		}
		if !ok || h.At < hits[j].At {
			first[h.Operator] = i
		}
	}
	out := make([]*store.Event, 0, len(ops))
	for _, op := range ops {
		h := hits[first[op]]
		out = append(out, store.EventOf(catalog.CrawlerSeen(site.WorkspaceID, catalog.Crawler{SiteID: site.ID, Operator: op, Crawler: h.Bot, Path: h.Path})))
	}
	return out
}

// lineProblem says why a parsed line is refused: another host, a time
// out of range, or a NUL byte in its path.
func lineProblem(l logs.Line, domain string, now time.Time) string {
	if l.Host != "" && l.Host != domain && !strings.HasSuffix(l.Host, "."+domain) {
		return fmt.Sprintf("host %s is not %s or one of its subdomains", truncate(l.Host, 100), domain)
	}
	if l.Time.After(now.Add(time.Hour)) {
		return fmt.Sprintf("time %s is in the future", l.Time.Format(time.RFC3339))
	}
	if l.Time.Before(now.AddDate(0, 0, -400)) {
		return fmt.Sprintf("time %s is more than 400 days old", l.Time.Format(time.RFC3339))
	}
	if strings.IndexByte(l.Path, 0) >= 0 {
		return "the path holds a NUL byte"
	}
	return ""
}

// overLogCap is the 429 of a request past the plan's daily lines, with
// Retry-After at the next UTC midnight.
func overLogCap(max int, now time.Time) error {
	next := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	err := apierr.New(connect.CodeResourceExhausted, fmt.Sprintf("this site's plan takes %d log lines per day and this request would pass it; nothing was stored; retry after midnight UTC", max))
	err.Meta().Set("Retry-After", strconv.FormatInt(max64(1, int64(next.Sub(now).Seconds()+0.999)), 10))
	return err
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// storedIP is what mode lets Herald keep of ip: truncated (IPv4 /24, IPv6
// /48; the default), hashed with the site id, full, or nothing.
func storedIP(ip, siteID, mode string) string {
	addr, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil || mode == "none" {
		return ""
	}
	addr = addr.Unmap()
	switch mode {
	case "full":
		return addr.String()
	case "hashed":
		sum := sha256.Sum256([]byte(siteID + "|" + addr.String()))
		return hex.EncodeToString(sum[:16])
	}
	bits := 24
	if addr.Is6() {
		bits = 48
	}
	p, _ := addr.Prefix(bits)
	return p.String()
}

// hashSecret is the stored form of an ingest secret.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// newIngestSecret makes, stores (as its hash) and returns a new ingest
// secret of a site, replacing the previous one.
func (s *Service) newIngestSecret(ctx context.Context, siteID string) (string, error) {
	secret := IngestSecretPrefix + strings.TrimPrefix(newSiteKey(), SiteKeyPrefix) + strings.TrimPrefix(newSiteKey(), SiteKeyPrefix)[:8]
	if err := s.store.SetIngestSecret(ctx, siteID, hashSecret(secret)); err != nil {
		return "", err
	}
	return secret, nil
}

// RotateIngestSecret gives a site of the caller's workspace a new ingest
// secret; the old one stops working at once.
func (s *Service) RotateIngestSecret(ctx context.Context, p auth.Principal, siteKey string) (Site, error) {
	site, err := s.store.TrafficSiteByKey(ctx, strings.TrimSpace(siteKey))
	if errors.Is(err, store.ErrNotFound) || (err == nil && site.WorkspaceID != p.WorkspaceID) {
		return Site{}, apierr.NotFound("site %q not found", truncate(siteKey, 70))
	}
	if err != nil {
		return Site{}, err
	}
	out := siteOf(site)
	if out.IngestSecret, err = s.newIngestSecret(ctx, site.ID); err != nil {
		return Site{}, err
	}
	return out, nil
}

// refreshRanges loads the range files operators stored with `herald
// crawlers ranges load` when there are newer ones, at most every
// rangeCheckEvery.
func (s *Service) refreshRanges(ctx context.Context) {
	l := &s.logs
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.rangesAt) < rangeCheckEvery && !l.rangesAt.IsZero() {
		return
	}
	l.rangesAt = time.Now()
	stamp, err := s.store.LastCrawlerRangeLoad(ctx)
	if err != nil || stamp == l.rangesStamp {
		return
	}
	r, err := LoadRanges(ctx, s.store)
	if err != nil {
		return
	}
	l.verifier.SetRanges(r)
	l.rangesStamp = stamp
}

// LoadRanges returns the shipped range files with the loaded ones over
// them (the newest file of a name wins).
func LoadRanges(ctx context.Context, st *store.Store) (*crawlers.Ranges, error) {
	files, err := crawlers.Shipped()
	if err != nil {
		return nil, err
	}
	rows, err := st.CrawlerRanges(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		f, err := crawlers.ParseRangeFile(r.Name, r.Operator, r.Source, []byte(r.Body))
		if err != nil {
			continue // it parsed when it was loaded
		}
		files = append(files, f)
	}
	return crawlers.NewRanges(files...), nil
}
