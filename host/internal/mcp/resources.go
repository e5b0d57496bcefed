package mcp

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heraldhq/herald/host/internal/jsonenc"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// voicePrefix starts the URI of a brand voice resource.
const voicePrefix = "herald://brand-voices/"

// addResources registers the read-only brand voice resources. They are a
// template, not a list: which voices exist depends on who asks, and the
// list_brand_voices tool gives their ids.
func (s *Server) addResources() {
	h := s.d.Voices
	if h == nil {
		return
	}
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "brand-voice", Title: "Brand voice", MIMEType: "application/json",
		URITemplate: voicePrefix + "{id}",
		Description: "One brand voice in full (name, type, source URL, the voice text), as GET /v1/ai/brand-voice/{id} returns it. Ids come from list_brand_voices.",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id := strings.TrimPrefix(uri, voicePrefix)
		if id == uri || id == "" || strings.Contains(id, "/") {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		var header http.Header
		if req.Extra != nil {
			header = req.Extra.Header
		}
		ctx, _, err := s.caller(ctx, header)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: s.message("read "+uri, err)}
		}
		res, err := h.GetBrandVoice(ctx, connect.NewRequest(&apiv1.GetBrandVoiceRequest{Id: id}))
		if err != nil {
			// Another workspace's voice is missing, as on the API.
			if ce := new(connect.Error); errors.As(err, &ce) && ce.Code() == connect.CodeNotFound {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: s.message("read "+uri, err)}
		}
		raw := jsonenc.Marshal(res.Msg.GetData())
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(raw)}}}, nil
	})
}
