package voice

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
)

// Limits of voice fields.
const (
	MaxContentChars = 200_000
	MaxNameChars    = 200
	defaultNameLen  = 40
)

// Scopes of a voice.
const (
	ScopeTeam     = "team"
	ScopePersonal = "personal"
)

// FetchIntervals are the refresh intervals a voice accepts.
var FetchIntervals = []string{"never", "daily", "weekly", "monthly"}

// Queue is what the service needs of the job queue (*jobs.Queue): it
// enqueues website and file voice jobs and refreshes on contentQueue.
type Queue interface {
	Enqueue(ctx context.Context, j jobs.NewJob) (string, error)
}

// Deps is what the brand-voice service needs.
type Deps struct {
	// Logger: nil discards.
	Logger hclog.Logger
	// Store is required.
	Store *store.Store
	// Queue is required with a Fetcher: website and file voices are
	// created and refreshed in its jobs (JobCreate, JobRefresh; the host's
	// job table mounts RunCreate and RunRefresh).
	Queue Queue
	// Quota caps the voices of each workspace (config.Limits.MaxVoices;
	// nil: no cap) and, with a profile model, pays its profiles in AI
	// credits (ProfileCredits each, by the plan's monthly allowance): it
	// is then required, and must follow the plans table.
	Quota *quota.Checker
	// Now is the clock (refresh times, the credit month); default time.Now.
	Now func() time.Time
	// Fetcher enables website and file voices; without one those routes
	// answer 503.
	Fetcher Fetcher
	// Models and Model write profiles; without them profiles are measured.
	Models Models
	Model  string
	// ProfileText profiles text voices too (keeping the raw text as their
	// source); set when the operator names brand_voice.model.
	ProfileText bool
	// RefreshEvery is how often due website voices are looked for
	// (default 5 minutes).
	RefreshEvery time.Duration
}

// Service is the brand-voice domain logic over the store.
type Service struct {
	store *store.Store
	quota *quota.Checker
	deps  Deps
	// stop and done run the refresh loop (Start, Stop).
	stop, done chan struct{}
}

// New returns a Service, or an error naming each required dep missing.
func New(d Deps) (*Service, error) {
	if err := deps.Check("voice",
		deps.Need("Store", d.Store == nil),
		deps.NeedWhen("Queue", d.Fetcher != nil && d.Queue == nil, "with a Fetcher"),
		deps.NeedWhen("Quota", d.Models != nil && d.Model != "" && d.Quota == nil, "with a profile model (it pays profiles in AI credits)"),
	); err != nil {
		return nil, err
	}
	if d.Logger == nil {
		d.Logger = hclog.NewNullLogger()
	}
	d.Logger = d.Logger.Named("voice")
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Quota != nil {
		// Credits are counted in the month of the service's clock, and a
		// failed refund is logged as the voice's.
		d.Quota = d.Quota.WithClock(d.Now).WithLogger(d.Logger)
	}
	if d.RefreshEvery <= 0 {
		d.RefreshEvery = 5 * time.Minute
	}
	return &Service{store: d.Store, quota: d.Quota, deps: d}, nil
}

// Voice is a brand voice as the service returns it.
type Voice struct {
	// Scope is ScopeTeam or ScopePersonal; Type is "text", "website" or
	// "file".
	ID, Scope, Name, Type string
	// URL is the source of a website or file voice; FetchInterval, one of
	// FetchIntervals, is how often a website voice is fetched again.
	URL, FetchInterval *string
	// Content is the profile (or the text); ContentLength is its length
	// in characters, which List fills without loading Content.
	Content       string
	ContentLength int
	// CreatedAt and UpdatedAt are epoch milliseconds.
	CreatedAt, UpdatedAt int64
	// LastFetch is the outcome of the latest fetch of URL; nil before one.
	LastFetch *Fetch
	// IsActive is false once the voice is deleted (a soft delete).
	IsActive bool
}

// Fetch is the outcome of fetching a voice's URL.
type Fetch struct {
	// At is epoch milliseconds.
	At    int64
	OK    bool
	Error string
}

// fromStore is the stored voice v as the service returns it.
func fromStore(v voicestore.Voice) Voice {
	out := Voice{ID: v.ID, Scope: v.Scope, Name: v.Name, Type: v.Type, URL: v.URL, Content: v.Content,
		ContentLength: v.ContentLength, FetchInterval: v.FetchInterval, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, IsActive: v.IsActive}
	if f := v.LastFetch; f != nil {
		out.LastFetch = &Fetch{At: f.At, OK: f.OK, Error: f.Error}
	}
	return out
}

// NewText is the input of CreateFromText.
type NewText struct {
	Content, Name, Scope string
}

// validate checks a text voice and fills in the defaults: the team scope,
// and a name made of the content's first words.
func (in *NewText) validate(names *quota.Checker) error {
	in.Content = strings.TrimSpace(in.Content)
	if in.Content == "" {
		return apierr.Invalid("content is required")
	}
	if err := checkContent(in.Content); err != nil {
		return err
	}
	var err error
	if in.Scope, err = checkScope(in.Scope); err != nil {
		return err
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		in.Name = defaultName(in.Content)
	}
	return names.Name("name", in.Name)
}

// CreateFromText stores a voice built from raw text.
func (s *Service) CreateFromText(ctx context.Context, p auth.Principal, in NewText) (Voice, error) {
	if err := in.validate(s.quota); err != nil {
		return Voice{}, err
	}
	content, name, scope := in.Content, in.Name, in.Scope
	if err := s.quota.Room(ctx, store.CountVoices, p.WorkspaceID); err != nil {
		return Voice{}, err
	}
	v := voicestore.Voice{WorkspaceID: p.WorkspaceID, UserID: p.UserID, Scope: scope, Name: name, Type: "text", Content: content}
	var paid charge
	if s.deps.ProfileText {
		// The model's profile becomes the content; the raw text is kept.
		// Without a credit left the text is stored as given: the profile
		// is an extra, the text is usable.
		var err error
		paid, err = s.reserveProfile(ctx, p)
		if err != nil && !quota.IsCreditLimit(err) {
			return Voice{}, err
		}
		if paid != nil {
			if profile, byModel := s.profile(ctx, paid, name, content); byModel {
				raw := content
				v.Content, v.SourceText = capText(profile), &raw
			}
		}
	}
	return s.create(ctx, v, paid)
}

// create stores v, within the workspace's cap of voices; on failure it
// refunds paid.
func (s *Service) create(ctx context.Context, v voicestore.Voice, paid charge) (Voice, error) {
	if err := voicestore.New(s.store).CreateVoice(ctx, &v, s.quota.Cap(store.CountVoices)); err != nil {
		paid.refund()
		return Voice{}, quota.Err(err)
	}
	return fromStore(v), nil
}

// List returns the voices the caller can see, newest first.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Voice, error) {
	rows, err := voicestore.New(s.store).ListVoices(ctx, p.WorkspaceID, p.UserID)
	if err != nil {
		return nil, err
	}
	out := make([]Voice, 0, len(rows))
	for _, v := range rows {
		out = append(out, fromStore(v))
	}
	return out, nil
}

// Get returns one voice the caller can see.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Voice, error) {
	v, err := voicestore.New(s.store).GetVoice(ctx, p.WorkspaceID, p.UserID, id)
	if err != nil {
		return Voice{}, notFound(err, id)
	}
	return fromStore(v), nil
}

// Update changes the fields that are set.
type Update struct {
	Name, Content, URL, FetchInterval *string
}

// validate checks a partial update and trims its name and content.
func (u *Update) validate(names *quota.Checker) error {
	if u.Name == nil && u.Content == nil && u.URL == nil && u.FetchInterval == nil {
		return apierr.Invalid("nothing to update: send at least one of name, content, url, fetchInterval")
	}
	if u.Name != nil {
		name := strings.TrimSpace(*u.Name)
		if name == "" {
			return apierr.Invalid("name must not be empty")
		}
		if err := names.Name("name", name); err != nil {
			return err
		}
		u.Name = &name
	}
	if u.Content != nil {
		content := strings.TrimSpace(*u.Content)
		if content == "" {
			return apierr.Invalid("content must not be empty")
		}
		if err := checkContent(content); err != nil {
			return err
		}
		u.Content = &content
	}
	if u.URL != nil && *u.URL != "" && !strings.HasPrefix(*u.URL, "https://") && !strings.HasPrefix(*u.URL, "http://") {
		return apierr.Invalid("url must be an http(s) URL")
	}
	if u.FetchInterval != nil && !slices.Contains(FetchIntervals, *u.FetchInterval) {
		return apierr.Invalid("fetchInterval must be one of %s", strings.Join(FetchIntervals, ", "))
	}
	return nil
}

// Update applies a partial update and returns the voice as Get would.
func (s *Service) Update(ctx context.Context, p auth.Principal, id string, u Update) (Voice, error) {
	if err := u.validate(s.quota); err != nil {
		return Voice{}, err
	}
	old, err := voicestore.New(s.store).GetVoice(ctx, p.WorkspaceID, p.UserID, id)
	if err != nil {
		return Voice{}, notFound(err, id)
	}
	// A new url of a website or file voice is fetched before anything is
	// written; its profile replaces the content.
	change := voicestore.VoiceUpdate{Name: u.Name, Content: u.Content, URL: u.URL, FetchInterval: u.FetchInterval}
	fetched, paid, err := s.refetchOnUpdate(ctx, p, old, &change)
	if err != nil {
		return Voice{}, err
	}
	v, err := voicestore.New(s.store).UpdateVoice(ctx, p.WorkspaceID, p.UserID, id, change)
	if err != nil {
		paid.refund()
		return Voice{}, notFound(err, id)
	}
	if v.Type == "website" && (fetched != nil || u.FetchInterval != nil) {
		interval := ""
		if v.FetchInterval != nil {
			interval = *v.FetchInterval
		}
		at := s.deps.Now()
		if fetched != nil {
			err = voicestore.New(s.store).RecordVoiceFetch(ctx, p.WorkspaceID, id, *fetched, nil, nil, nextFetch(interval, at))
		} else {
			err = voicestore.New(s.store).SetVoiceNextFetch(ctx, p.WorkspaceID, id, nextFetch(interval, at))
		}
		if err != nil {
			return Voice{}, err
		}
		return s.Get(ctx, p, id)
	}
	if fetched != nil {
		if err := voicestore.New(s.store).RecordVoiceFetch(ctx, p.WorkspaceID, id, *fetched, nil, nil, nil); err != nil {
			return Voice{}, err
		}
		return s.Get(ctx, p, id)
	}
	return fromStore(v), nil
}

// Delete soft-deletes a voice: it stays stored with isActive false.
func (s *Service) Delete(ctx context.Context, p auth.Principal, id string) error {
	return notFound(voicestore.New(s.store).DeactivateVoice(ctx, p.WorkspaceID, p.UserID, id), id)
}

func notFound(err error, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound("brand voice %q not found", id)
	}
	return err
}

func checkScope(scope string) (string, error) {
	switch scope {
	case "":
		return ScopeTeam, nil
	case ScopeTeam, ScopePersonal:
		return scope, nil
	}
	return "", apierr.Invalid("scope must be team or personal, got %q", scope)
}

func checkContent(content string) error {
	if n := utf8.RuneCountInString(content); n > MaxContentChars {
		return apierr.Invalid("content is %d characters; the limit is %d", n, MaxContentChars)
	}
	return nil
}

// defaultName is the first words of content, cut at a word boundary.
func defaultName(content string) string {
	line, _, _ := strings.Cut(content, "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) <= defaultNameLen {
		return line
	}
	runes := []rune(line)[:defaultNameLen]
	cut := string(runes)
	if i := strings.LastIndexByte(cut, ' '); i > defaultNameLen/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}
