package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jsonenc"
	"github.com/heraldhq/herald/host/internal/rule"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// unaryMethod is the shape of every generated Connect handler method.
type unaryMethod[Req, Res any] func(context.Context, *connect.Request[Req]) (*connect.Response[Res], error)

// rest adapts one Connect method to a REST route: it authenticates under
// policy, decodes the JSON body, path values and query parameters into the
// proto request (matching wildcard and parameter names to the fields' JSON
// names), calls the very method the Connect face serves, and writes the
// response with status, or the error as {"message": ...}.
func rest[Req, Res any](s *server, policy auth.Policy, status int, method unaryMethod[Req, Res]) http.Handler {
	return restStatus(s, policy, func(*Res) int { return status }, method, status)
}

// restStatus is rest for routes whose success status depends on the
// response, such as POST /v1/ai/generate/text (200 inline, 202 queued);
// statuses lists the ones status can return, for the OpenAPI document.
func restStatus[Req, Res any](s *server, policy auth.Policy, status func(*Res) int, method unaryMethod[Req, Res], statuses ...int) http.Handler {
	return documented(policy, statuses, method, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, err := s.authenticate(r.Context(), r.Header, policy)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		req := new(Req)
		msg := any(req).(proto.Message)
		if err := s.decode(w, r, msg); err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := rule.Check(msg); err != nil {
			s.writeError(w, r, err)
			return
		}
		creq := connect.NewRequest(req)
		for k, v := range r.Header {
			creq.Header()[k] = v
		}
		res, err := method(ctx, creq)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		for k, v := range res.Header() {
			w.Header()[k] = v
		}
		// The body is rendered into a pooled buffer (see bufs).
		buf := bufs.Get().(*[]byte)
		out := jsonenc.Append((*buf)[:0], any(res.Msg).(proto.Message))
		writeJSON(w, status(res.Msg), out)
		putBuf(buf, out)
	}))
}

var decodeOptions = protojson.UnmarshalOptions{DiscardUnknown: true}

// decode fills msg from the body (methods with a body), the query string and
// the path values, in that order of precedence from lowest to highest.
func (s *server) decode(w http.ResponseWriter, r *http.Request, msg proto.Message) error {
	m := msg.ProtoReflect()
	if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		buf := bufs.Get().(*[]byte)
		raw, err := readBody(http.MaxBytesReader(w, r.Body, s.maxBody), (*buf)[:0])
		defer putBuf(buf, raw)
		body := raw
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return errTooLarge{limit: tooBig.Limit}
			}
			if errors.Is(err, errBodyTimeout) {
				return errBodyTimeout
			}
			return apierr.Invalid("cannot read request body: %v", err)
		}
		body = bytes.TrimSpace(body)
		if len(body) > 0 {
			if body[0] != '{' {
				return apierr.Invalid("request body must be a JSON object")
			}
			if b, ok := msg.(*apiv1.CollectRequest); ok && decodeBeacon(body, b) {
				// A flat beacon: one level, nothing protojson would add.
				return afterBody(r, m, msg)
			}
			// The body's own object is one level; its fields get
			// maxJSONDepth below it.
			if field, deep := jsonDepthExceeds(body, maxJSONDepth+1); deep {
				if len(field) > 64 {
					field = field[:64]
				}
				return apierr.Invalid("field %s is nested deeper than %d levels", field, maxJSONDepth)
			}
			if err := decodeOptions.Unmarshal(body, msg); err != nil {
				if field := fieldTypeError(body, m.Descriptor()); field != "" {
					return apierr.Invalid("%s", field)
				}
				return apierr.Invalid("%s", describeDecodeError(err))
			}
		}
	}
	return afterBody(r, m, msg)
}

// bufs holds the buffers decode reads request bodies into and REST answers
// are rendered into, so that a request allocates neither (the beacon route
// takes one of each per pageview). Nothing of a body outlives decode: every
// decoder copies the strings it sets (TestDecodeKeepsNothingOfThePooledBody);
// an answer's buffer is free again once Write has copied it out.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledBody is the largest buffer put back in bufs: a rare large body
// or answer must not stay pinned in the pool.
const maxPooledBody = 64 << 10

// putBuf returns buf to bufs holding b, what it grew into, unless b grew
// past maxPooledBody.
func putBuf(buf *[]byte, b []byte) {
	if cap(b) <= maxPooledBody {
		*buf = b[:0]
		bufs.Put(buf)
	}
}

// readBody is io.ReadAll appending to buf.
func readBody(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return buf, err
		}
	}
}

// afterBody binds the query string and path values over what the body set,
// then applies the edge's checks (the declared field rules come after
// decoding, in the route's handler).
func afterBody(r *http.Request, m protoreflect.Message, msg proto.Message) error {
	// After the body: protojson.Unmarshal resets the message.
	if err := bindQuery(m, r); err != nil {
		return err
	}
	for _, f := range planOf(m.Descriptor()).pathFields {
		if v := r.PathValue(f.name); v != "" {
			m.Set(f.fd, protoreflect.ValueOfString(v))
		}
	}
	return checkEdge(msg)
}

// msgPlan is what afterBody and walkFreeForm need to know of a message
// type, worked out once per type instead of walking its descriptor on
// every request.
type msgPlan struct {
	// pathFields are the singular string fields: a path wildcard of the
	// same JSON name sets one.
	pathFields []pathField
	// nested is whether some field holds messages (singular, list or map
	// values; groups too): the only fields walkFreeForm looks into.
	nested bool
}

type pathField struct {
	fd   protoreflect.FieldDescriptor
	name string // fd.JSONName()
}

var msgPlans sync.Map // protoreflect.MessageDescriptor → *msgPlan

func planOf(md protoreflect.MessageDescriptor) *msgPlan {
	if p, ok := msgPlans.Load(md); ok {
		return p.(*msgPlan)
	}
	p := &msgPlan{}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
			p.nested = true
		}
		if fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap() {
			p.pathFields = append(p.pathFields, pathField{fd: fd, name: fd.JSONName()})
		}
	}
	msgPlans.Store(md, p)
	return p
}

// bindQuery sets scalar fields from query parameters of the same JSON name.
func bindQuery(m protoreflect.Message, r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	q := r.URL.Query()
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.IsList() || fd.IsMap() {
			continue
		}
		raw, ok := q[fd.JSONName()]
		if !ok || len(raw) == 0 {
			continue
		}
		v := raw[0]
		switch fd.Kind() {
		case protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(v))
		case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Int64Kind, protoreflect.Sint64Kind:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return apierr.Invalid("query parameter %s must be an integer, got %q", fd.JSONName(), v)
			}
			if fd.Kind() == protoreflect.Int32Kind || fd.Kind() == protoreflect.Sint32Kind {
				if n != int64(int32(n)) {
					return apierr.Invalid("query parameter %s is out of range", fd.JSONName())
				}
				m.Set(fd, protoreflect.ValueOfInt32(int32(n)))
			} else {
				m.Set(fd, protoreflect.ValueOfInt64(n))
			}
		case protoreflect.BoolKind:
			b, err := strconv.ParseBool(v)
			if err != nil {
				return apierr.Invalid("query parameter %s must be true or false, got %q", fd.JSONName(), v)
			}
			m.Set(fd, protoreflect.ValueOfBool(b))
		}
	}
	return nil
}

var (
	decodeLinePrefix = regexp.MustCompile(`^proto:\s*(syntax error\s*)?(\(line \d+:\d+\):\s*)?`)
	decodeFieldError = regexp.MustCompile(`invalid value for (\w+) field (\w+): (.*)$`)
)

// describeDecodeError turns a protojson error into a message that names the
// field and the expected type, without Go or protobuf jargon.
func describeDecodeError(err error) string {
	msg := err.Error()
	if m := decodeFieldError.FindStringSubmatch(msg); m != nil {
		kind := m[1]
		switch kind {
		case "int32", "int64", "uint32", "uint64", "sint32", "sint64":
			kind = "an integer"
		case "double", "float":
			kind = "a number"
		case "bool":
			kind = "a boolean"
		case "string":
			kind = "a string"
		case "message":
			kind = "an object"
		case "list":
			kind = "an array"
		default:
			kind = "a " + kind
		}
		return fmt.Sprintf("field %s must be %s, got %s", m[2], kind, m[3])
	}
	if strings.Contains(msg, "unexpected token") || strings.Contains(msg, "syntax error") || strings.Contains(msg, "unexpected EOF") {
		return "malformed JSON: " + strings.TrimSpace(decodeLinePrefix.ReplaceAllString(msg, ""))
	}
	return "invalid request body: " + decodeLinePrefix.ReplaceAllString(msg, "")
}

// errTooLarge becomes a 413 on the REST face.
type errTooLarge struct{ limit int64 }

func (e errTooLarge) Error() string {
	return fmt.Sprintf("request body is larger than the limit of %d bytes", e.limit)
}

// Header values every response of a route carries, assigned as shared
// slices because Header.Set allocates a new []string per call, per request.
// Sharing is safe as long as nothing writes into their elements, which
// nothing in herald or net/http does: each has len == cap, so Header.Add
// appends into a new array, and Set and Del replace or drop the map entry
// (TestSharedHeaderValuesStayIntact). Keys must be canonical, as Set would
// make them.
var (
	jsonContentType   = []string{"application/json; charset=utf-8"}
	corsAnyOrigin     = []string{"*"}
	corsExposeHeaders = []string{"X-Request-Id"}
)

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// writeError renders err as SPEC's error body: {"message": ...} plus the
// extra fields the error carries. Errors that are not API errors are logged
// and answered with a generic 500 so that internal detail never leaks.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig errTooLarge
	if errors.As(err, &tooBig) {
		writeMessage(w, http.StatusRequestEntityTooLarge, tooBig.Error(), nil)
		return
	}
	if errors.Is(err, errBodyTimeout) {
		w.Header().Set("Connection", "close")
		writeMessage(w, http.StatusRequestTimeout, err.Error(), nil)
		return
	}
	if ce, ok := overCapError(err); ok {
		err = ce
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		status := StatusOf(ce.Code())
		// Error metadata such as Retry-After travels as headers on both faces.
		for k, v := range ce.Meta() {
			w.Header()[k] = v
		}
		if status >= 500 {
			s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "request_id", requestID(r.Context()), "error", err)
		}
		writeJSON(w, status, messageJSON(ce.Message(), apierr.Fields(ce), apierr.Values(ce)))
		return
	}
	s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "request_id", requestID(r.Context()), "error", err)
	writeMessage(w, http.StatusInternalServerError, "internal error", map[string]string{"requestId": requestID(r.Context())})
}

func writeMessage(w http.ResponseWriter, status int, msg string, fields map[string]string) {
	writeJSON(w, status, messageJSON(msg, fields, nil))
}

// messageJSON is the error body: "message", the string fields, then the
// fields of values (lists, objects), keys sorted within each group.
// "message" itself cannot be replaced by a field.
func messageJSON(msg string, fields map[string]string, values *structpb.Struct) []byte {
	b := append([]byte(`{"message":`), jsonenc.AppendString(nil, msg)...)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if k == "message" {
			continue
		}
		b = append(b, ',')
		b = jsonenc.AppendString(b, k)
		b = append(b, ':')
		b = jsonenc.AppendString(b, fields[k])
	}
	rest := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for k, v := range values.GetFields() {
		if _, dup := fields[k]; !dup && k != "message" {
			rest.Fields[k] = v
		}
	}
	if len(rest.Fields) > 0 {
		obj := jsonenc.Marshal(rest) // {"key":value,...}
		b = append(append(b, ','), obj[1:len(obj)-1]...)
	}
	return append(b, '}')
}
