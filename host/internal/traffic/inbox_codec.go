package traffic

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/heraldhq/herald/host/internal/store"
)

// inboxCodecVersion starts every inbox payload: a group's events in a
// compact binary form, since the accepting goroutine encodes every beacon
// on the path of its answer (encoding/json took ~3 µs a beacon there).
const inboxCodecVersion = 1

// appendEvents appends the payload of a group holding events to dst: the
// version byte, the count, then per event its twelve strings (uvarint
// length and bytes) and three integers (zigzag varints).
func appendEvents(dst []byte, events []store.TrafficEvent) []byte {
	dst = append(dst, inboxCodecVersion)
	dst = binary.AppendUvarint(dst, uint64(len(events)))
	for i := range events {
		ev := &events[i]
		for _, s := range [...]string{ev.SiteID, string(ev.Kind), ev.SessionID, ev.Path, ev.Title, ev.Referrer, ev.Source, ev.Bot,
			ev.UTMSource, ev.UTMMedium, ev.UTMCampaign, ev.UserAgent} {
			dst = binary.AppendUvarint(dst, uint64(len(s)))
			dst = append(dst, s...)
		}
		dst = binary.AppendVarint(dst, ev.DurationMs)
		dst = binary.AppendVarint(dst, int64(ev.ScrollDepth))
		dst = binary.AppendVarint(dst, ev.At)
	}
	return dst
}

var errShortPayload = errors.New("payload ends inside an event")

// decodeEvents reads a payload appendEvents wrote. The strings share one
// copy of the payload.
func decodeEvents(payload []byte) ([]store.TrafficEvent, error) {
	if len(payload) == 0 || payload[0] != inboxCodecVersion {
		return nil, fmt.Errorf("unknown inbox payload version")
	}
	all := string(payload) // one copy; every field is a substring of it
	p := 1
	uvarint := func() (uint64, error) {
		v, n := binary.Uvarint(payload[p:])
		if n <= 0 {
			return 0, errShortPayload
		}
		p += n
		return v, nil
	}
	varint := func() (int64, error) {
		v, n := binary.Varint(payload[p:])
		if n <= 0 {
			return 0, errShortPayload
		}
		p += n
		return v, nil
	}
	count, err := uvarint()
	if err != nil {
		return nil, err
	}
	// Every event takes at least 15 bytes: a count past that is damage.
	if count > uint64(len(payload))/15 {
		return nil, fmt.Errorf("inbox payload of %d bytes claims %d events", len(payload), count)
	}
	events := make([]store.TrafficEvent, count)
	var kind string
	for i := range events {
		ev := &events[i]
		for _, f := range [...]*string{&ev.SiteID, &kind, &ev.SessionID, &ev.Path, &ev.Title, &ev.Referrer, &ev.Source, &ev.Bot,
			&ev.UTMSource, &ev.UTMMedium, &ev.UTMCampaign, &ev.UserAgent} {
			n, err := uvarint()
			if err != nil {
				return nil, err
			}
			if n > uint64(len(payload)-p) {
				return nil, errShortPayload
			}
			*f = all[p : p+int(n)]
			p += int(n)
		}
		ev.Kind = store.TrafficKind(kind)
		if ev.DurationMs, err = varint(); err != nil {
			return nil, err
		}
		scroll, err := varint()
		if err != nil {
			return nil, err
		}
		ev.ScrollDepth = int(scroll)
		if ev.At, err = varint(); err != nil {
			return nil, err
		}
	}
	if p != len(payload) {
		return nil, fmt.Errorf("inbox payload has %d bytes after its last event", len(payload)-p)
	}
	return events, nil
}
