package analytics

import "github.com/heraldhq/herald/host/internal/traffic"

// cacheKey is one GA4 report: a workspace's property over a window. The
// workspace is part of the key so that one workspace never reads what
// Google answered another, even for the same property.
type cacheKey struct {
	workspace, property, from, to string
}

type cached struct {
	report traffic.ExternalReport
	at     int64 // epoch ms
}

func (s *Service) cached(k cacheKey) (traffic.ExternalReport, bool) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	c, ok := s.cache[k]
	if !ok || s.now().UnixMilli()-c.at >= s.ttl.Milliseconds() {
		return traffic.ExternalReport{}, false
	}
	return c.report, true
}

func (s *Service) put(k cacheKey, r traffic.ExternalReport) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	now := s.now().UnixMilli()
	if len(s.cache) >= maxCacheEntries {
		for key, c := range s.cache {
			if now-c.at >= s.ttl.Milliseconds() {
				delete(s.cache, key)
			}
		}
		for key := range s.cache {
			if len(s.cache) < maxCacheEntries {
				break
			}
			delete(s.cache, key)
		}
	}
	s.cache[k] = cached{report: r, at: now}
}

// forget drops the workspace's cached reports (a connect, a disconnect or
// a new mapping).
func (s *Service) forget(workspace string) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	for k := range s.cache {
		if k.workspace == workspace {
			delete(s.cache, k)
		}
	}
}
