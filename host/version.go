package main

import (
	"runtime/debug"
)

// buildVersion is what `herald version` prints: the -X main.version set by
// `make build`, else the module version and VCS revision that the Go
// toolchain stamps into every binary built from a checkout.
func buildVersion() string {
	if version != "dev" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev
		if dirty {
			v += "-dirty"
		}
		if at != "" {
			v += " (" + at + ")"
		}
	}
	return v + " " + info.GoVersion
}
