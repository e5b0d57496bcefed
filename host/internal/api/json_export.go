package api

import "google.golang.org/protobuf/proto"

// MarshalJSON renders a response message exactly as the REST face writes
// it (SPEC's JSON shapes). The MCP face uses it so that a tool's result
// reads as the body of the route behind it.
func MarshalJSON(m proto.Message) []byte { return marshalJSON(m) }
