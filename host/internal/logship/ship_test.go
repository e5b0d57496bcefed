package logship

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// receiver is a stand-in for the log route: it records each request's
// lines and answers what answer says for the n-th request (200 by default).
type receiver struct {
	mu       sync.Mutex
	batches  [][]string
	headers  []http.Header
	answer   func(n int, w http.ResponseWriter) bool // true: answered, batch not taken
	requests int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.requests++
	if rc.answer != nil && rc.answer(rc.requests, w) {
		return
	}
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		http.Error(w, "not gzip", 400)
		return
	}
	b, _ := io.ReadAll(zr)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	rc.batches = append(rc.batches, lines)
	rc.headers = append(rc.headers, r.Header.Clone())
	fmt.Fprintf(w, `{"accepted":%d,"rejected":0,"reasons":[]}`, len(lines))
}

func (rc *receiver) lines() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var all []string
	for _, b := range rc.batches {
		all = append(all, b...)
	}
	return all
}

type fixture struct {
	t     *testing.T
	dir   string
	log   string
	rc    *receiver
	srv   *httptest.Server
	waits []time.Duration
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, dir: t.TempDir(), rc: &receiver{}}
	f.log = filepath.Join(f.dir, "access.log")
	f.srv = httptest.NewServer(f.rc)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) shipper(mod func(*Options)) *Shipper {
	c, err := NewClient(f.srv.URL, "ks_site", "kis_secret", "")
	if err != nil {
		f.t.Fatal(err)
	}
	o := Options{File: f.log, State: filepath.Join(f.dir, "state"), FromStart: true, Once: true}
	if mod != nil {
		mod(&o)
	}
	s := New(o, c, hclog.NewNullLogger())
	s.sleep = func(ctx context.Context, d time.Duration) error { f.waits = append(f.waits, d); return ctx.Err() }
	return s
}

func (f *fixture) ship(mod func(*Options)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return f.shipper(mod).Run(ctx)
}

func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	for _, l := range lines {
		if _, err := io.WriteString(fh, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("shipped %q, want %q", got, want)
	}
}

// A rename rotation (logrotate's default, then nginx reopening on USR1):
// the lines written to the old file after the last run, the ones the
// server wrote to it before reopening, and the new file's lines all go,
// each once, in order; a run with nothing new sends nothing.
func TestShipFollowsRenameRotationOnce(t *testing.T) {
	f := newFixture(t)
	appendLines(t, f.log, "1", "2", "3")
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "1", "2", "3")

	appendLines(t, f.log, "4", "5")
	if err := os.Rename(f.log, f.log+".1"); err != nil {
		t.Fatal(err)
	}
	appendLines(t, f.log+".1", "6") // the server still writes to the old file
	appendLines(t, f.log, "7", "8") // until it reopens
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "1", "2", "3", "4", "5", "6", "7", "8")

	n := f.rc.requests
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	if f.rc.requests != n {
		t.Fatalf("a run with nothing new sent %d requests", f.rc.requests-n)
	}
}

// The same rotation seen by a shipper that keeps running: it finishes the
// old file before it reads the new one.
func TestShipFollowsRotationWhileRunning(t *testing.T) {
	f := newFixture(t)
	appendLines(t, f.log, "1", "2")
	s := f.shipper(func(o *Options) { o.Once = false; o.BatchWait = time.Nanosecond })
	step := 0
	s.sleep = func(ctx context.Context, d time.Duration) error {
		// Each poll at the end of the file is one step of the server's life.
		switch step++; step {
		case 1:
			appendLines(t, f.log, "3")
			os.Rename(f.log, f.log+".1")
		case 2:
			appendLines(t, f.log+".1", "4")
			appendLines(t, f.log, "5")
		default:
			return context.Canceled
		}
		return nil
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "1", "2", "3", "4", "5")
	// Stopped and started again: what went is not sent again.
	n := f.rc.requests
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	if f.rc.requests != n {
		t.Fatalf("a restart sent %q again", f.rc.batches[n:])
	}
}

// copytruncate under a running shipper: it starts the file again at 0.
func TestShipCopyTruncateWhileRunning(t *testing.T) {
	f := newFixture(t)
	appendLines(t, f.log, "first line", "second line")
	s := f.shipper(func(o *Options) { o.Once = false; o.BatchWait = time.Nanosecond })
	step := 0
	s.sleep = func(ctx context.Context, d time.Duration) error {
		if step++; step == 1 {
			os.Truncate(f.log, 0)
			appendLines(t, f.log, "3")
			return nil
		}
		return context.Canceled
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "first line", "second line", "3")
}

// copytruncate: the file shrinks under the shipper, which starts again at 0.
func TestShipAfterCopyTruncate(t *testing.T) {
	f := newFixture(t)
	appendLines(t, f.log, "first line", "second line")
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(f.log, 0); err != nil {
		t.Fatal(err)
	}
	appendLines(t, f.log, "3")
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "first line", "second line", "3")
}

// A line goes only once its newline is written.
func TestShipWaitsForTheNewline(t *testing.T) {
	f := newFixture(t)
	appendLines(t, f.log, "1")
	fh, _ := os.OpenFile(f.log, os.O_WRONLY|os.O_APPEND, 0)
	io.WriteString(fh, "2 half")
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "1")
	io.WriteString(fh, " done\n")
	fh.Close()
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "1", "2 half done")
}

// Batches are cut at --batch-lines and --batch-bytes.
func TestShipBatches(t *testing.T) {
	f := newFixture(t)
	appendLines(t, f.log, "a", "b", "c", "d", "e")
	if err := f.ship(func(o *Options) { o.BatchLines = 2 }); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(f.rc.batches); got != "[[a b] [c d] [e]]" {
		t.Fatalf("batches %s, want [[a b] [c d] [e]]", got)
	}
	appendLines(t, f.log, "1234", "5678", "9")
	if err := f.ship(func(o *Options) { o.BatchBytes = 10 }); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(f.rc.batches[3:]); got != "[[1234 5678] [9]]" {
		t.Fatalf("batches by bytes %s, want [[1234 5678] [9]]", got)
	}
}

// Over the daily cap Herald answers 429 with Retry-After: the shipper waits
// that long, then sends the same batch; a server error backs off and
// retries; nothing is lost or sent twice.
func TestShipRetriesHonouringRetryAfter(t *testing.T) {
	f := newFixture(t)
	f.rc.answer = func(n int, w http.ResponseWriter) bool {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "7200")
			http.Error(w, `{"message":"over the plan's log_lines_per_day"}`, http.StatusTooManyRequests)
			return true
		case 2:
			http.Error(w, "unavailable", http.StatusBadGateway)
			return true
		}
		return false
	}
	appendLines(t, f.log, "1", "2")
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "1", "2")
	if len(f.waits) != 2 || f.waits[0] != 2*time.Hour || f.waits[1] < 2*time.Second || f.waits[1] > 3*time.Second {
		t.Fatalf("waits %v, want [2h0m0s, then the second backoff 2s..3s]", f.waits)
	}
}

// A refusal that sending again cannot fix (401: a wrong secret) stops the
// shipper with the answer and keeps the position, so a run with the right
// secret sends the lines.
func TestShipStopsOnRefusalAndKeepsPosition(t *testing.T) {
	f := newFixture(t)
	f.rc.answer = func(n int, w http.ResponseWriter) bool {
		if n == 1 {
			http.Error(w, `{"message":"bad ingest secret"}`, http.StatusUnauthorized)
			return true
		}
		return false
	}
	appendLines(t, f.log, "1")
	err := f.ship(nil)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err %v, want the 401", err)
	}
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "1")
}

// The request carries the contract's headers: the bearer secret, the site
// key, the content type by format, gzip.
func TestShipRequestShape(t *testing.T) {
	f := newFixture(t)
	appendLines(t, f.log, `{"level":"info","logger":"http.log.access.log0"}`)
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	h := f.rc.headers[0]
	if h.Get("Authorization") != "Bearer kis_secret" || h.Get("Content-Type") != TypeNDJSON || h.Get("Content-Encoding") != "gzip" {
		t.Fatalf("headers %v", h)
	}
	if ContentType("auto", []string{`1.2.3.4 - - [01/Dec/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "x"`}) != TypeText {
		t.Fatal("a combined line is not text/plain")
	}
	c, _ := NewClient("https://h.example/", "ks_1", "", "hk_key")
	if c.Endpoint != "https://h.example/v1/ai-traffic/logs?siteKey=ks_1" {
		t.Fatalf("endpoint %s", c.Endpoint)
	}
}

// Without --from-start a first run starts at the end of the file.
func TestShipFirstStartAtEnd(t *testing.T) {
	f := newFixture(t)
	appendLines(t, f.log, "old")
	if err := f.ship(func(o *Options) { o.FromStart = false }); err != nil {
		t.Fatal(err)
	}
	appendLines(t, f.log, "new")
	if err := f.ship(func(o *Options) { o.FromStart = false }); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.rc.lines(), "new")
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)
	if d := retryAfter("Wed, 02 Dec 2026 00:00:00 GMT", now); d != time.Hour {
		t.Fatalf("date form: %v", d)
	}
	if d := retryAfter("nonsense", now); d != 0 {
		t.Fatalf("nonsense: %v", d)
	}
}

// Told to stop while Herald is answering a batch, the shipper waits for the
// answer and saves the position, so a restart does not send it again.
func TestShipStopDuringABatchKeepsItsAnswer(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.rc.answer = func(n int, w http.ResponseWriter) bool {
		cancel()
		time.Sleep(50 * time.Millisecond) // the stop reaches the shipper mid-request
		return false
	}
	appendLines(t, f.log, "1")
	s := f.shipper(func(o *Options) { o.Once = false; o.BatchWait = time.Nanosecond })
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	f.rc.answer = nil
	n := f.rc.requests
	if err := f.ship(nil); err != nil {
		t.Fatal(err)
	}
	if f.rc.requests != n {
		t.Fatalf("the batch answered during the stop went again: %q", f.rc.batches[len(f.rc.batches)-1])
	}
	wantLines(t, f.rc.lines(), "1")
}
