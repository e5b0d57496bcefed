package voice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/seo"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// Fetcher fetches websites and files (package site).
type Fetcher interface {
	Crawl(ctx context.Context, raw string) (site.Site, error)
	FetchFile(ctx context.Context, raw string) (site.File, error)
}

// Models writes profiles (the plugin manager's model router).
type Models interface {
	GenerateText(ctx context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error)
}

// Job names on contentQueue.
const (
	JobCreate  = "brand_voice_create"
	JobRefresh = "brand_voice_refresh"
)

// intervals are the refresh periods of fetchInterval.
var intervals = map[string]time.Duration{"daily": 24 * time.Hour, "weekly": 7 * 24 * time.Hour, "monthly": 30 * 24 * time.Hour}

// nextFetch is when a voice with interval is due after at; nil for never.
func nextFetch(interval string, at time.Time) *int64 {
	d, ok := intervals[interval]
	if !ok {
		return nil
	}
	ms := at.Add(d).UnixMilli()
	return &ms
}

// NewWebsite is the input of CreateFromWebsite.
type NewWebsite struct {
	URL, Name, FetchInterval, Scope string
}

// NewFile is the input of CreateFromFile.
type NewFile struct {
	URL, Name, Scope string
}

func (in *NewWebsite) validate(names *quota.Checker) error {
	if strings.TrimSpace(in.URL) == "" {
		return apierr.Invalid("websiteurl is required")
	}
	u, err := site.ParseURL(in.URL)
	if err != nil {
		return apierr.Invalid("websiteurl: %s", err.Error())
	}
	in.URL = u.String()
	if in.FetchInterval == "" {
		in.FetchInterval = "never"
	}
	if !slices.Contains(FetchIntervals, in.FetchInterval) {
		return apierr.Invalid("fetchInterval must be one of %s", strings.Join(FetchIntervals, ", "))
	}
	var serr error
	in.Scope, serr = checkScope(in.Scope)
	if serr != nil {
		return serr
	}
	return names.Name("name", strings.TrimSpace(in.Name))
}

func (in *NewFile) validate(names *quota.Checker) error {
	if strings.TrimSpace(in.URL) == "" {
		return apierr.Invalid("file is required")
	}
	u, err := site.ParseURL(in.URL)
	if err != nil {
		return apierr.Invalid("file: %s", err.Error())
	}
	if ext := strings.ToLower(path.Ext(u.Path)); ext != "" && fileTypes[ext] == "" {
		return apierr.Invalid("file must be a .md, .txt, .html or .json file; got %q", ext)
	}
	in.URL = u.String()
	var serr error
	in.Scope, serr = checkScope(in.Scope)
	if serr != nil {
		return serr
	}
	return names.Name("name", strings.TrimSpace(in.Name))
}

func (s *Service) sourcesReady() error {
	if s.deps.Fetcher == nil {
		return apierr.Unavailable("website and file voices are not available on this host")
	}
	return nil
}

// fetchError turns a fetch failure into a 400 naming field, with the
// fetcher's reason (http refused, private address, unreachable, ...).
func fetchError(field string, err error) error {
	var se *site.Error
	if errors.As(err, &se) {
		return apierr.Invalid("%s: %s", field, se.Error())
	}
	return err
}

// websiteSource crawls url and returns the pages' text and the site's name.
func (s *Service) websiteSource(ctx context.Context, url string) (text, siteName string, err error) {
	st, err := s.deps.Fetcher.Crawl(ctx, url)
	if err != nil {
		return "", "", fetchError("websiteurl", err)
	}
	var b strings.Builder
	for _, p := range st.Pages() {
		if strings.TrimSpace(p.Text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p.Text)
	}
	text = capText(b.String())
	if strings.TrimSpace(text) == "" {
		return "", "", apierr.Invalid("websiteurl: %s has no readable text", st.Facts.URL)
	}
	siteName = st.Facts.BrandName()
	if siteName == "" {
		siteName = st.Facts.Domain
	}
	return text, siteName, nil
}

func capText(t string) string {
	if r := []rune(t); len(r) > MaxContentChars {
		return string(r[:MaxContentChars])
	}
	return t
}

// CreateFromWebsite crawls a site (home, about, a few posts) and stores a
// voice whose content is a writing-style profile of its text.
func (s *Service) CreateFromWebsite(ctx context.Context, p auth.Principal, in NewWebsite) (Voice, error) {
	paid, err := s.admitSourced(ctx, p, &in)
	if err != nil {
		return Voice{}, err
	}
	text, siteName, err := s.websiteSource(ctx, in.URL)
	if err != nil {
		paid.refund()
		return Voice{}, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = siteName
	}
	if utf8.RuneCountInString(name) > MaxNameChars {
		name = string([]rune(name)[:MaxNameChars])
	}
	content, _ := s.profile(ctx, paid, name, text)
	now := s.deps.Now()
	url, interval := in.URL, in.FetchInterval
	v := voicestore.Voice{WorkspaceID: p.WorkspaceID, UserID: p.UserID, Scope: in.Scope, Name: name, Type: "website", URL: &url,
		Content: capText(content), FetchInterval: &interval, SourceText: &text,
		LastFetch: &voicestore.VoiceFetch{At: now.UnixMilli(), OK: true}, NextFetchAt: nextFetch(interval, now)}
	return s.create(ctx, v, paid)
}

// fileTypes maps extensions to the file kinds a voice accepts.
var fileTypes = map[string]string{".md": "md", ".markdown": "md", ".txt": "txt", ".html": "html", ".htm": "html", ".json": "json"}

// mediaKinds are the Content-Types each kind may be served as ("" when the
// server sends none; text/plain is common for Markdown and JSON files on
// raw-file hosts).
var mediaKinds = map[string][]string{
	"md":   {"", "text/markdown", "text/x-markdown", "text/plain"},
	"txt":  {"", "text/plain"},
	"html": {"text/html", "application/xhtml+xml"},
	"json": {"", "application/json", "text/json", "text/plain"},
}

// fileSource fetches a file and returns its text and its base name.
func (s *Service) fileSource(ctx context.Context, url string) (text, base string, err error) {
	f, err := s.deps.Fetcher.FetchFile(ctx, url)
	if err != nil {
		return "", "", fetchError("file", err)
	}
	ext := strings.ToLower(path.Ext(pathOf(f.URL)))
	kind := fileTypes[ext]
	if kind == "" { // no extension: the Content-Type decides
		for k, mts := range mediaKinds {
			if f.MediaType != "" && f.MediaType != "text/plain" && slices.Contains(mts, f.MediaType) {
				kind = k
			}
		}
		if kind == "" && f.MediaType == "text/plain" {
			kind = "txt"
		}
	}
	if kind == "" {
		return "", "", apierr.Invalid("file must be a .md, .txt, .html or .json file; it is served as %q", f.MediaType)
	}
	if !slices.Contains(mediaKinds[kind], f.MediaType) {
		return "", "", apierr.Invalid("file: a %s file is served as %q; expected %s", ext, f.MediaType, strings.Join(slices.DeleteFunc(slices.Clone(mediaKinds[kind]), func(s string) bool { return s == "" }), " or "))
	}
	if !utf8.Valid(f.Body) {
		return "", "", apierr.Invalid("file is not UTF-8 text")
	}
	switch kind {
	case "html":
		text, err = seo.PlainText(string(f.Body))
		if err != nil {
			return "", "", apierr.Invalid("file cannot be parsed: %v", err)
		}
	case "json":
		var v any
		if err := json.Unmarshal(f.Body, &v); err != nil {
			return "", "", apierr.Invalid("file is not valid JSON: %v", err)
		}
		text = strings.Join(jsonStrings(v, nil), "\n")
	default:
		text = string(f.Body)
	}
	text = capText(strings.TrimSpace(text))
	if text == "" {
		return "", "", apierr.Invalid("file has no text")
	}
	base = strings.TrimSuffix(path.Base(pathOf(f.URL)), path.Ext(pathOf(f.URL)))
	return text, base, nil
}

func pathOf(raw string) string {
	u, err := site.ParseURL(raw)
	if err != nil {
		return raw
	}
	return u.Path
}

// jsonStrings collects the string values of a JSON document (object keys
// in sorted order, so the text is the same on every fetch).
func jsonStrings(v any, out []string) []string {
	switch t := v.(type) {
	case string:
		if s := strings.TrimSpace(t); s != "" {
			out = append(out, s)
		}
	case []any:
		for _, e := range t {
			out = jsonStrings(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = jsonStrings(t[k], out)
		}
	}
	return out
}

// admitSourced checks a website or file voice's input, that this host
// fetches sources and that the workspace has room for one more voice (the
// cap is enforced again atomically at the insert), then reserves the
// profile's credit: a 403 without one.
func (s *Service) admitSourced(ctx context.Context, p auth.Principal, in interface {
	validate(names *quota.Checker) error
}) (charge, error) {
	if err := s.sourcesReady(); err != nil {
		return nil, err
	}
	if err := in.validate(s.quota); err != nil {
		return nil, err
	}
	if err := s.quota.Room(ctx, store.CountVoices, p.WorkspaceID); err != nil {
		return nil, err
	}
	return s.reserveProfile(ctx, p)
}

// admitQueued is admitSourced for a voice created in a job: the input and
// the month's credits are checked now, the credit is reserved by the job.
func (s *Service) admitQueued(ctx context.Context, p auth.Principal, in interface {
	validate(names *quota.Checker) error
}) error {
	if err := s.sourcesReady(); err != nil {
		return err
	}
	if err := in.validate(s.quota); err != nil {
		return err
	}
	return s.checkCredits(ctx, p)
}

// CreateFromFile fetches a .md, .txt, .html or .json file and stores a
// voice profiled from its text.
func (s *Service) CreateFromFile(ctx context.Context, p auth.Principal, in NewFile) (Voice, error) {
	paid, err := s.admitSourced(ctx, p, &in)
	if err != nil {
		return Voice{}, err
	}
	text, base, err := s.fileSource(ctx, in.URL)
	if err != nil {
		paid.refund()
		return Voice{}, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = base
	}
	if name == "" {
		name = defaultName(text)
	}
	content, _ := s.profile(ctx, paid, name, text)
	url := in.URL
	v := voicestore.Voice{WorkspaceID: p.WorkspaceID, UserID: p.UserID, Scope: in.Scope, Name: name, Type: "file", URL: &url,
		Content: capText(content), SourceText: &text, LastFetch: &voicestore.VoiceFetch{At: s.deps.Now().UnixMilli(), OK: true}}
	return s.create(ctx, v, paid)
}

// createJobData is a queued website or file voice.
type createJobData struct {
	Workspace string      `json:"workspace"`
	User      string      `json:"user"`
	Website   *NewWebsite `json:"website,omitempty"`
	File      *NewFile    `json:"file,omitempty"`
}

// Summary is the result of a queued creation: the creation response's data.
type Summary struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	URL           *string `json:"url"`
	ContentLength int     `json:"contentLength"`
	Type          string  `json:"type"`
}

// QueueWebsite checks the request and creates the voice in a job.
func (s *Service) QueueWebsite(ctx context.Context, p auth.Principal, in NewWebsite) (string, error) {
	if err := s.admitQueued(ctx, p, &in); err != nil {
		return "", err
	}
	return s.enqueueCreate(ctx, createJobData{Workspace: p.WorkspaceID, User: p.UserID, Website: &in})
}

// QueueFile checks the request and creates the voice in a job.
func (s *Service) QueueFile(ctx context.Context, p auth.Principal, in NewFile) (string, error) {
	if err := s.admitQueued(ctx, p, &in); err != nil {
		return "", err
	}
	return s.enqueueCreate(ctx, createJobData{Workspace: p.WorkspaceID, User: p.UserID, File: &in})
}

func (s *Service) enqueueCreate(ctx context.Context, d createJobData) (string, error) {
	id, err := s.deps.Queue.Enqueue(ctx, jobs.NewJob{Workspace: d.Workspace, Queue: jobs.ContentQueue, Name: JobCreate, Data: d})
	if err != nil {
		return "", fmt.Errorf("queue brand voice: %w", err)
	}
	return id, nil
}

// SourceJobOptions are the options of JobCreate and JobRefresh: one attempt
// (a failed fetch is an outcome, not a reason to fetch again), five
// minutes.
var SourceJobOptions = jobs.HandlerOptions{MaxAttempts: 1, Timeout: 5 * time.Minute}

// RunCreate runs a JobCreate job: it creates the website or file voice
// that QueueWebsite or QueueFile queued, and returns its Summary.
func (s *Service) RunCreate(ctx context.Context, job *jobs.Job) (any, error) {
	var d createJobData
	if err := job.Decode(&d); err != nil {
		return nil, err
	}
	p := auth.Principal{WorkspaceID: d.Workspace, UserID: d.User}
	var v Voice
	var err error
	switch {
	case d.Website != nil:
		v, err = s.CreateFromWebsite(ctx, p, *d.Website)
	case d.File != nil:
		v, err = s.CreateFromFile(ctx, p, *d.File)
	default:
		err = errors.New("empty brand voice job")
	}
	if err != nil {
		return nil, jobs.NoRetry(errors.New(message(err)))
	}
	return Summary{ID: v.ID, Name: v.Name, URL: v.URL, ContentLength: v.ContentLength, Type: v.Type}, nil
}

// message is an error's client message (apierr without the code prefix).
func message(err error) string {
	type messager interface{ Message() string }
	if m, ok := err.(messager); ok {
		return m.Message()
	}
	return err.Error()
}
