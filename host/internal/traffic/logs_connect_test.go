package traffic_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// The log route on the Connect face: the ingest secret as a bearer token
// stores the lines and answers the counts; the public site key or no
// secret is Unauthenticated and stores nothing.
func TestLogRouteOnTheConnectFace(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "")
		client := apiv1connect.NewAICrawlerServiceClient(http.DefaultClient, b.srv.URL)
		send := func(authz string) (*connect.Response[apiv1.IngestLogsResponse], error) {
			req := connect.NewRequest(&apiv1.IngestLogsRequest{SiteKey: b.siteKey(), ContentType: "text/plain",
				Body: []byte(clf("20.171.207.130", "/a", gptbotUA) + "\nnot a log line")})
			if authz != "" {
				req.Header().Set("Authorization", "Bearer "+authz)
			}
			return client.IngestLogs(context.Background(), req)
		}
		for _, bad := range []string{"", b.siteKey()} {
			_, err := send(bad)
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Code() != connect.CodeUnauthenticated {
				t.Errorf("authorization %q: %v, want unauthenticated", bad, err)
			}
		}
		if n := countRows(t, st, "crawler_hits"); n != 0 {
			t.Fatalf("%d hits stored without the secret", n)
		}
		res, err := send(b.secret)
		if err != nil {
			t.Fatal(err)
		}
		if m := res.Msg; m.Accepted != 1 || m.Rejected != 1 || len(m.Reasons) != 1 || m.CrawlerHits != 1 || m.VerifiedHits != 1 {
			t.Fatalf("answer %+v", m)
		}
		if n := countRows(t, st, "crawler_hits"); n != 1 {
			t.Fatalf("%d hits stored, want 1", n)
		}
	})
}
