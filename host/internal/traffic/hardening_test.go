package traffic_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/testlog"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

func TestConnectCollectHasTheBeaconCap(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	ctx := context.Background()
	for name, c := range map[string]apiv1connect.AITrafficServiceClient{
		"protobuf": apiv1connect.NewAITrafficServiceClient(http.DefaultClient, b.srv.URL),
		"JSON":     apiv1connect.NewAITrafficServiceClient(http.DefaultClient, b.srv.URL, connect.WithProtoJSON()),
	} {
		ok, err := c.Collect(ctx, connect.NewRequest(&apiv1.CollectRequest{SiteKey: b.siteKey(), Path: "/a", UserAgent: browserUA}))
		if err != nil || ok.Msg.Kind != "pageview" {
			t.Fatalf("%s: a small beacon: %v %v", name, ok, err)
		}
		_, err = c.Collect(ctx, connect.NewRequest(&apiv1.CollectRequest{SiteKey: b.siteKey(), Path: "/a", Title: strings.Repeat("x", traffic.MaxBeaconBytes)}))
		if code := connect.CodeOf(err); code != connect.CodeResourceExhausted {
			t.Errorf("%s: a beacon over %d bytes: %v, want it refused as too large", name, traffic.MaxBeaconBytes, err)
		}
	}
	// A body announced larger than the cap is refused before it is read.
	conn, err := net.Dial("tcp", strings.TrimPrefix(b.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", apiv1connect.AITrafficServiceCollectProcedure, 1<<20)
	line, _ := bufio.NewReader(conn).ReadString('\n')
	if !strings.Contains(line, " 429 ") { // Connect's status for resource_exhausted
		t.Errorf("Content-Length of 1 MiB and no body: %q, want resource_exhausted before reading", line)
	}
}

func TestNULBytesInBeaconsAreStrippedOnBothStores(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		body := `{"siteKey":"` + b.siteKey() + `","path":"/a\u0000b","title":"x\u0000y","referrer":"https://chatgpt.com/\u0000","utmSource":"chat\u0000gpt.com","utmMedium":"m\u0000","utmCampaign":"c\u0000","userAgent":"` + browserUA + `\u0000","sessionId":"s1"}`
		b.send(t, "POST", "/v1/ai-traffic/collect", body, map[string]string{"Content-Type": "text/plain"}).Want(t, http.StatusAccepted)
		b.synced(t)
		site, _ := st.TrafficSiteByKey(context.Background(), b.siteKey())
		events, err := st.TrafficEvents(context.Background(), site.ID, 10)
		if err != nil || len(events) != 1 {
			t.Fatalf("events %v %v", events, err)
		}
		e := events[0]
		if e.Path != "/ab" || e.Title != "xy" || e.UTMSource != "chatgpt.com" || e.UserAgent != browserUA || e.Source != "chatgpt" {
			t.Errorf("stored %+v", e.TrafficEvent)
		}
		// Elsewhere a NUL is the client's mistake: 400 naming the field.
		r := b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"https://nul.test/","name":"a\u0000b"}`)
		if r.Status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(r.Body["message"]), "field name must not contain NUL") {
			t.Errorf("site name with NUL: %d %v", r.Status, r.Body)
		}
	})
}

// TestAPoisonedEventDoesNotFailItsBatch writes events concurrently, one in
// ten with NUL bytes, straight to the writer: every event is stored and no
// batch falls back to event-by-event commits.
func TestAPoisonedEventDoesNotFailItsBatch(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		var logs testlog.Buffer
		b := setupWith(t, st, traffic.WriterOptions{Logger: logs.Logger(hclog.Warn)})
		w := b.writer
		site, _ := st.TrafficSiteByKey(context.Background(), b.siteKey())
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i := range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ev := store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, SessionID: fmt.Sprintf("s%d", i), Path: "/p", DurationMs: 0, ScrollDepth: -1, At: st.Now()}
				if i%10 == 0 {
					ev.Title, ev.UserAgent = "bad\x00title", "ua\x00"
				}
				_, err := w.Write(context.Background(), ev)
				errs <- err
			}()
		}
		wg.Wait()
		w.Close()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("write: %v", err)
			}
		}
		if n, _ := st.TrafficEventCount(context.Background(), site.ID, store.TrafficPageview); n != 100 {
			t.Errorf("%d events stored, want 100", n)
		}
		if strings.Contains(logs.String(), "batch failed") {
			t.Errorf("a batch failed: %s", logs.String())
		}
	})
}

func TestSitesAreCappedPerWorkspace(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	b := setup(t, st) // one site, created before the cap applies
	b.writer.Close()  // one writer per store: the new server's takes the inbox
	b.srv, b.writer = trafficServer(t, st, quota.New(st, config.Limits{MaxSites: 2, MaxNameLength: 50}))
	b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"https://two.test/"}`).Want(t, http.StatusCreated)
	r := b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"https://three.test/"}`)
	if r.Status != http.StatusTooManyRequests || !strings.Contains(fmt.Sprint(r.Body["message"]), "limit of 2 sites") {
		t.Errorf("third site: %d %v", r.Status, r.Body)
	}
	// Asking again for a site the workspace has is still answered.
	if r := b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"https://two.test/"}`); r.Status/100 != 2 {
		t.Errorf("an existing site at the cap: %d %v", r.Status, r.Body)
	}
}

// A site's name follows the plan's name length, with the one message of
// the name rule.
func TestSiteNamesFollowThePlansNameLength(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	b := setup(t, st)
	b.writer.Close()
	b.srv, b.writer = trafficServer(t, st, quota.New(st, config.Limits{MaxNameLength: 10}))
	r := b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"https://two.test/","name":"eleven char"}`)
	if r.Status != http.StatusBadRequest || r.Body["message"] != "name is longer than 10 characters" {
		t.Errorf("long name: %d %v", r.Status, r.Body)
	}
	b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"https://two.test/","name":"ten chars!"}`).Want(t, http.StatusCreated)
}
