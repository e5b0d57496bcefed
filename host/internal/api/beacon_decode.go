package api

import (
	"strconv"
	"unicode/utf8"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// decodeBeacon fills m from the body the tracking script sends: one flat
// JSON object whose keys are CollectRequest's JSON names, with string
// values free of escapes and integer values, each key once. It is the
// public beacon route's hot path (every pageview of every tracked site),
// and protojson plus the depth scan cost more than the rest of the request
// path outside the store. For any other body it returns false and leaves m
// untouched: protojson then decides, with its errors. A differential test
// holds it to protojson's result on every body it accepts.
func decodeBeacon(body []byte, m *apiv1.CollectRequest) bool {
	var out apiv1.CollectRequest
	d := beaconScanner{b: body}
	if !d.byte('{') {
		return false
	}
	var seen uint16
	if d.ws(); d.peek() == '}' {
		d.i++
		return d.end(m, &out)
	}
	for {
		d.ws()
		key, ok := d.str()
		if !ok {
			return false
		}
		d.ws()
		if !d.byte(':') {
			return false
		}
		d.ws()
		bit, ok := beaconFields[string(key)]
		if !ok || seen&bit != 0 {
			return false // unknown or repeated: protojson's rules apply
		}
		seen |= bit
		switch bit {
		case fieldDurationMs:
			v, ok := d.integer(64)
			if !ok {
				return false
			}
			out.SessionDurationMs = &v
		case fieldScrollDepth:
			v, ok := d.integer(32)
			if !ok {
				return false
			}
			s := int32(v)
			out.ScrollDepth = &s
		default:
			s, ok := d.str()
			if !ok {
				return false
			}
			*beaconString(&out, bit) = string(s)
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return d.end(m, &out)
		default:
			return false
		}
	}
}

const (
	fieldSiteKey uint16 = 1 << iota
	fieldPath
	fieldReferrer
	fieldTitle
	fieldSessionID
	fieldUserAgent
	fieldUTMSource
	fieldUTMMedium
	fieldUTMCampaign
	fieldDurationMs
	fieldScrollDepth
)

// beaconFields maps CollectRequest's JSON names to their bits.
var beaconFields = map[string]uint16{
	"siteKey": fieldSiteKey, "path": fieldPath, "referrer": fieldReferrer, "title": fieldTitle,
	"sessionId": fieldSessionID, "userAgent": fieldUserAgent, "utmSource": fieldUTMSource,
	"utmMedium": fieldUTMMedium, "utmCampaign": fieldUTMCampaign,
	"sessionDurationMs": fieldDurationMs, "scrollDepth": fieldScrollDepth,
}

func beaconString(m *apiv1.CollectRequest, bit uint16) *string {
	switch bit {
	case fieldSiteKey:
		return &m.SiteKey
	case fieldPath:
		return &m.Path
	case fieldReferrer:
		return &m.Referrer
	case fieldTitle:
		return &m.Title
	case fieldSessionID:
		return &m.SessionId
	case fieldUserAgent:
		return &m.UserAgent
	case fieldUTMSource:
		return &m.UtmSource
	case fieldUTMMedium:
		return &m.UtmMedium
	default:
		return &m.UtmCampaign
	}
}

type beaconScanner struct {
	b []byte
	i int
}

func (d *beaconScanner) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *beaconScanner) byte(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.i++
	return true
}

func (d *beaconScanner) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// str reads a string with no escape and no control character, valid
// UTF-8.
func (d *beaconScanner) str() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start, ascii := d.i, true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
		d.i++
	}
	return nil, false
}

// integer reads a JSON integer (no sign but '-', no leading zero, no
// fraction or exponent) that fits in bits.
func (d *beaconScanner) integer(bits int) (int64, bool) {
	start := d.i
	if d.peek() == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - digits
	if n == 0 || n > 19 || (n > 1 && d.b[digits] == '0') {
		return 0, false
	}
	v, err := strconv.ParseInt(string(d.b[start:d.i]), 10, bits)
	return v, err == nil
}

// end accepts the body if nothing but whitespace follows the object.
func (d *beaconScanner) end(m, out *apiv1.CollectRequest) bool {
	d.ws()
	if d.i != len(d.b) {
		return false
	}
	m.SiteKey, m.Path, m.Referrer, m.Title, m.SessionId, m.UserAgent = out.SiteKey, out.Path, out.Referrer, out.Title, out.SessionId, out.UserAgent
	m.UtmSource, m.UtmMedium, m.UtmCampaign = out.UtmSource, out.UtmMedium, out.UtmCampaign
	m.SessionDurationMs, m.ScrollDepth = out.SessionDurationMs, out.ScrollDepth
	return true
}
