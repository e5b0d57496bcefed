package crawlers_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/traffic/crawlers"
)

// fakeDNS answers PTR and A/AAAA lookups from maps and counts them.
type fakeDNS struct {
	ptr     map[string][]string
	forward map[string][]string
	lookups int
}

func (f *fakeDNS) LookupAddr(_ context.Context, addr string) ([]string, error) {
	f.lookups++
	if names, ok := f.ptr[addr]; ok {
		return names, nil
	}
	return nil, errors.New("no PTR")
}

func (f *fakeDNS) LookupHost(_ context.Context, host string) ([]string, error) {
	if ips, ok := f.forward[host]; ok {
		return ips, nil
	}
	return nil, errors.New("no such host")
}

func shippedVerifier(t *testing.T, dns crawlers.Resolver) *crawlers.Verifier {
	t.Helper()
	files, err := crawlers.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	return crawlers.NewVerifier(crawlers.NewRanges(files...), dns)
}

func TestVerificationPaths(t *testing.T) {
	dns := &fakeDNS{
		ptr: map[string][]string{
			"66.249.90.77":  {"crawl-66-249-90-77.googlebot.com."},
			"203.0.113.50":  {"crawl-203-0-113-50.googlebot.com."}, // a PTR anyone can set on their own block
			"198.51.100.23": {"googlebot.com.evil.example."},
		},
		forward: map[string][]string{
			"crawl-66-249-90-77.googlebot.com": {"66.249.90.77"},
			"crawl-203-0-113-50.googlebot.com": {"66.249.90.1"},
			"googlebot.com.evil.example":       {"198.51.100.23"},
		},
	}
	v := shippedVerifier(t, dns)
	ctx := context.Background()
	cases := []struct {
		name, operator, ip string
		want               crawlers.How
	}{
		{"an IP in OpenAI's gptbot.json ranges is verified by range", "OpenAI", "20.171.207.130", crawlers.ByRange},
		{"an IPv6 in Google's googlebot.json ranges is verified by range", "Google", "2001:4860:4801:10::1", crawlers.ByRange},
		{"an IP in Perplexity's perplexitybot.json is verified", "Perplexity", "3.224.62.45", crawlers.ByRange},
		{"a spoofed GPTBot from a residential IP is claimed", "OpenAI", "198.51.100.9", crawlers.Claimed},
		{"OpenAI's IP claiming to be Perplexity is claimed", "Perplexity", "20.171.207.130", crawlers.Claimed},
		{"a Google IP outside the file passing reverse-then-forward DNS is verified by DNS", "Google", "66.249.90.77", crawlers.ByDNS},
		{"a PTR under googlebot.com that resolves elsewhere is claimed", "Google", "203.0.113.50", crawlers.Claimed},
		{"a PTR that only starts with googlebot.com is claimed", "Google", "198.51.100.23", crawlers.Claimed},
		{"an operator with no documented host names is claimed without DNS", "Anthropic", "160.79.104.10", crawlers.Claimed},
		{"a line without an IP is claimed", "OpenAI", "-", crawlers.Claimed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := v.Verify(ctx, c.operator, c.ip, nil); got != c.want {
				t.Errorf("Verify(%s, %s) = %q, want %q", c.operator, c.ip, got, c.want)
			}
		})
	}
}

func TestDNSAnswersAreCachedAndBudgeted(t *testing.T) {
	dns := &fakeDNS{ptr: map[string][]string{}, forward: map[string][]string{}}
	v := shippedVerifier(t, dns)
	budget := &crawlers.Budget{Left: 1}
	v.Verify(context.Background(), "Google", "192.0.2.1", budget)
	v.Verify(context.Background(), "Google", "192.0.2.1", budget)
	v.Verify(context.Background(), "Google", "192.0.2.2", budget) // over budget: no lookup
	if dns.lookups != 1 || budget.Left != 0 {
		t.Errorf("lookups %d, budget left %d", dns.lookups, budget.Left)
	}
}

func TestNewestRangeFileOfANameWins(t *testing.T) {
	old, err := crawlers.ParseRangeFile("gptbot", "OpenAI", "", []byte(`{"creationTime":"2025-01-01T00:00:00.000000","prefixes":[{"ipv4Prefix":"192.0.2.0/24"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	newer, err := crawlers.ParseRangeFile("gptbot", "OpenAI", "", []byte(`{"creationTime":"2026-12-01T00:00:00Z","prefixes":[{"ipv4Prefix":"198.51.100.0/24"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]crawlers.RangeFile{{old, newer}, {newer, old}} {
		v := crawlers.NewVerifier(crawlers.NewRanges(order...), &fakeDNS{})
		if v.Verify(context.Background(), "OpenAI", "198.51.100.7", nil) != crawlers.ByRange ||
			v.Verify(context.Background(), "OpenAI", "192.0.2.7", nil) != crawlers.Claimed {
			t.Errorf("the older file is in force")
		}
	}
	if !newer.Created.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("created %v", newer.Created)
	}
	if _, err := crawlers.ParseRangeFile("x", "OpenAI", "", []byte(`{"creationTime":"2026-12-01T00:00:00Z","prefixes":[{"ipv4Prefix":"300.1.1.0/24"}]}`)); err == nil {
		t.Error("a bad prefix loaded")
	}
}

func TestShippedFilesAllParseAndNameTheirSource(t *testing.T) {
	files, err := crawlers.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("%d files", len(files))
	}
	for _, f := range files {
		if f.Source == "" || f.Created.IsZero() || len(f.Prefixes) == 0 {
			t.Errorf("%s: %+v", f.Name, f)
		}
	}
}
