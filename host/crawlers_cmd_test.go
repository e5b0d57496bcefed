package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCrawlerRangesLoadPutsANewerFileInForce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "gptbot.json")
	os.WriteFile(file, []byte(`{"creationTime":"2099-01-01T00:00:00.000000","prefixes":[{"ipv4Prefix":"192.0.2.0/24"}]}`), 0o600)
	out, errOut, err := herald(t, dir, "crawlers", "ranges", "load", file)
	if err != nil || !strings.Contains(out, "gptbot (OpenAI, 1 prefixes, created 2099-01-01) stored and in force") {
		t.Fatalf("load: %v %q %q", err, out, errOut)
	}
	out, _, err = herald(t, dir, "crawlers", "ranges", "list")
	if err != nil || !strings.Contains(out, "gptbot               OpenAI         1 prefixes  created 2099-01-01") || !strings.Contains(out, "googlebot") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	// An older file of the same name is stored but does not win.
	os.WriteFile(file, []byte(`{"creationTime":"2001-01-01T00:00:00Z","prefixes":[{"ipv4Prefix":"198.51.100.0/24"}]}`), 0o600)
	if out, _, err = herald(t, dir, "crawlers", "ranges", "load", file); err != nil || !strings.Contains(out, "newer file of that name stays in force") {
		t.Fatalf("older load: %v %q", err, out)
	}
	// An unknown file needs its operator.
	other := filepath.Join(t.TempDir(), "claudebot.json")
	os.WriteFile(other, []byte(`{"creationTime":"2099-01-01T00:00:00Z","prefixes":[{"ipv4Prefix":"160.79.104.0/23"}]}`), 0o600)
	if _, _, err = herald(t, dir, "crawlers", "ranges", "load", other); err == nil {
		t.Fatal("an unknown file loaded without its operator")
	}
	if out, _, err = herald(t, dir, "crawlers", "ranges", "load", other, "--operator", "Anthropic"); err != nil || !strings.Contains(out, "in force") {
		t.Fatalf("load with operator: %v %q", err, out)
	}
}
