package api

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// TestTheBeaconDecoderAgreesWithProtojson sends 20,000 generated bodies,
// most shaped like the tracking script's and the rest broken in every way
// the decoder must refuse (escapes, nulls, unknown, repeated or snake_case
// keys, numbers as strings, fractions, overflow, invalid UTF-8, trailing
// bytes, nesting): whatever decodeBeacon accepts, protojson accepts too,
// into an equal message, and every body shaped like the script's is
// accepted (so the fast path is taken).
func TestTheBeaconDecoderAgreesWithProtojson(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	strs := []string{"", "ks_abc", "/docs/1", "https://chatgpt.com/", "Docs — Überblick", "a b\tc", "日本語", "q\"uote", `back\slash`,
		"\u2028", "\x7f", "bad\xffutf8", "/p?x=1&y=2", "nul\x00", "tab\there"}
	ints := []string{"0", "12000", "-1", "100", "-0", "007", "1.5", "1e3", `"42"`, "9223372036854775807", "9223372036854775808",
		"2147483647", "2147483648", "-2147483649", "null", "true", "[]"}
	names := []string{"siteKey", "path", "referrer", "title", "sessionId", "userAgent", "utmSource", "utmMedium", "utmCampaign"}
	quote := func(s string) string {
		switch rng.IntN(10) {
		case 0:
			return strings.ReplaceAll(fmt.Sprintf("%q", s), `\x`, `\u00`) // escaped
		case 1:
			return "null"
		default:
			return `"` + s + `"`
		}
	}
	accepted, plain, plainAccepted := 0, 0, 0
	for i := range 20000 {
		broken := i%2 == 1
		var fields []string
		for _, n := range names {
			if rng.IntN(3) == 0 {
				continue
			}
			v := `"` + strs[rng.IntN(5)] + `"` // the script's values
			if broken {
				v = quote(strs[rng.IntN(len(strs))])
			}
			fields = append(fields, fmt.Sprintf("%q:%s", n, v))
		}
		if rng.IntN(3) == 0 {
			v := "12000"
			if broken {
				v = ints[rng.IntN(len(ints))]
			}
			fields = append(fields, `"sessionDurationMs":`+v)
		}
		if rng.IntN(3) == 0 {
			v := "40"
			if broken {
				v = ints[rng.IntN(len(ints))]
			}
			fields = append(fields, `"scrollDepth":`+v)
		}
		if broken {
			switch rng.IntN(8) {
			case 0:
				fields = append(fields, `"site_key":"ks_x"`)
			case 1:
				fields = append(fields, `"extra":{"a":[1,2,{"b":null}]}`)
			case 2:
				if len(fields) > 0 {
					fields = append(fields, fields[0])
				}
			case 3:
				fields = append(fields, `"title":`+ints[rng.IntN(len(ints))])
			}
		}
		rng.Shuffle(len(fields), func(a, b int) { fields[a], fields[b] = fields[b], fields[a] })
		sep := []string{",", " , ", ",\n\t"}[rng.IntN(3)]
		body := "{" + strings.Join(fields, sep) + "}"
		if broken {
			switch rng.IntN(10) {
			case 0:
				body += " x"
			case 1:
				body = strings.TrimSuffix(body, "}")
			case 2:
				body = strings.Replace(body, ":", " : ", -1)
			}
		}
		var fast, slow apiv1.CollectRequest
		ok := decodeBeacon([]byte(body), &fast)
		err := decodeOptions.Unmarshal([]byte(body), &slow)
		if !broken {
			plain++
			if ok {
				plainAccepted++
			}
		}
		if !ok {
			if proto.Size(&fast) != 0 {
				t.Fatalf("refused %s but changed the message: %v", body, &fast)
			}
			continue
		}
		accepted++
		if err != nil {
			t.Fatalf("decodeBeacon accepted %s, protojson refuses it: %v", body, err)
		}
		if !proto.Equal(&fast, &slow) {
			t.Fatalf("%s:\n decodeBeacon %v\n protojson    %v", body, &fast, &slow)
		}
	}
	if plainAccepted != plain {
		t.Errorf("the script's bodies: %d of %d taken by the fast path, want all", plainAccepted, plain)
	}
	t.Logf("%d of 20000 bodies decoded by decodeBeacon (%d of %d plain ones)", accepted, plainAccepted, plain)
}

// TestTheBeaconDecoderTakesEveryPlainBody: bodies at the edges of what the
// fast path reads (empty, zero, negative, the int64 and int32 limits, a
// non-ASCII title) are taken by it, equal to protojson's result; bodies at
// the edges of what it refuses (a lone continuation byte, invalid UTF-8, a
// leading zero, an unterminated string) are left to protojson.
func TestTheBeaconDecoderTakesEveryPlainBody(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{}`, `{ }`, `{"scrollDepth":0}`, `{"scrollDepth":-1}`, `{"scrollDepth":10}`,
		`{"sessionDurationMs":9223372036854775807}`, `{"sessionDurationMs":-9223372036854775808}`,
		`{"scrollDepth":2147483647}`, `{"scrollDepth":-2147483648}`, `{"title":"é","path":"/"}`} {
		var fast, slow apiv1.CollectRequest
		if !decodeBeacon([]byte(body), &fast) {
			t.Errorf("%s: not taken by the fast path", body)
			continue
		}
		if err := decodeOptions.Unmarshal([]byte(body), &slow); err != nil || !proto.Equal(&fast, &slow) {
			t.Errorf("%s: decodeBeacon %v, protojson %v (%v)", body, &fast, &slow, err)
		}
	}
	for _, body := range []string{"{\"title\":\"\x80\"}", "{\"title\":\"\xff\xfe\"}", `{"sessionDurationMs":05}`, `{"title":"abc`,
		`{"title":"abc"`, `{"scrollDepth":-}`, `{"scrollDepth":2147483648}`, `{"sessionDurationMs":12345678901234567890}`} {
		var fast apiv1.CollectRequest
		if decodeBeacon([]byte(body), &fast) {
			t.Errorf("%q: taken by the fast path, want protojson's answer", body)
		}
	}
}
