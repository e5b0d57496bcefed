// `herald logs ship`: follow a web server's access log and post its lines
// to a Herald host's log route (docs/LOG-SHIPPING.md).

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/logship"
)

const logsUsage = `usage: herald logs ship --file ACCESS_LOG --url https://HERALD --site-key KEY --secret-file FILE [flags]

  ship   follow ACCESS_LOG across rotation and post its lines to POST /v1/ai-traffic/logs
         (nginx/Apache combined lines or Caddy JSON lines), resuming after a restart`

var logsCmd = verbs("logs", logsUsage, map[string]command{"ship": logsShip})

func logsShip(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("logs ship", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o logship.Options
	fs.StringVar(&o.File, "file", "", "the access log to follow (required)")
	base := fs.String("url", "", "the Herald API's base URL, such as https://herald.example (default $HERALD_URL)")
	siteKey := fs.String("site-key", "", "the site's key (required with an api key)")
	secretFile := fs.String("secret-file", "", "file holding the site's ingest secret (default $HERALD_INGEST_SECRET)")
	keyFile := fs.String("api-key-file", "", "file holding a workspace api key, instead of the ingest secret")
	fs.StringVar(&o.State, "state", "", "file remembering the position in the log (default FILE.herald-offset)")
	fs.StringVar(&o.Format, "format", "auto", "auto, text (combined log lines) or ndjson (JSON lines such as Caddy's)")
	fs.BoolVar(&o.FromStart, "from-start", false, "on a first start, ship what the log already holds (default: start at its end)")
	fs.IntVar(&o.BatchLines, "batch-lines", 1000, fmt.Sprintf("most lines per request (at most %d)", logship.MaxLines))
	fs.IntVar(&o.BatchBytes, "batch-bytes", 4<<20, "most bytes per request, before compression (the route takes 8 MiB)")
	fs.DurationVar(&o.BatchWait, "batch-wait", 5e9, "longest a line waits for its batch to fill")
	fs.DurationVar(&o.Poll, "poll", 1e9, "how often to look for new lines")
	fs.BoolVar(&o.Once, "once", false, "ship what is written now and exit (for cron)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("logs ship: unexpected argument %q\n%s", fs.Arg(0), logsUsage)
	}
	if o.File == "" {
		return errors.New("logs ship: --file is required\n" + logsUsage)
	}
	if o.BatchLines > logship.MaxLines {
		return fmt.Errorf("logs ship: --batch-lines %d is over the route's %d", o.BatchLines, logship.MaxLines)
	}
	if o.Format != "auto" && o.Format != "text" && o.Format != "ndjson" {
		return fmt.Errorf("logs ship: --format %q: want auto, text or ndjson", o.Format)
	}
	if *base == "" {
		*base = getenv("HERALD_URL")
	}
	if o.State == "" {
		o.State = o.File + ".herald-offset"
	}
	secret, err := credential("--secret-file", *secretFile, getenv("HERALD_INGEST_SECRET"))
	if err != nil {
		return err
	}
	var apiKey string
	if *keyFile != "" {
		if apiKey, err = credential("--api-key-file", *keyFile, ""); err != nil {
			return err
		}
		secret = ""
	}
	client, err := logship.NewClient(*base, *siteKey, secret, apiKey)
	if err != nil {
		return fmt.Errorf("logs ship: %v", err)
	}
	log := hclog.New(&hclog.LoggerOptions{Name: "herald-logs-ship", Output: stderr, JSONFormat: getenv("HERALD_LOG_FORMAT") == "json"})
	log.Info("shipping", "file", o.File, "url", *base, "state", o.State)
	return logship.New(o, client, log).Run(ctx)
}

// credential reads a secret from file (trimmed), else takes fallback.
func credential(flagName, file, fallback string) (string, error) {
	if file == "" {
		return fallback, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("logs ship: %s: %v", flagName, err)
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", fmt.Errorf("logs ship: %s %s is empty", flagName, file)
	}
	return v, nil
}
