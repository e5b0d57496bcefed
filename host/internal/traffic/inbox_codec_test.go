package traffic

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
)

// randomEvents are events with every field set to something different:
// empty strings, long ones, multi-byte and NUL characters, negative and
// large integers.
func randomEvents(r *rand.Rand, n int) []store.TrafficEvent {
	str := func() string {
		parts := []string{"", "a", "/docs/ü", "\x00", "chatgpt", strings.Repeat("z", 300), "🦊", "https://chatgpt.com/?q=x"}
		var b strings.Builder
		for k := r.IntN(4); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	ints := []int64{0, -1, 1, 127, 128, -129, 1 << 40, -(1 << 62), 1<<63 - 1}
	out := make([]store.TrafficEvent, n)
	for i := range out {
		out[i] = store.TrafficEvent{SiteID: str(), Kind: store.TrafficKind(str()), SessionID: str(), Path: str(), Title: str(),
			Referrer: str(), Source: str(), Bot: str(), UTMSource: str(), UTMMedium: str(), UTMCampaign: str(), UserAgent: str(),
			DurationMs: ints[r.IntN(len(ints))], ScrollDepth: int(int32(ints[r.IntN(len(ints))])), At: ints[r.IntN(len(ints))]}
	}
	return out
}

// TestTheInboxPayloadGivesBackEveryEvent: decoding an encoded group gives
// the same events, field for field, for groups of 0 to 40 events.
func TestTheInboxPayloadGivesBackEveryEvent(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var buf []byte
	for round := 0; round < 500; round++ {
		events := randomEvents(r, r.IntN(41))
		buf = appendEvents(buf[:0], events)
		got, err := decodeEvents(buf)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(events) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, events) {
			t.Fatalf("round %d: decoded %+v, want %+v", round, got, events)
		}
	}
}

// TestADamagedInboxPayloadIsRefused: a payload cut anywhere, with a byte
// too many, of another version or claiming more events than it can hold
// is an error, never events made up from the rest.
func TestADamagedInboxPayloadIsRefused(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	payload := appendEvents(nil, randomEvents(r, 3))
	for n := 0; n < len(payload); n++ {
		if got, err := decodeEvents(payload[:n]); err == nil {
			t.Fatalf("the first %d of %d bytes decoded to %d events", n, len(payload), len(got))
		}
	}
	if _, err := decodeEvents(append(payload[:len(payload):len(payload)], 0)); err == nil {
		t.Error("a trailing byte was ignored")
	}
	other := append([]byte{inboxCodecVersion + 1}, payload[1:]...)
	if _, err := decodeEvents(other); err == nil {
		t.Error("another version decoded")
	}
}

// TestAnInboxPayloadCannotClaimMoreEventsThanItHolds: a count of 2^20
// events in a payload of 100,000 bytes (an event takes at least 15) is
// refused before the events are allocated (about 280 MB), not after. Not
// parallel: it reads the process's allocation counter.
func TestAnInboxPayloadCannotClaimMoreEventsThanItHolds(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	payload := append([]byte{inboxCodecVersion, 0x80, 0x80, 0x40}, make([]byte, 100_000)...)
	if _, err := decodeEvents(payload); err == nil {
		t.Error("a count past what the payload can hold decoded")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("decoding a 100,000-byte payload allocated %d bytes", grew)
	}
}
