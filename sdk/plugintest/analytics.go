package plugintest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
)

// InProcessAnalytics serves a with go-plugin's gRPC server on a local socket
// in this process and returns the client the host would use. Everything is
// closed when the test ends.
func InProcessAnalytics(t testing.TB, a sdk.AnalyticsSource) *sdk.AnalyticsClient {
	t.Helper()
	raw := inProcess(t, sdk.ServeOpts{Analytics: a}, sdk.AnalyticsPluginName)
	return raw.(*sdk.AnalyticsClient)
}

// AnalyticsChecks configures [TestAnalytics]: credentials that work (from
// an Exchange against the author's test server), a property they read and
// a window with data.
type AnalyticsChecks struct {
	Credentials        map[string]string
	PropertyID         string
	StartDate, EndDate string
}

// TestAnalytics checks an analytics source the way the host uses it, over
// the real gRPC transport: Info names it; Properties lists the checked
// property; Report answers rows dated inside the window with consistent
// counts, identical to what the source answers directly (nothing is lost in
// the conversion); a report without credentials fails with an *sdk.Error
// the host can act on (unauthenticated or invalid argument), not an
// internal error.
func TestAnalytics(t *testing.T, a sdk.AnalyticsSource, c AnalyticsChecks) {
	t.Helper()
	client := InProcessAnalytics(t, a)
	ctx := context.Background()
	t.Run("Info", func(t *testing.T) {
		info, err := client.Info(ctx)
		if err != nil || info.Name == "" || info.DisplayName == "" {
			t.Errorf("Info() = %+v, %v: want a name and a display name", info, err)
		}
	})
	t.Run("Properties", func(t *testing.T) {
		props, err := client.Properties(ctx, c.Credentials)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range props {
			if p.ID == "" {
				t.Errorf("a property without an id: %+v", p)
			}
			found = found || p.ID == c.PropertyID
		}
		if !found {
			t.Errorf("Properties() does not list %s: %+v", c.PropertyID, props)
		}
	})
	t.Run("Report", func(t *testing.T) {
		req := sdk.AnalyticsReportRequest{Credentials: c.Credentials, PropertyID: c.PropertyID, StartDate: c.StartDate, EndDate: c.EndDate}
		got, err := client.Report(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Days) == 0 {
			t.Fatal("Report() answered no day rows for a window with data")
		}
		for _, d := range got.Days {
			day, err := time.Parse(time.DateOnly, d.Date)
			if err != nil || d.Date < c.StartDate || d.Date > c.EndDate || day.IsZero() {
				t.Errorf("row dated %q outside %s..%s (or not YYYY-MM-DD)", d.Date, c.StartDate, c.EndDate)
			}
			if d.Sessions < 0 || d.Pageviews < 0 || d.EngagedSessions > d.Sessions || d.DurationMs < 0 {
				t.Errorf("inconsistent row %+v", d)
			}
		}
		direct, err := a.Report(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normal(direct), normal(got)) {
			t.Error("the report over gRPC differs from the source's own answer")
		}
	})
	t.Run("ReportWithoutCredentials", func(t *testing.T) {
		_, err := client.Report(ctx, sdk.AnalyticsReportRequest{Credentials: map[string]string{}, PropertyID: c.PropertyID, StartDate: c.StartDate, EndDate: c.EndDate})
		if code := sdk.ErrorCode(err); code != sdk.CodeUnauthenticated && code != sdk.CodeInvalidArgument {
			t.Errorf("Report() without credentials: %v, want unauthenticated or invalid_argument", err)
		}
	})
}

// normal makes empty and nil slices equal for comparison.
func normal(r sdk.AnalyticsReport) sdk.AnalyticsReport {
	if len(r.Days) == 0 {
		r.Days = nil
	}
	if len(r.Pages) == 0 {
		r.Pages = nil
	}
	return r
}
