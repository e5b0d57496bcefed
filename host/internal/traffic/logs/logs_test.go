package logs_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/traffic/logs"
)

// read parses a testdata file as kind and returns its lines and errors.
func read(t *testing.T, name string, kind logs.Kind) ([]logs.Line, []logs.Format, []error) {
	t.Helper()
	body, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var lines []logs.Line
	var formats []logs.Format
	var errs []error
	if err := logs.Each(kind, body, func(n int, l logs.Line, f logs.Format, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		lines = append(lines, l)
		formats = append(formats, f)
	}); err != nil {
		t.Fatal(err)
	}
	return lines, formats, errs
}

func TestNginxCombinedOutputAsNginxWritesIt(t *testing.T) {
	lines, _, errs := read(t, "nginx-combined.log", logs.Text)
	if len(errs) != 0 || len(lines) != 7 {
		t.Fatalf("lines %d, errors %v", len(lines), errs)
	}
	gpt := lines[0]
	want := logs.Line{Time: time.Date(2026, 12, 1, 21, 42, 40, 0, time.UTC), Method: "GET", Path: "/blog/ai-seo.html", Status: 200,
		UserAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", IP: "127.0.0.1"}
	if gpt != want {
		t.Errorf("GPTBot line = %+v, want %+v", gpt, want)
	}
	if lines[2].Path != "/pricing" || lines[2].Status != 404 {
		t.Errorf("query not dropped or status wrong: %+v", lines[2])
	}
	if lines[4].Referrer != "https://chatgpt.com/" {
		t.Errorf("referrer = %q", lines[4].Referrer)
	}
	// nginx escapes a quote in a header as \x22.
	if ua := lines[6].UserAgent; ua != `Mozilla/5.0 "quoted" agent` || lines[6].Method != "POST" {
		t.Errorf("escaped user agent = %q (%s)", ua, lines[6].Method)
	}
}

func TestApacheCombinedOutputAsApacheWritesIt(t *testing.T) {
	lines, _, errs := read(t, "apache-combined.log", logs.Text)
	if len(errs) != 0 || len(lines) != 4 {
		t.Fatalf("lines %d, errors %v", len(lines), errs)
	}
	// Apache escapes a quote as \".
	if ua := lines[2].UserAgent; ua != `Mozilla/5.0 "quoted" agent` || lines[2].Referrer != "https://claude.ai/" {
		t.Errorf("line 3 = %+v", lines[2])
	}
	if lines[3].Status != 404 || lines[3].Path != "/missing" {
		t.Errorf("line 4 = %+v", lines[3])
	}
}

func TestCaddyJSONAccessLogAsCaddyWritesIt(t *testing.T) {
	for _, kind := range []logs.Kind{logs.Text, logs.NDJSON} {
		lines, formats, errs := read(t, "caddy-access.ndjson", kind)
		if len(lines) != 3 {
			t.Fatalf("kind %d: lines %d, errors %v", kind, len(lines), errs)
		}
		if len(errs) != 0 {
			t.Errorf("errors %v", errs)
		}
		l := lines[2]
		if formats[2] != logs.Caddy || l.Host != "example.com" || l.Path != "/blog/ai-seo.html" || l.Referrer != "https://www.perplexity.ai/" ||
			l.Status != 200 || l.IP != "127.0.0.1" || !strings.HasPrefix(l.UserAgent, "Mozilla/5.0 (iPhone") {
			t.Errorf("line 3 = %+v (%s)", l, formats[2])
		}
		if got := l.Time.UnixMilli(); got != 1796161370526 {
			t.Errorf("ts = %d", got)
		}
		if lines[1].Path != "/" {
			t.Errorf("query kept: %q", lines[1].Path)
		}
	}
}

func TestCaddyEntriesOfOtherLoggersAreRefused(t *testing.T) {
	// Caddy's own log line, as it wrote it on stop.
	line := `{"level":"info","ts":1796161371.0591128,"logger":"tls.cache.maintenance","msg":"stopped background certificate maintenance","cache":"0xc0002c4070","request":{}}`
	if _, _, err := logs.ParseJSON([]byte(line)); err == nil || !strings.Contains(err.Error(), "not a Caddy access logger") {
		t.Errorf("err = %v", err)
	}
}

func TestCloudflareLogpushRecordsWithTheirDocumentedFields(t *testing.T) {
	lines, formats, errs := read(t, "cloudflare-logpush.ndjson", logs.NDJSON)
	if len(errs) != 0 || len(lines) != 3 {
		t.Fatalf("lines %d, errors %v", len(lines), errs)
	}
	if formats[0] != logs.Cloudflare || lines[0].IP != "20.171.207.130" || lines[0].Host != "example.com" || !lines[0].Time.Equal(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("line 1 = %+v", lines[0])
	}
	if lines[1].Host != "www.example.com" || lines[1].Path != "/pricing" || lines[1].Referrer != "https://chatgpt.com/" {
		t.Errorf("line 2 = %+v", lines[1])
	}
	// timestamp_format unixnano
	if got := lines[2].Time.Unix(); got != 1795832999 {
		t.Errorf("unixnano time = %d", got)
	}
}

func TestHeraldLineObjectsInAnArray(t *testing.T) {
	lines, formats, errs := read(t, "herald-lines.json", logs.JSONArray)
	if len(errs) != 0 || len(lines) != 2 {
		t.Fatalf("lines %d, errors %v", len(lines), errs)
	}
	if formats[0] != logs.Herald || lines[0].Host != "example.com" || lines[0].IP != "160.79.104.10" {
		t.Errorf("line 1 = %+v", lines[0])
	}
	// A full URL gives the host and the path; a missing method is GET.
	if l := lines[1]; l.Host != "example.com" || l.Path != "/docs" || l.Method != "GET" || l.Time.UnixMilli() != 1796119200000 {
		t.Errorf("line 2 = %+v", l)
	}
	if n := logs.Count(logs.JSONArray, []byte(`[{"path":"/a,b"},{"path":"/"}]`), 10); n != 2 {
		t.Errorf("Count = %d", n)
	}
}

func TestBadLinesAreReportedWithTheirNumber(t *testing.T) {
	body := "203.0.113.1 - - [01/Dec/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"curl/8.0\"\n" +
		"\n" +
		"not a log line\n" +
		"203.0.113.1 - - [01/Dec/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 12\n" +
		"203.0.113.1 - - [32/Dec/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"x\"\n" +
		"203.0.113.1 - - [01/Dec/2026:10:00:00 +0000] \"\\x16\\x03\\x01\" 400 150 \"-\" \"-\"\n" +
		"{\"level\":\"info\"}\n"
	var good int
	var reasons []string
	logs.Each(logs.Text, []byte(body), func(n int, l logs.Line, f logs.Format, err error) {
		if err != nil {
			reasons = append(reasons, err.Error())
			return
		}
		good++
	})
	want := []string{"line 3: not a Combined Log Format line", "line 4: no referrer and user agent", "line 5: time", "line 6: request", "line 7: not a Caddy"}
	if good != 1 || len(reasons) != len(want) {
		t.Fatalf("good %d, reasons %q", good, reasons)
	}
	for i, w := range want {
		if !strings.HasPrefix(reasons[i], w) {
			t.Errorf("reason %d = %q, want %q…", i, reasons[i], w)
		}
	}
}

func TestContentTypes(t *testing.T) {
	for ct, want := range map[string]logs.Kind{"text/plain; charset=utf-8": logs.Text, "application/x-ndjson": logs.NDJSON, "application/json": logs.JSONArray} {
		if k, err := logs.KindOf(ct); err != nil || k != want {
			t.Errorf("%s = %d, %v", ct, k, err)
		}
	}
	if _, err := logs.KindOf("application/xml"); err == nil {
		t.Error("application/xml accepted")
	}
	if err := logs.Each(logs.JSONArray, []byte(`"x"`), func(int, logs.Line, logs.Format, error) {}); err == nil {
		t.Error("a JSON string taken for an array")
	}
}

func FuzzParseCombined(f *testing.F) {
	body, _ := os.ReadFile("testdata/nginx-combined.log")
	for _, l := range strings.Split(string(body), "\n") {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := logs.ParseCombined(s)
		if err == nil && (l.Path == "" || l.Status < 100) {
			t.Fatalf("accepted %q as %+v", s, l)
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	for _, name := range []string{"caddy-access.ndjson", "cloudflare-logpush.ndjson"} {
		body, _ := os.ReadFile("testdata/" + name)
		for _, l := range strings.Split(string(body), "\n") {
			f.Add([]byte(l))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, _, err := logs.ParseJSON(b)
		if err == nil && l.Path == "" {
			t.Fatalf("accepted %q without a path", b)
		}
	})
}
