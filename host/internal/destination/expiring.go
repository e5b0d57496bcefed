package destination

import (
	"context"
	"time"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
)

// ExpiringNotice is how long before a connection's known expiry the
// destination.connection.expiring event is sent (once per expiry).
const ExpiringNotice = 7 * 24 * time.Hour

// AnnounceExpiring writes destination.connection.expiring for every
// connection whose token expires within ExpiringNotice and cannot be
// refreshed past it, once per connection and expiry (the event's dedupe
// key), and returns how many it wrote. The publisher's reconcile pass runs
// it on every host; the dedupe key makes the hosts write each event once.
func (s *Service) AnnounceExpiring(ctx context.Context) (int, error) {
	list, err := s.connections.ExpiringConnections(ctx, s.store.Now()+ExpiringNotice.Milliseconds(), 500)
	if err != nil {
		return 0, err
	}
	wrote := 0
	for _, c := range list {
		ev := catalog.ConnectionExpiry(c.WorkspaceID, catalog.Connection{Destination: c.Destination, ExpiresAt: *c.ExpiresAt})
		var ok bool
		err := s.store.Tx(ctx, func(q store.Querier) error {
			var err error
			ok, err = s.store.EmitEvent(ctx, q, store.EventOf(ev))
			return err
		})
		if err != nil {
			return wrote, err
		}
		if ok {
			wrote++
		}
	}
	if wrote > 0 {
		s.store.EventsCommitted()
	}
	return wrote, nil
}
