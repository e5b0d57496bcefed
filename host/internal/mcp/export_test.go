package mcp

import "net/http"

// SDKHandler is the server's handler without the fast path: the SDK
// answers every request.
func SDKHandler(s *Server) http.Handler { return s.handler(false) }

// FastCalls is the number of calls the fast path answered.
func FastCalls(s *Server) int64 { return s.fastCalls.Load() }
