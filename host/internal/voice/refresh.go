package voice

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
)

// refreshLease is how long a claimed voice waits before another pass may
// claim it again, should its job be lost.
const refreshLease = time.Hour

// refreshBatch bounds the voices claimed in one pass.
const refreshBatch = 100

// Start looks for due website voices now and every RefreshEvery, queuing a
// refresh job on contentQueue for each one claimed. Stop ends the loop.
func (s *Service) Start(ctx context.Context) error {
	if s.deps.Fetcher == nil || s.deps.Queue == nil {
		return nil
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.deps.RefreshEvery)
		defer t.Stop()
		for {
			pass, cancel := context.WithTimeout(context.Background(), s.deps.RefreshEvery)
			if _, err := s.RefreshDue(pass); err != nil {
				s.deps.Logger.Error("queue brand voice refreshes", "error", err)
			}
			cancel()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// Stop ends the refresh loop.
func (s *Service) Stop(ctx context.Context) error {
	if s.stop == nil {
		return nil
	}
	close(s.stop)
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	s.stop = nil
	return nil
}

// RefreshDue claims the website voices due for a re-fetch and queues a
// refresh job for each; it returns the job ids.
func (s *Service) RefreshDue(ctx context.Context) ([]string, error) {
	now := s.deps.Now()
	keys, err := voicestore.New(s.store).ClaimDueVoices(ctx, now.UnixMilli(), now.Add(refreshLease).UnixMilli(), refreshBatch)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, k := range keys {
		id, err := s.deps.Queue.Enqueue(ctx, jobs.NewJob{Workspace: k.WorkspaceID, Queue: jobs.ContentQueue, Name: JobRefresh, Data: k})
		if err != nil {
			return ids, err // the lease brings the voice back later
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// RefreshResult is the result of a refresh job.
type RefreshResult struct {
	ID    string `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// RunRefresh runs a JobRefresh job: it re-fetches one website voice. A
// failed fetch keeps the old content and records why (the single-voice
// fetch shows it as lastFetch); either way the next fetch is scheduled by
// the voice's interval.
func (s *Service) RunRefresh(ctx context.Context, job *jobs.Job) (any, error) {
	if err := s.sourcesReady(); err != nil {
		return nil, jobs.NoRetry(err)
	}
	var k voicestore.VoiceKey
	if err := job.Decode(&k); err != nil {
		return nil, err
	}
	v, err := voicestore.New(s.store).GetWorkspaceVoice(ctx, k.WorkspaceID, k.ID)
	if errors.Is(err, store.ErrNotFound) {
		return RefreshResult{ID: k.ID, Error: "the voice was deleted"}, nil
	}
	if err != nil {
		return nil, err
	}
	interval := ""
	if v.FetchInterval != nil {
		interval = *v.FetchInterval
	}
	if v.Type != "website" || v.URL == nil {
		return RefreshResult{ID: v.ID, Error: "not a website voice"}, voicestore.New(s.store).SetVoiceNextFetch(ctx, k.WorkspaceID, k.ID, nil)
	}
	now := s.deps.Now()
	// The profile's credit first: without one the refresh is skipped
	// (nothing fetched, the old content kept) and lastFetch says why.
	paid, cerr := s.reserveProfile(ctx, auth.Principal{WorkspaceID: k.WorkspaceID})
	if quota.IsCreditLimit(cerr) {
		f := voicestore.VoiceFetch{At: now.UnixMilli(), Error: "refresh skipped: " + message(cerr) + "; the previous profile is kept"}
		if err := voicestore.New(s.store).RecordVoiceFetch(ctx, k.WorkspaceID, k.ID, f, nil, nil, nextFetch(interval, now)); err != nil {
			return nil, err
		}
		return RefreshResult{ID: v.ID, Error: f.Error}, nil
	} else if cerr != nil {
		return nil, cerr
	}
	text, _, ferr := s.websiteSource(ctx, *v.URL)
	if ferr != nil {
		paid.refund()
		f := voicestore.VoiceFetch{At: now.UnixMilli(), Error: message(ferr)}
		if err := voicestore.New(s.store).RecordVoiceFetch(ctx, k.WorkspaceID, k.ID, f, nil, nil, nextFetch(interval, now)); err != nil {
			return nil, err
		}
		return RefreshResult{ID: v.ID, Error: f.Error}, nil
	}
	content, _ := s.profile(ctx, paid, v.Name, text)
	content = capText(content)
	f := voicestore.VoiceFetch{At: now.UnixMilli(), OK: true}
	if err := voicestore.New(s.store).RecordVoiceFetch(ctx, k.WorkspaceID, k.ID, f, &content, &text, nextFetch(interval, now)); err != nil {
		paid.refund()
		return nil, err
	}
	return RefreshResult{ID: v.ID, OK: true}, nil
}

// refetchOnUpdate re-fetches a website or file voice whose url a PUT
// changes, so the content follows the new source; it fills u's content
// and source text. A fetch failure is a 400, no credit left a 403, and
// nothing changes. The returned charge is refunded by the caller if the
// update is not written.
func (s *Service) refetchOnUpdate(ctx context.Context, p auth.Principal, old voicestore.Voice, u *voicestore.VoiceUpdate) (*voicestore.VoiceFetch, charge, error) {
	if u.URL == nil || (old.Type != "website" && old.Type != "file") || (old.URL != nil && *old.URL == *u.URL) {
		return nil, nil, nil
	}
	if err := s.sourcesReady(); err != nil {
		return nil, nil, err
	}
	var in interface {
		validate(names *quota.Checker) error
	}
	website := NewWebsite{URL: *u.URL, Scope: old.Scope}
	file := NewFile{URL: *u.URL, Scope: old.Scope}
	if old.Type == "website" {
		in = &website
	} else {
		in = &file
	}
	if err := in.validate(s.quota); err != nil {
		return nil, nil, apierr.Invalid("url: %s", message(err))
	}
	paid, err := s.reserveProfile(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	var text string
	if old.Type == "website" {
		*u.URL = website.URL
		text, _, err = s.websiteSource(ctx, website.URL)
	} else {
		*u.URL = file.URL
		text, _, err = s.fileSource(ctx, file.URL)
	}
	if err != nil {
		paid.refund()
		return nil, nil, apierr.Invalid("url: %s", message(err))
	}
	name := old.Name
	if u.Name != nil {
		name = *u.Name
	}
	content, _ := s.profile(ctx, paid, name, text)
	content = capText(content)
	u.Content, u.SourceText = &content, &text
	return &voicestore.VoiceFetch{At: s.deps.Now().UnixMilli(), OK: true}, paid, nil
}
