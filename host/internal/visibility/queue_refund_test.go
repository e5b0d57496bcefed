package visibility_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"net/http"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestAReportThatCannotBeQueuedGivesItsCreditsBack: the credits are
// reserved before the report and its job are written; when that write
// fails the reservation is returned and nothing of the report is left.
func TestAReportThatCannotBeQueuedGivesItsCreditsBack(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt", "claude"}})
		ctx := context.Background()
		month := b.clock.now().UTC().Format("2006-01")
		// A first report spends 2 prompts × 2 engines = 4 credits.
		b.report(t, b.business, reportBody)
		if used, _ := creditstore.New(b.store).CreditsUsed(ctx, b.businessID, month); used != 4 {
			t.Fatalf("credits after one report: %d, want 4", used)
		}
		// The queue's table goes away: the enqueue inside the report's
		// transaction fails (a real database error, not a stub).
		if _, err := storetest.Exec(ctx, b.store, `ALTER TABLE jobs RENAME TO jobs_gone`); err != nil {
			t.Fatal(err)
		}
		res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report", b.business, reportBody).Want(t, http.StatusInternalServerError)
		if res.Body["message"] != "failed to queue the report; no credit was spent, retry" {
			t.Fatalf("body %s", res.Raw)
		}
		if used, _ := creditstore.New(b.store).CreditsUsed(ctx, b.businessID, month); used != 4 {
			t.Fatalf("credits after a report that could not be queued: %d, want still 4", used)
		}
		if n, _ := b.store.CountVisibilityReports(ctx, b.businessID); n != 1 {
			t.Fatalf("reports stored: %d, want only the first", n)
		}
	})
}
