package traffic

import (
	"context"

	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
)

// PageActivity is what reached one page of a site over a window of days:
// crawler hits per operator (verified and claimed apart) and AI visits
// landing on it per source.
type PageActivity struct {
	// Tracked is false when the workspace tracks no site on the domain
	// (then the counts are empty).
	Tracked  bool
	Verified map[string]int64
	Claimed  map[string]int64
	AIVisits map[string]int64
}

// PageActivity returns the crawler hits and AI visits on one page (path,
// query dropped) of the workspace's site on domain (a registrable domain)
// over days from..to (day numbers, both included).
func (s *Service) PageActivity(ctx context.Context, workspaceID, domain, path string, from, to int64) (PageActivity, error) {
	out := PageActivity{Verified: map[string]int64{}, Claimed: map[string]int64{}, AIVisits: map[string]int64{}}
	sites, err := s.store.ListTrafficSites(ctx, workspaceID)
	if err != nil {
		return out, err
	}
	var tracked *store.TrafficSite
	for i := range sites {
		if site.RegistrableDomain(sites[i].Domain) == domain {
			tracked = &sites[i]
			break
		}
	}
	if tracked == nil || from > to {
		return out, nil
	}
	out.Tracked = true
	hits, visits, err := s.store.PathActivity(ctx, tracked.ID, path, from, to)
	if err != nil {
		return out, err
	}
	for _, h := range hits {
		out.Verified[h.Operator] += h.Verified
		out.Claimed[h.Operator] += h.Claimed
	}
	for _, v := range visits {
		out.AIVisits[v.Source] += v.Visits
	}
	return out, nil
}
