// Package commonwords holds the word list that makes a one-word brand
// alias ambiguous under docs/METRICS.md's mention rules (Linear, Notion,
// Close, Nothing, Monday): en.txt, derived by gen.go from Debian's
// wamerican (SCOWL) and the SUBTLEX-US frequency list, with its
// provenance in its header.
package commonwords

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed en.txt
var english string

var (
	once  sync.Once
	words map[string]bool
)

// English reports whether w (lowercase, without diacritics) is a common
// English word.
func English(w string) bool {
	once.Do(func() {
		words = make(map[string]bool, 26000)
		for _, line := range strings.Split(english, "\n") {
			if line != "" && line[0] != '#' {
				words[line] = true
			}
		}
	})
	return words[w]
}
