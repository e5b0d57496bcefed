package pluginhost

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/heraldhq/herald/config"
)

// Status describes one configured plugin without starting it, for
// `herald plugins`.
type Status struct {
	Name string
	Kind string
	// Command is the executable and its arguments as the host runs them.
	Command string
	// FirstParty is set for plugins served by the herald executable itself.
	FirstParty bool
	// Settings are the names of the block's settings; their values are
	// never shown.
	Settings []string
	// Checksum is "not pinned", "ok", or what is wrong ("MISMATCH: …",
	// "error: …").
	Checksum string
}

// Statuses lists the plugins of cfg in name order, checking each pinned
// SHA-256 against the executable on disk.
func Statuses(cfg *config.Config) []Status {
	var out []Status
	for _, name := range slices.Sorted(maps.Keys(cfg.Plugins)) {
		p := cfg.Plugins[name]
		s := Status{Name: name, Kind: p.Kind, FirstParty: p.Command == "", Settings: p.Settings.Keys()}
		var path string
		var err error
		if s.FirstParty {
			path, err = os.Executable()
			s.Command = strings.Join([]string{path, "plugin", name}, " ")
		} else {
			path, err = exec.LookPath(p.Command)
			s.Command = strings.Join(append([]string{p.Command}, p.Args...), " ")
		}
		switch {
		case err != nil:
			s.Checksum = "error: " + err.Error()
		case p.SHA256 == "":
			s.Checksum = "not pinned"
		default:
			got, err := fileSHA256(path)
			switch {
			case err != nil:
				s.Checksum = "error: " + err.Error()
			case got != strings.ToLower(p.SHA256):
				s.Checksum = fmt.Sprintf("MISMATCH: %s has sha256 %s, config pins %s", path, got, strings.ToLower(p.SHA256))
			default:
				s.Checksum = "ok"
			}
		}
		out = append(out, s)
	}
	return out
}
