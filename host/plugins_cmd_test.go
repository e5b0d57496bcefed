package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginsListsSettingKeysButNoValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "herald.hcl")
	const secret = "ntn-secret-in-the-url-42"
	body := "plugin \"notion\" {\n  kind = \"destination\"\n  settings = { base_url = \"https://proxy.example.com/" + secret + "\" }\n}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := herald(t, dir, "plugins", "--config", cfg)
	if err != nil {
		t.Fatalf("herald plugins: %v\n%s", err, errOut)
	}
	var notion, webhook string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "notion "):
			notion = line
		case strings.HasPrefix(line, "webhook "):
			webhook = line
		}
	}
	if !strings.Contains(out, "SETTINGS") || !strings.Contains(notion, " base_url ") || !strings.Contains(webhook, " - ") {
		t.Errorf("plugins output does not list the settings' keys:\n%s", out)
	}
	if strings.Contains(out+errOut, secret) {
		t.Errorf("plugins output shows a setting value:\n%s", out)
	}
}
