package config

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEConfigTable checks the README's configuration table against
// the settings table: every setting has a row with its environment
// variable and, when it has one, its default first in the default column;
// every plain setting row names a setting.
func TestREADMEConfigTable(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(src), "\n## Configuration\n")
	if !ok {
		t.Fatal("README has no ## Configuration section")
	}
	_, table, _ := strings.Cut(section, "| setting | env | default |\n|---|---|---|\n")
	type row struct{ env, def string }
	rows := map[string]row{}
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 || strings.HasPrefix(cells[0], "`") {
			continue // blocks such as `queue "aiQueue" { ... }`
		}
		names, envs, defs := strings.Split(cells[0], ", "), strings.Split(cells[1], ", "), strings.Split(cells[2], ", ")
		for i, name := range names {
			r := row{}
			if i < len(envs) {
				r.env = envs[i]
			}
			if len(names) > 1 && i < len(defs) {
				r.def = defs[i]
			} else {
				r.def = cells[2]
			}
			rows[name] = r
		}
	}
	for _, s := range settings {
		r, ok := rows[s.name]
		if !ok {
			t.Errorf("README's configuration table has no row for %s (%s)", s.name, s.env)
			continue
		}
		delete(rows, s.name)
		if r.env != s.env {
			t.Errorf("README: %s is set by %q, settings say %s", s.name, r.env, s.env)
		}
		if def := formatDefault(s.def); def != "" && r.def != def && !strings.HasPrefix(r.def, def+" ") {
			t.Errorf("README: %s defaults to %q, settings say %s", s.name, r.def, def)
		}
	}
	for name := range rows {
		t.Errorf("README's configuration table lists %s, which is not a setting", name)
	}
}
