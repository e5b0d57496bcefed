package traffic_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// An operator's first verified hit on a site makes one crawler.first_seen
// event, in the transaction that stores the hit: a claimed hit makes none,
// a second batch of the same operator none, another operator its own, a
// batch over the log cap (rolled back) none.
func TestCrawlerFirstSeenOncePerOperatorAndSite(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 6, "")
		ws := b.workspaceID(t)
		var siteID string
		storetest.QueryRow(context.Background(), st, `SELECT id FROM traffic_sites WHERE site_key = $1`, b.siteKey()).Scan(&siteID)
		seen := func() []store.Event {
			t.Helper()
			evs, err := st.ListEvents(context.Background(), ws, catalog.CrawlerFirstSeen, 100)
			if err != nil {
				t.Fatal(err)
			}
			return evs
		}
		// Claimed only (an address outside OpenAI's ranges): no event.
		b.post(t, "", "text/plain", b.secret, []byte(clf("198.51.100.9", "/spoofed", gptbotUA)), false).Want(t, http.StatusOK)
		if evs := seen(); len(evs) != 0 {
			t.Fatalf("a claimed hit made %v", evs)
		}
		// Verified, twice in one batch: one event, about the page of the batch's first verified hit.
		b.post(t, "", "text/plain", b.secret, []byte(clf("20.171.207.130", "/guide", gptbotUA)+"\n"+clf("20.171.207.131", "/later", gptbotUA)), false).Want(t, http.StatusOK)
		evs := seen()
		if len(evs) != 1 {
			t.Fatalf("first verified hits made %d events, want 1", len(evs))
		}
		for _, want := range []string{`"siteId":"` + siteID + `"`, `"operator":"OpenAI"`, `"crawler":"GPTBot"`, `"path":"/guide"`} {
			if !strings.Contains(evs[0].Data, want) {
				t.Errorf("event data %s lacks %s", evs[0].Data, want)
			}
		}
		if evs[0].Link != "/dashboard/#/traffic/"+siteID {
			t.Errorf("event link %q", evs[0].Link)
		}
		// The same operator again, in a later batch: nothing new.
		b.post(t, "", "text/plain", b.secret, []byte(clf("20.171.207.132", "/again", gptbotUA)), false).Want(t, http.StatusOK)
		if evs := seen(); len(evs) != 1 {
			t.Fatalf("a later verified hit made another event: %d", len(evs))
		}
		// Over the day's cap (6 lines): the batch is rolled back, and so is
		// PerplexityBot's first event.
		perplexity := "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)"
		over := strings.Repeat(clf("3.224.62.45", "/p", perplexity)+"\n", 3)
		b.post(t, "", "text/plain", b.secret, []byte(over), false).Want(t, http.StatusTooManyRequests)
		if evs := seen(); len(evs) != 1 {
			t.Fatalf("a rolled-back batch made an event: %d", len(evs))
		}
	})
}
