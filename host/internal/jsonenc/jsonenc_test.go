package jsonenc

import (
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

func TestMarshalJSONRendersSpecShapes(t *testing.T) {
	t.Parallel()
	data, _ := structpb.NewStruct(map[string]any{"model": "gpt-4o", "n": 2, "tags": []any{"a", nil, true}, "nested": map[string]any{"x": 1.5}})
	reason := "boom \"quoted\"\n\u2028<tag>"
	on := int64(1_764_111_111_123)
	got := string(Marshal(&apiv1.Job{JobId: "j1", State: "failed", Data: data, FailedReason: &reason, ProcessedOn: &on, AttemptsMade: 3}))
	want := `{"jobId":"j1","name":"","state":"failed","progress":0,"result":null,"failedReason":"boom \"quoted\"\n\u2028<tag>","attemptsMade":3,"processedOn":1764111111123,"finishedOn":null,"data":{"model":"gpt-4o","n":2,"nested":{"x":1.5},"tags":["a",null,true]},"queue":""}`
	if got != want {
		t.Fatalf("job:\n got %s\nwant %s", got, want)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatalf("not valid JSON: %v", err)
	}

	queued := string(Marshal(&apiv1.GenerateTextResponse{Message: "queued", Outcome: &apiv1.GenerateTextResponse_JobId{JobId: "j2"}}))
	if queued != `{"message":"queued","jobId":"j2"}` {
		t.Fatalf("an unset oneof member must be omitted: %s", queued)
	}
	ts := string(Marshal(&apiv1.BrandVoiceListItem{Id: "v", CreatedAt: timestamppb.New(time.Date(2026, 11, 25, 9, 8, 7, 654_321_000, time.FixedZone("x", 3600)))}))
	if ts != `{"id":"v","name":"","type":"","url":null,"contentLength":0,"createdAt":"2026-11-25T08:08:07.654Z","updatedAt":null}` {
		t.Fatalf("timestamps are UTC RFC 3339 with milliseconds: %s", ts)
	}
	bad := string(Marshal(&apiv1.ErrorFields{Fields: map[string]string{"b": "\xff", "a": "ok"}}))
	if bad != `{"fields":{"a":"ok","b":"\ufffd"},"values":null}` {
		t.Fatalf("map keys sorted, invalid UTF-8 replaced: %s", bad)
	}
}

func TestAppendRendersAfterWhatTheBufferHolds(t *testing.T) {
	t.Parallel()
	m := &apiv1.CollectResponse{Message: "accepted", Kind: "ai", AiSource: "chatgpt"}
	buf := append(make([]byte, 0, 64), "prefix:"...)
	got := string(Append(buf, m))
	if want := "prefix:" + string(Marshal(m)); got != want {
		t.Errorf("Append = %s, want %s", got, want)
	}
}
