package api

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jsonenc"
	"github.com/heraldhq/herald/host/internal/traffic"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// restLogs adapts IngestLogs to POST /v1/ai-traffic/logs: the body is not
// JSON of the request message but the log lines themselves, in the format
// its Content-Type names (gunzipped when Content-Encoding is gzip, as
// Cloudflare Logpush sends), capped at traffic.MaxLogBytes after
// decompression. An api-key is verified when sent; otherwise the service
// checks the ingest secret in the Authorization header.
func restLogs(s *server, method unaryMethod[apiv1.IngestLogsRequest, apiv1.IngestLogsResponse]) http.Handler {
	const policy = auth.APIKeyIfSent
	return documented(policy, []int{http.StatusOK}, method, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, err := s.authenticate(r.Context(), r.Header, policy)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		var body io.Reader = http.MaxBytesReader(w, r.Body, traffic.MaxLogBytes)
		switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
		case "", "identity":
		case "gzip":
			zr, err := gzip.NewReader(body)
			if err != nil {
				s.writeError(w, r, apierr.Invalid("Content-Encoding is gzip but the body is not: %v", err))
				return
			}
			defer zr.Close()
			body = io.LimitReader(zr, traffic.MaxLogBytes+1)
		default:
			s.writeError(w, r, apierr.Invalid("Content-Encoding %q is not supported (gzip or none)", enc))
			return
		}
		raw, err := io.ReadAll(body)
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig) || len(raw) > traffic.MaxLogBytes:
			s.writeError(w, r, errTooLarge{limit: traffic.MaxLogBytes})
			return
		case err != nil:
			s.writeError(w, r, apierr.Invalid("cannot read request body: %v", err))
			return
		}
		req := connect.NewRequest(&apiv1.IngestLogsRequest{SiteKey: r.URL.Query().Get("siteKey"),
			ContentType: r.Header.Get("Content-Type"), Body: raw})
		for k, v := range r.Header {
			req.Header()[k] = v
		}
		res, err := method(ctx, req)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, jsonenc.Append(nil, res.Msg))
	}))
}
