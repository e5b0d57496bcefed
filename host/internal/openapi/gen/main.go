// Command gen writes Herald's OpenAPI 3.1 document from the REST route
// table (api.Routes: method, path, statuses, auth policy, Connect method)
// and the proto descriptors of a Buf image built with source info, so that
// proto comments become descriptions. `make generate` runs it:
//
//	buf build --path herald/api -o bin/herald-api.binpb
//	go run ./host/internal/openapi/gen -descriptors bin/herald-api.binpb -o host/internal/openapi/openapi.json
//
// The shapes follow the REST adapter (host/internal/api/jsonenc.go):
// responses carry every field, 64-bit integers as JSON numbers, unset
// optional and message fields as null, oneof members only when set; errors
// are {"message": ..., <extra string or string-list fields>}.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/rule"
)

func main() {
	descriptors := flag.String("descriptors", "", "Buf image (FileDescriptorSet) of proto/herald/api, with source info")
	out := flag.String("o", "", "output file")
	md := flag.String("md", "", "also write the Markdown route reference (docs/API.md) here")
	flag.Parse()
	if err := run(*descriptors, *out, *md); err != nil {
		fmt.Fprintln(os.Stderr, "openapi gen:", err)
		os.Exit(1)
	}
}

func run(descriptors, out, md string) error {
	raw, err := os.ReadFile(descriptors)
	if err != nil {
		return err
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(raw, &set); err != nil {
		return fmt.Errorf("%s: %w", descriptors, err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return err
	}
	doc, err := build(api.Routes(), files)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	if md == "" {
		return nil
	}
	page, err := markdown(buf.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(md, page, 0o644)
}

type obj = map[string]any

// aliasesOf maps "METHOD path" of an operation to its alias routes.
var aliasesOf map[string][]string

// generator turns route docs into an OpenAPI document, collecting the
// schemas of the messages it meets.
type generator struct {
	files   *protoregistry.Files
	schemas obj
	// inputs names the messages used in request bodies: they get their
	// own schemas (lenient like protojson decoding) under "<Name>Input"
	// when the response side also uses the message.
	responseSide map[protoreflect.FullName]bool
}

func build(routes []api.RouteDoc, files *protoregistry.Files) (obj, error) {
	g := &generator{files: files, schemas: obj{}, responseSide: map[protoreflect.FullName]bool{}}
	for _, r := range routes {
		for _, n := range []protoreflect.FullName{r.Response, r.Events} {
			if n != "" {
				md, err := g.message(n)
				if err != nil {
					return nil, err
				}
				g.markResponse(md)
			}
		}
	}
	aliasesOf = map[string][]string{}
	for _, r := range routes {
		if r.AliasOf != "" {
			aliasesOf[r.AliasOf] = append(aliasesOf[r.AliasOf], r.Method+" "+r.Path)
		}
	}
	paths := obj{}
	tags := map[string]string{}
	ids := map[string]int{}
	for _, r := range routes {
		op, err := g.operation(r, tags, ids)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.Method, r.Path, err)
		}
		item, _ := paths[r.Path].(obj)
		if item == nil {
			item = obj{}
			paths[r.Path] = item
		}
		item[strings.ToLower(r.Method)] = op
	}
	var tagList []obj
	for _, name := range slices.Sorted(maps.Keys(tags)) {
		tagList = append(tagList, obj{"name": name, "description": tags[name]})
	}
	g.schemas["Error"] = obj{
		"type":        "object",
		"description": "Every REST error: the message, plus fields some errors carry: strings (jobId on an unknown job, requestId on internal errors, retryAfter) lists of strings (missingKeys of a post a destination cannot take) and lists of objects (schedules that use a webhook a DELETE refused to remove).",
		"required":    []string{"message"},
		"properties": obj{
			"message":     obj{"type": "string"},
			"missingKeys": obj{"type": "array", "items": obj{"type": "string"}, "description": "Keys of contentToExport the destination requires and the post lacks (POST /v1/scheduler/create)."},
			"schedules": obj{"type": "array", "description": "The pending posts that use a saved webhook, on a 409 of DELETE /v1/webhooks/{id} (delete with ?force=true to fail them).",
				"items": obj{"type": "object", "required": []string{"id", "whenToExport"}, "properties": obj{"id": obj{"type": "string"}, "whenToExport": obj{"type": []string{"string", "null"}, "format": "date-time"}}}},
		},
		"additionalProperties": obj{"anyOf": []obj{{"type": "string"}, {"type": "array", "items": obj{"type": "string"}}}},
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":       "Herald API",
			"version":     "v1",
			"description": "The REST face of Herald. The same operations, except the plain HTTP routes tagged Static, are served as Connect, gRPC and gRPC-Web RPCs (package herald.api.v1). Generated from the route table and the protos: do not edit.",
		},
		"tags":  tagList,
		"paths": paths,
		"components": obj{
			"schemas": g.schemas,
			"responses": obj{
				"Error": obj{
					"description": "An error: {\"message\": ...}.",
					"content":     obj{"application/json": obj{"schema": ref("Error")}},
				},
			},
			"securitySchemes": obj{
				"apiKey":  obj{"type": "apiKey", "in": "header", "name": "api-key", "description": "A workspace API key (hk_...)."},
				"session": obj{"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "A session JWT (scheduler, destinations and webhooks only)."},
			},
		},
	}, nil
}

func (g *generator) message(n protoreflect.FullName) (protoreflect.MessageDescriptor, error) {
	d, err := g.files.FindDescriptorByName(n)
	if err != nil {
		return nil, fmt.Errorf("message %s: %w", n, err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a message", n)
	}
	return md, nil
}

func (g *generator) markResponse(md protoreflect.MessageDescriptor) {
	if g.responseSide[md.FullName()] || wellKnown(md) {
		return
	}
	g.responseSide[md.FullName()] = true
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() != nil {
			g.markResponse(fd.Message())
		}
	}
}

func (g *generator) operation(r api.RouteDoc, tags map[string]string, ids map[string]int) (obj, error) {
	op := obj{"security": security(r.Policy)}
	responses := obj{"4XX": obj{"$ref": "#/components/responses/Error"}, "5XX": obj{"$ref": "#/components/responses/Error"}}
	op["responses"] = responses
	params := []obj{}
	for _, name := range pathParams(r.Path) {
		params = append(params, obj{"name": name, "in": "path", "required": true, "schema": obj{"type": "string"}})
	}
	if r.Procedure == "" {
		op["summary"] = r.Summary
		op["operationId"] = operationID(r.Operation, ids)
		op["tags"] = []string{"Static"}
		tags["Static"] = staticTagDescription
		types := r.ContentTypes
		if r.ContentType != "" {
			types = append(types, r.ContentType)
		}
		for _, st := range r.Statuses {
			res := obj{"description": http.StatusText(st)}
			if len(types) > 0 {
				content := obj{}
				for _, ct := range types {
					content[ct] = obj{"schema": rawSchema(ct)}
				}
				res["content"] = content
			}
			responses[fmt.Sprint(st)] = res
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		return op, nil
	}
	d, err := g.files.FindDescriptorByName(r.Procedure)
	if err != nil {
		return nil, err
	}
	m := d.(protoreflect.MethodDescriptor)
	svc := m.Parent().(protoreflect.ServiceDescriptor)
	tags[string(svc.Name())] = comment(svc)
	op["tags"] = []string{string(svc.Name())}
	id := lowerFirst(string(m.Name()))
	desc := comment(m)
	op["summary"] = firstSentence(desc)
	if desc == "" {
		op["summary"] = string(m.Name())
	}
	if r.AliasOf != "" {
		// One operation, two paths: the alias has no operation id of its
		// own (so a generated SDK has one method), and says whose it is.
		op["x-alias-of"] = id
		op["summary"] = "Alias of " + id + " (" + r.AliasOf + ")."
		desc = "The same operation as `" + r.AliasOf + "` (operation " + id + "): same request, same response. " + desc
	} else {
		op["operationId"] = operationID(id, ids)
		if aliases := aliasesOf[r.Method+" "+r.Path]; len(aliases) > 0 {
			op["x-aliases"] = aliases
			desc += "\n\nAlso served at " + strings.Join(aliases, ", ") + "."
		}
	}
	desc += fmt.Sprintf("\n\nConnect/gRPC: `%s/%s`.", svc.FullName(), m.Name())
	op["description"] = strings.TrimSpace(desc)

	inPath := map[string]bool{}
	for _, p := range pathParams(r.Path) {
		inPath[p] = true
	}
	req := m.Input()
	if r.Method == http.MethodGet || r.Method == http.MethodDelete {
		for i := 0; i < req.Fields().Len(); i++ {
			fd := req.Fields().Get(i)
			if inPath[fd.JSONName()] {
				continue
			}
			if fd.IsList() || fd.IsMap() || fd.Message() != nil {
				return nil, fmt.Errorf("field %s of %s cannot be a query parameter", fd.Name(), req.FullName())
			}
			r := rule.Of(fd)
			p := obj{"name": fd.JSONName(), "in": "query", "schema": withRule(g.scalar(fd), fd, r)}
			if r.GetRequired() {
				p["required"] = true
			}
			if c := comment(fd); c != "" {
				p["description"] = c
			}
			params = append(params, p)
		}
	} else {
		op["requestBody"] = obj{
			"required": false,
			"content":  obj{"application/json": obj{"schema": g.requestRef(req, inPath)}},
		}
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	for _, st := range r.Statuses {
		content := obj{"application/json": obj{"schema": g.responseRef(m.Output())}}
		text := http.StatusText(st)
		if r.ContentType != "" {
			// The REST face answers another representation of the RPC's
			// response (trend.csv: the CSV itself, not its JSON envelope).
			content = obj{r.ContentType: obj{"schema": rawSchema(r.ContentType)}}
			text += ". REST answers the " + r.ContentType + " body itself; the RPC answers " + string(m.Output().Name()) + "."
		}
		if r.Events != "" {
			ev, err := g.message(r.Events)
			if err != nil {
				return nil, err
			}
			content["text/event-stream"] = obj{
				"schema":         obj{"type": "string", "description": "Server-Sent Events; each data line is a " + string(ev.Name()) + "."},
				"x-event-schema": g.responseRef(ev),
			}
			text += ". With Accept: text/event-stream the turn streams as Server-Sent Events: `event:` is the kind, `data:` a " + string(ev.Name()) + " (schema in x-event-schema); a failure after the stream started ends it with an `error` event whose data is an Error."
		}
		responses[fmt.Sprint(st)] = obj{"description": text, "content": content}
	}
	return op, nil
}

func security(p auth.Policy) []obj {
	switch p {
	case auth.Public:
		return []obj{}
	case auth.APIKeyOrSession:
		return []obj{{"apiKey": []string{}}, {"session": []string{}}}
	default:
		return []obj{{"apiKey": []string{}}}
	}
}

func rawSchema(contentType string) obj {
	if contentType == "application/json" {
		return obj{"type": "object"}
	}
	if strings.HasPrefix(contentType, "text/") {
		return obj{"type": "string"}
	}
	return obj{"type": "string", "contentMediaType": contentType}
}

// operationID records name, an operation id (lowerCamelCase: the RPC's
// name, or a raw route's Operation). Ids are unique: aliases carry none,
// and a duplicate or empty one is a bug of the route table.
func operationID(name string, ids map[string]int) string {
	if name == "" {
		panic("a route without an operation name: give raw routes an Operation")
	}
	ids[name]++
	if ids[name] > 1 {
		panic("operation id " + name + " is used twice")
	}
	return name
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func pathParams(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, strings.TrimSuffix(seg[1:], "}"))
		}
	}
	return out
}

func comment(d protoreflect.Descriptor) string {
	loc := d.ParentFile().SourceLocations().ByDescriptor(d)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(loc.LeadingComments), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func firstSentence(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }
