package api

import (
	"bytes"
	"encoding/json"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// exportToList lets the scheduler's create route take exportTo as a list
// of destinations as well as one destination id: a body whose exportTo is
// a JSON array is decoded with that array as exportToList (the message's
// list field) and its first element as exportTo (so the field's declared
// rule, required, holds for both forms). Any other body is returned as is.
func exportToList(body []byte, _ *apiv1.CreateScheduleRequest) []byte {
	if !bytes.Contains(body, []byte(`"exportTo"`)) && !bytes.Contains(body, []byte(`"export_to"`)) {
		return body
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return body
	}
	for _, key := range []string{"exportTo", "export_to"} {
		raw, ok := fields[key]
		if !ok || jsonKind(bytes.TrimSpace(raw)) != "array" {
			continue
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return body
		}
		delete(fields, key)
		fields["exportToList"] = raw
		if len(list) > 0 {
			fields["exportTo"] = list[0]
		}
		out, err := json.Marshal(fields)
		if err != nil {
			return body
		}
		return out
	}
	return body
}
