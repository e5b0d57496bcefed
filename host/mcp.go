// `herald mcp --stdio`: the MCP server for desktop assistants that start
// their servers as subprocesses.

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	heraldmcp "github.com/heraldhq/herald/host/internal/mcp"
)

// mcpStdio bridges stdin/stdout to a running host's /mcp with the key in
// HERALD_API_KEY: the host's services, plugins and job queue answer every
// call, so the desktop process starts no plugins and opens no store. The
// host is --url, else $HERALD_URL, else the configured public URL (or
// listen address) + /mcp.
func mcpStdio(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("mcp", stderr, false)
	stdio := fs.Bool("stdio", false, "serve MCP over stdin/stdout (required)")
	url := fs.String("url", "", "the host's MCP endpoint (default $HERALD_URL, else the configured public URL + /mcp)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*stdio {
		return errors.New("usage: herald mcp --stdio [--url http://HOST:PORT/mcp] (key in HERALD_API_KEY); over HTTP, assistants connect to /mcp directly")
	}
	endpoint := *url
	if endpoint == "" {
		endpoint = getenv("HERALD_URL")
	}
	if endpoint == "" {
		cfg, err := f.load(getenv)
		if err != nil {
			return err
		}
		endpoint = cfg.BaseURL()
	}
	if !strings.HasSuffix(strings.TrimRight(endpoint, "/"), "/mcp") {
		endpoint = strings.TrimRight(endpoint, "/") + "/mcp"
	}
	t := &mcp.IOTransport{Reader: os.Stdin, Writer: nopWriteCloser{stdout}}
	return heraldmcp.Bridge(ctx, endpoint, getenv("HERALD_API_KEY"), version, t)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
