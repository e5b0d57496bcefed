package api

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/rule"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// restCSV adapts an export method to a REST route that answers the CSV
// itself (text/csv, as a download) rather than its JSON envelope; errors
// are JSON as on every route.
func restCSV(s *server, policy auth.Policy, method unaryMethod[apiv1.GetTrackerTrendRequest, apiv1.ExportTrackerTrendResponse]) http.Handler {
	return answersAs("text/csv", documented(policy, []int{http.StatusOK}, method, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, err := s.authenticate(r.Context(), r.Header, policy)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		req := new(apiv1.GetTrackerTrendRequest)
		if err := s.decode(w, r, req); err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := rule.Check(req); err != nil {
			s.writeError(w, r, err)
			return
		}
		res, err := method(ctx, connect.NewRequest(req))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		// Quotes and backslashes would end or escape the quoted filename;
		// control characters (DEL too) make clients refuse the header.
		name := strings.Map(func(r rune) rune {
			if r == '"' || r == '\\' || r < ' ' || r == 0x7f {
				return -1
			}
			return r
		}, res.Msg.Filename)
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(res.Msg.Csv)))
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, res.Msg.Csv)
	})))
}
