package api

import (
	"net/http"
	"strings"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jsonenc"
	"github.com/heraldhq/herald/host/internal/rule"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// chatRoute serves POST /v1/ai/generate/chat: the unary REST adapter, or,
// when the client accepts text/event-stream, the turn's events as
// Server-Sent Events (the REST adapter handles unary calls only).
func chatRoute(s *server, policy auth.Policy, h ChatHandler) http.Handler {
	unary := rest(s, policy, http.StatusOK, h.Send)
	return withEvents(unary, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			unary.ServeHTTP(w, r)
			return
		}
		ctx, err := s.authenticate(r.Context(), r.Header, policy)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		req := new(apiv1.ChatRequest)
		if err := s.decode(w, r, req); err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := rule.Check(req); err != nil {
			s.writeError(w, r, err)
			return
		}
		flusher, _ := w.(http.Flusher)
		started := false
		err = h.Stream(ctx, req, func(ev *apiv1.ChatEvent) error {
			if !started {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("Cache-Control", "no-cache")
				w.WriteHeader(http.StatusOK)
				started = true
			}
			return writeEvent(w, flusher, eventName(ev), jsonenc.Marshal(ev))
		})
		switch {
		case err == nil:
		case !started:
			// Nothing was sent: the error gets its usual status and body.
			s.writeError(w, r, err)
		default:
			// Headers are gone; the stream ends with an error event.
			rec := &errorRecorder{header: http.Header{}}
			s.writeError(rec, r, err)
			writeEvent(w, flusher, "error", rec.body)
		}
	}))
}

// eventName is the SSE event field: the kind of the event.
func eventName(ev *apiv1.ChatEvent) string {
	switch ev.Kind.(type) {
	case *apiv1.ChatEvent_ToolCall:
		return "tool_call"
	case *apiv1.ChatEvent_ToolResult:
		return "tool_result"
	case *apiv1.ChatEvent_Done:
		return "done"
	default:
		return "text_delta"
	}
}

func writeEvent(w http.ResponseWriter, f http.Flusher, name string, data []byte) error {
	if _, err := w.Write([]byte("event: " + name + "\ndata: ")); err != nil {
		return err
	}
	if _, err := w.Write(append(data, '\n', '\n')); err != nil {
		return err
	}
	if f != nil {
		f.Flush()
	}
	return nil
}

// errorRecorder captures the JSON body writeError renders, so that an error
// after the stream started is sent as an event with the same body.
type errorRecorder struct {
	header http.Header
	body   []byte
}

func (e *errorRecorder) Header() http.Header { return e.header }
func (e *errorRecorder) WriteHeader(int)     {}
func (e *errorRecorder) Write(b []byte) (int, error) {
	e.body = append(e.body, b...)
	return len(b), nil
}

// withEvents documents the chat route's stream variant: each event is a
// ChatEvent.
func withEvents(unary, h http.Handler) http.Handler {
	d := withDocOf(unary, h).(*documentedRoute)
	d.doc.Events = (*apiv1.ChatEvent)(nil).ProtoReflect().Descriptor().FullName()
	return d
}
