package traffic_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

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
		"protobuf": apiv1connect.NewAITrafficServiceClient(http.DefaultClient, b.url),
		"JSON":     apiv1connect.NewAITrafficServiceClient(http.DefaultClient, b.url, connect.WithProtoJSON()),
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
	conn, err := net.Dial("tcp", strings.TrimPrefix(b.url, "http://"))
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
