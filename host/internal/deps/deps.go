// Package deps is how every area's New checks what it was given: one
// error naming each required dependency that is missing, and the area's
// logger (a null logger when none was given).
package deps

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
)

// Dep is one required dependency of an area's Deps.
type Dep struct {
	name    string
	missing bool
	when    string
}

// Need is field name of Deps, required; missing says it was not given.
func Need(name string, missing bool) Dep { return Dep{name: name, missing: missing} }

// NeedWhen is a field required only in a case (when: "with a Fetcher"),
// named in the error; missing is true only in that case.
func NeedWhen(name string, missing bool, when string) Dep {
	return Dep{name: name, missing: missing, when: when}
}

// Check returns an error naming each missing dependency of area's Deps
// ("voice: Deps.Store is required"), in the order given, or nil.
func Check(area string, required ...Dep) error {
	var missing []error
	for _, d := range required {
		if !d.missing {
			continue
		}
		msg := fmt.Sprintf("%s: Deps.%s is required", area, d.name)
		if d.when != "" {
			msg += " " + d.when
		}
		missing = append(missing, errors.New(msg))
	}
	return errors.Join(missing...)
}

// Logger is l named for area, or a null logger when l is nil.
func Logger(l hclog.Logger, area string) hclog.Logger {
	if l == nil {
		return hclog.NewNullLogger()
	}
	return l.Named(area)
}
