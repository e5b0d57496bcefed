package logship

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/traffic"
)

// repo is the repository root, from this package's directory.
var repo = filepath.Join("..", "..", "..")

// The WordPress plugin's crawler list is Herald's crawler table, token for
// token, so the plugin reports every request Herald would count.
func TestWordPressPluginCrawlerList(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repo, "integrations", "wordpress", "herald", "includes", "crawlers.php"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	body = body[strings.Index(body, "$tokens = array("):]
	body = body[:strings.Index(body, ");")]
	var got []string
	for _, m := range regexp.MustCompile(`'([^']+)'`).FindAllStringSubmatch(body, -1) {
		got = append(got, m[1])
	}
	var want []string
	for _, c := range traffic.Crawlers {
		want = append(want, c.Token)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the plugin's crawler tokens\n%v\nare not Herald's table\n%v", got, want)
	}
}

// logpushJob is the part of a Cloudflare Logpush job definition Herald
// depends on.
type logpushJob struct {
	Dataset         string `json:"dataset"`
	DestinationConf string `json:"destination_conf"`
	OutputOptions   struct {
		OutputType      string   `json:"output_type"`
		FieldNames      []string `json:"field_names"`
		TimestampFormat string   `json:"timestamp_format"`
		SampleRate      float64  `json:"sample_rate"`
	} `json:"output_options"`
	MaxUploadRecords int  `json:"max_upload_records"`
	Enabled          bool `json:"enabled"`
}

func readLogpushJob(t *testing.T) logpushJob {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "deploy", "cloudflare", "logpush-job.json"))
	if err != nil {
		t.Fatal(err)
	}
	var job logpushJob
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("logpush-job.json: %v", err)
	}
	return job
}

// The Logpush job pushes the http_requests dataset as NDJSON with RFC 3339
// times, unsampled, in batches the route takes, to the log route with the
// ingest secret as the bearer (Logpush's header_ parameters).
func TestCloudflareLogpushJobShape(t *testing.T) {
	job := readLogpushJob(t)
	o := job.OutputOptions
	if job.Dataset != "http_requests" || o.OutputType != "ndjson" || o.TimestampFormat != "rfc3339" || o.SampleRate != 1 || !job.Enabled {
		t.Fatalf("job %+v: want dataset http_requests, ndjson, rfc3339, sample_rate 1, enabled", job)
	}
	if job.MaxUploadRecords < 1 || job.MaxUploadRecords > MaxLines {
		t.Fatalf("max_upload_records %d: the route takes at most %d lines", job.MaxUploadRecords, MaxLines)
	}
	u, err := url.Parse(job.DestinationConf)
	if err != nil || u.Scheme != "https" || u.Path != "/v1/ai-traffic/logs" {
		t.Fatalf("destination_conf %q: want https://HERALD/v1/ai-traffic/logs?…", job.DestinationConf)
	}
	q := u.Query()
	if !strings.HasPrefix(q.Get("siteKey"), "ks_") || !strings.HasPrefix(q.Get("header_Authorization"), "Bearer kis_") ||
		q.Get("header_Content-Type") != "application/x-ndjson" {
		t.Fatalf("destination_conf query %v: want siteKey=ks_…, header_Authorization=Bearer kis_…, header_Content-Type=application/x-ndjson", q)
	}
}
