package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/traffic/crawlers"
)

const crawlersUsage = `usage:
  herald crawlers ranges load FILE [--operator NAME] [--source URL]   store a newer published range file (gptbot.json, googlebot.json, ...); the newest file of a name wins, on every host within a minute
  herald crawlers ranges list                                        print the range files in force`

// crawlersCmd is `herald crawlers`: the published crawler ranges that
// verify AI crawler hits from server logs, updated without a release.
var crawlersCmd = verbs("crawlers", crawlersUsage, map[string]command{
	"ranges": verbs("crawlers ranges", crawlersUsage, map[string]command{
		"load": crawlerRangesLoad,
		"list": crawlerRangesList,
	}),
})

// crawlerRangesLoad is `herald crawlers ranges load FILE`.
func crawlerRangesLoad(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("crawlers ranges load", stderr, false)
	operator := fs.String("operator", "", "the file's operator (OpenAI, Google, ...); known file names need none")
	source := fs.String("source", "", "where the operator publishes the file")
	// The file may come before the flags.
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	}
	if file == "" {
		return errors.New(crawlersUsage)
	}
	body, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(filepath.Base(file), ".json")
	knownOp, knownSrc := crawlers.Known(name)
	if *operator == "" {
		*operator = knownOp
	}
	if *source == "" {
		*source = knownSrc
	}
	rf, err := crawlers.ParseRangeFile(name, *operator, *source, body)
	if err != nil {
		return err
	}
	st, _, err := f.open(ctx, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.AddCrawlerRange(ctx, store.CrawlerRangeRow{Name: rf.Name, Operator: rf.Operator, Source: rf.Source,
		Created: rf.Created.UnixMilli(), Body: string(body)}); err != nil {
		return err
	}
	r, err := traffic.LoadRanges(ctx, st)
	if err != nil {
		return err
	}
	inForce := false
	for _, in := range r.Files() {
		if in.Name == rf.Name && in.Created.Equal(rf.Created) {
			inForce = true
		}
	}
	if inForce {
		fmt.Fprintf(stdout, "%s (%s, %d prefixes, created %s) stored and in force\n", rf.Name, rf.Operator, len(rf.Prefixes), rf.Created.Format("2006-01-02"))
	} else {
		fmt.Fprintf(stdout, "%s stored, but a newer file of that name stays in force\n", rf.Name)
	}
	return nil
}

// crawlerRangesList is `herald crawlers ranges list`.
func crawlerRangesList(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("crawlers ranges list", stderr, false)
	st, err := adminStore(ctx, fs, f, args, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := traffic.LoadRanges(ctx, st)
	if err != nil {
		return err
	}
	for _, rf := range r.Files() {
		fmt.Fprintf(stdout, "%-20s %-11s %4d prefixes  created %s  %s\n", rf.Name, rf.Operator, len(rf.Prefixes), rf.Created.Format("2006-01-02"), rf.Source)
	}
	return nil
}
