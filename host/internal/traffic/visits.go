package traffic

import (
	"context"

	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
)

// DailyVisits are the visits per epoch day and source, days from
// firstDay, of the workspace's site whose registrable domain is domain;
// siteID is "" when the workspace tracks no such site. A tracker's trend
// joins them with its runs.
func (s *Service) DailyVisits(ctx context.Context, workspaceID, domain string, firstDay int64, days int) (siteID string, visits map[int64]map[string]int64, err error) {
	sites, err := s.store.ListTrafficSites(ctx, workspaceID)
	if err != nil {
		return "", nil, err
	}
	var tracked *store.TrafficSite
	for i := range sites {
		if site.RegistrableDomain(sites[i].Domain) == domain {
			tracked = &sites[i]
			break
		}
	}
	if tracked == nil {
		return "", nil, nil
	}
	rows, err := s.store.TrafficDaily(ctx, tracked.ID, firstDay, firstDay+int64(days)-1)
	if err != nil {
		return "", nil, err
	}
	visits = map[int64]map[string]int64{}
	for _, r := range rows {
		if visits[r.Day] == nil {
			visits[r.Day] = map[string]int64{}
		}
		visits[r.Day][r.Source] += r.Visits
	}
	return tracked.ID, visits, nil
}
