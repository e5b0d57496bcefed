package api

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"runtime"
	"sort"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// muxer is what routes registers on: the server's ServeMux, or the
// recorder Routes reads the route table with.
type muxer interface {
	Handle(pattern string, handler http.Handler)
}

// RouteDoc is one REST route as the OpenAPI generator
// (host/internal/openapi/gen) documents it. Everything in it is read from
// the handlers routes.go registers, so the document follows the code.
type RouteDoc struct {
	// Method and Path as registered; Path keeps ServeMux wildcards
	// ({id}); a trailing {$} becomes "/".
	Method, Path string
	Policy       auth.Policy
	// Statuses are the success statuses the route answers.
	Statuses []int
	// Procedure is the Connect method the route calls
	// (herald.api.v1.BrandVoiceService.GetBrandVoice); Request and
	// Response are its messages. Empty for raw routes.
	Procedure, Request, Response protoreflect.FullName
	// Events is the message of each Server-Sent Event when the route also
	// streams (Accept: text/event-stream).
	Events protoreflect.FullName
	// ContentType and Summary describe raw routes (no proto messages).
	ContentType, Summary string
	// ContentTypes are the media types a raw route may answer, when it
	// has more than one (a stored object is one of several image types).
	ContentTypes []string
	// Operation names a raw route's operation (lowerCamelCase, like the
	// RPC routes' operation ids).
	Operation string
	// AliasOf is "METHOD path" of the route registered first for the same
	// RPC: this route is an alias of that operation (SPEC's second paths).
	AliasOf string
}

// documentedRoute is a REST handler that carries its RouteDoc.
type documentedRoute struct {
	http.Handler
	doc RouteDoc
	// goMethod is the area method's Go name, resolved to Procedure only
	// when Routes is called, never on the serving path.
	goMethod string
}

func documented[Req, Res any](policy auth.Policy, statuses []int, method unaryMethod[Req, Res], h http.Handler) http.Handler {
	var req Req
	var res Res
	name := runtime.FuncForPC(reflect.ValueOf(method).Pointer()).Name()
	name = strings.TrimSuffix(name[strings.LastIndexByte(name, '.')+1:], "-fm")
	return &documentedRoute{Handler: h, goMethod: name, doc: RouteDoc{
		Policy:   policy,
		Statuses: statuses,
		Request:  any(&req).(interface{ ProtoReflect() protoreflect.Message }).ProtoReflect().Descriptor().FullName(),
		Response: any(&res).(interface{ ProtoReflect() protoreflect.Message }).ProtoReflect().Descriptor().FullName(),
	}}
}

// answersAs documents that the route's REST body is contentType, another
// representation of its RPC's response (the OpenAPI document says so).
func answersAs(contentType string, h http.Handler) http.Handler {
	d := *h.(*documentedRoute)
	d.doc.ContentType = contentType
	return &d
}

// withDocOf gives h the documentation of the REST route it wraps.
func withDocOf(inner, h http.Handler) http.Handler {
	if d, ok := inner.(*documentedRoute); ok {
		return &documentedRoute{Handler: h, doc: d.doc, goMethod: d.goMethod}
	}
	return h
}

// rawRoutes documents the /v1 routes that serve no proto message.
var rawRoutes = map[string]RouteDoc{
	"GET /v1/ai-traffic/t.js":        {Operation: "getTrackingScript", Policy: auth.Public, Statuses: []int{200}, ContentType: "text/javascript", Summary: "The AI traffic tracking script a site embeds."},
	"OPTIONS /v1/ai-traffic/collect": {Operation: "preflightCollect", Policy: auth.Public, Statuses: []int{204}, Summary: "CORS preflight of the public beacon: any origin may POST."},
	"GET /v1/blobs/{key}":            {Operation: "getBlob", Policy: auth.Public, Statuses: []int{200}, ContentTypes: blobTypes, Summary: "A stored object (generated image, upload) by its unguessable key, served with its own image type."},
	"GET /v1/openapi.json":           {Operation: "getOpenAPIDocument", Policy: auth.Public, Statuses: []int{200}, ContentType: "application/json", Summary: "This OpenAPI document."},
}

// blobTypes are the media types the blob store keeps (blob.Put accepts
// only images of these types).
var blobTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

type recorder []struct {
	pattern string
	h       http.Handler
}

func (r *recorder) Handle(pattern string, h http.Handler) {
	*r = append(*r, struct {
		pattern string
		h       http.Handler
	}{pattern, h})
}

// Routes is the REST route table: every "METHOD /v1/..." route routes.go
// registers with every area present, sorted by path then method. It panics
// on a route it cannot describe, so that `make generate` fails rather than
// leaving a route out of the document.
func Routes() []RouteDoc {
	s := docServer()
	var rec recorder
	s.routes(&rec)
	var out []RouteDoc
	firstOf := map[protoreflect.FullName]string{} // RPC → its first route
	for _, r := range rec {
		method, path, ok := strings.Cut(r.pattern, " ")
		if !ok || !strings.HasPrefix(path, "/v1/") {
			continue // Connect, gRPC health and reflection
		}
		var doc RouteDoc
		if d, ok := r.h.(*documentedRoute); ok && method != http.MethodOptions {
			doc = d.doc
			proc, err := procedureOf(d.goMethod, doc.Request, doc.Response)
			if err != nil {
				panic(fmt.Sprintf("%s: %v", r.pattern, err))
			}
			doc.Procedure = proc
		} else if d, ok := rawRoutes[r.pattern]; ok {
			doc = d
		} else {
			panic(fmt.Sprintf("route %s has no documentation: register it through rest/restStatus or add it to rawRoutes", r.pattern))
		}
		doc.Method, doc.Path = method, strings.TrimSuffix(path, "{$}")
		if doc.Procedure != "" {
			if first, ok := firstOf[doc.Procedure]; ok {
				doc.AliasOf = first
			} else {
				firstOf[doc.Procedure] = doc.Method + " " + doc.Path
			}
		}
		out = append(out, doc)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// docDestinations and docChat stand in for the areas' handlers when Routes
// reads the route table: only the method names and messages matter.
type docDestinations struct {
	apiv1connect.UnimplementedDestinationServiceHandler
	apiv1connect.UnimplementedWebhookServiceHandler
}

type docChat struct {
	apiv1connect.UnimplementedChatServiceHandler
}

func (docChat) Stream(context.Context, *apiv1.ChatRequest, func(*apiv1.ChatEvent) error) error {
	return nil
}

// procedureOf finds the herald.api.v1 RPC named method with these messages.
func procedureOf(method string, req, res protoreflect.FullName) (protoreflect.FullName, error) {
	var found []protoreflect.FullName
	protoregistry.GlobalFiles.RangeFilesByPackage("herald.api.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			m := fd.Services().Get(i).Methods().ByName(protoreflect.Name(method))
			if m != nil && m.Input().FullName() == req && m.Output().FullName() == res {
				found = append(found, m.FullName())
			}
		}
		return true
	})
	if len(found) != 1 {
		return "", fmt.Errorf("method %s(%s) %s matches %d RPCs", method, req, res, len(found))
	}
	return found[0], nil
}

// docServer is a server with every area present (unimplemented), as the
// route table describes it.
func docServer() *server {
	return &server{
		Deps: Deps{
			Voices:       apiv1connect.UnimplementedBrandVoiceServiceHandler{},
			Traffic:      apiv1connect.UnimplementedAITrafficServiceHandler{},
			Jobs:         apiv1connect.UnimplementedJobServiceHandler{},
			Generate:     apiv1connect.UnimplementedGenerateServiceHandler{},
			Scheduler:    apiv1connect.UnimplementedSchedulerServiceHandler{},
			Destinations: docDestinations{},
			Agent:        docChat{},
			Content:      apiv1connect.UnimplementedContentServiceHandler{},
			Visibility:   apiv1connect.UnimplementedVisibilityServiceHandler{},
			Trackers:     apiv1connect.UnimplementedTrackerServiceHandler{},
			Impact:       apiv1connect.UnimplementedImpactServiceHandler{},
			Events:       apiv1connect.UnimplementedEventServiceHandler{},
			Analytics:    apiv1connect.UnimplementedAnalyticsServiceHandler{},
		},
		policies: map[string]auth.Policy{}, servicePolicies: map[string]auth.Policy{}, procedures: map[string]struct{}{},
	}
}
