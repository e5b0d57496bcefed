package events_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/events"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

const secretKey = "test-secret-key-for-events-0123456789"

// bundle is one workspace "acme" (key acme) and another (key other), the
// events service over the API, a deliverer that is not started (tests run
// it with DeliverOnce) and a receiver on 127.0.0.1.
type bundle struct {
	store     *store.Store
	svc       *events.Service
	deliverer *events.Deliverer
	srv       *apitest.Server
	recv      *receiver
	acme      string
	other     string
	acmeWS    string
}

// received is one request the receiver got.
type received struct {
	Header http.Header
	Body   []byte
}

// receiver answers with the next status of its script (then 204) and
// records every request.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	script []int
	header http.Header // sent with scripted failures
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{Header: req.Header.Clone(), Body: body})
		status := http.StatusNoContent
		if len(r.script) > 0 {
			status, r.script = r.script[0], r.script[1:]
			for k, v := range r.header {
				w.Header()[k] = v
			}
		}
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func (r *receiver) fail(header http.Header, statuses ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.script, r.header = statuses, header
}

type options struct {
	backoff []time.Duration
}

func setupOn(t *testing.T, st *store.Store, opts ...options) *bundle {
	t.Helper()
	var opt options
	if len(opts) > 0 {
		opt = opts[0]
	}
	ctx := context.Background()
	b := &bundle{store: st, recv: newReceiver(t)}
	var err error
	if b.acme, err = auth.CreateKey(ctx, st, "acme", "business", "a@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.other, err = auth.CreateKey(ctx, st, "other", "business", "o@other.test"); err != nil {
		t.Fatal(err)
	}
	ws, _, _ := st.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	b.acmeWS = ws.ID
	limits := config.DefaultLimits()
	limits.MaxEventSubscriptions = 3
	b.svc, err = events.New(events.Deps{Store: st, Quota: quota.New(st, limits), SecretKey: secretKey,
		AllowedPrivateCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, BaseURL: "https://herald.test"})
	if err != nil {
		t.Fatal(err)
	}
	backoff := opt.backoff
	if backoff == nil {
		backoff = []time.Duration{time.Second, time.Second}
	}
	b.deliverer = events.NewDeliverer(b.svc, events.DelivererOptions{Host: "test", Backoff: backoff})
	b.srv = apitest.Start(t, api.Deps{Store: st, Events: events.NewHandler(b.svc)})
	return b
}

func setup(t *testing.T, opts ...options) *bundle { return setupOn(t, storetest.SQLite(t), opts...) }

// subscribe creates a subscription of acme to the receiver and returns its
// id and secret.
func (b *bundle) subscribe(t *testing.T, format string, types ...string) (string, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"url": b.recv.URL + "/hook", "events": types, "format": format})
	d := b.srv.Do(t, "POST", "/v1/events/subscriptions", b.acme, string(body)).Want(t, 201).Body
	sub := d["subscription"].(map[string]any)
	secret, _ := d["secret"].(string)
	return sub["id"].(string), secret
}

// emit writes one event of acme in a transaction of its own, as a change
// would.
func (b *bundle) emit(t *testing.T, e *store.Event) {
	t.Helper()
	ctx := context.Background()
	if err := b.store.Tx(ctx, func(q store.Querier) error {
		_, err := b.store.EmitEvent(ctx, q, e)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// deliverAll runs the deliverer until nothing is due.
func (b *bundle) deliverAll(t *testing.T) {
	t.Helper()
	for {
		n, err := b.deliverer.DeliverOnce(context.Background(), 16)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// clock moves the store's clock by d from now on.
func (b *bundle) advance(d time.Duration) {
	at := time.Now().Add(d)
	offset := time.Until(at)
	b.store.SetClock(func() time.Time { return time.Now().Add(offset) })
}

func (b *bundle) allowed() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
}
