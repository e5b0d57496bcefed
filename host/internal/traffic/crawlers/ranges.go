// Package crawlers tells a real AI crawler from anyone sending its user
// agent: a hit is verified when its IP is in the operator's published
// address ranges (shipped in ranges/, newer files loaded into the
// database by `herald crawlers ranges load`) or when reverse-then-forward
// DNS leads to one of the operator's documented host names.
package crawlers

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/netip"
	"path"
	"sort"
	"strings"
	"time"
)

//go:embed ranges/*.json
var shipped embed.FS

// RangeFile is one operator's published list of crawler addresses.
type RangeFile struct {
	// Name is the file's name without .json ("gptbot"); the newest file
	// of a name replaces the others.
	Name     string
	Operator string
	// Source is where the operator publishes it.
	Source string
	// Created is the file's creationTime.
	Created  time.Time
	Prefixes []netip.Prefix
	// Body is the file as published.
	Body []byte
}

// manifest is ranges/sources.json: who publishes each shipped file.
type manifest struct {
	Files []struct {
		File     string `json:"file"`
		Operator string `json:"operator"`
		URL      string `json:"url"`
	} `json:"files"`
}

// Known returns the operator and source URL of a published file name
// ("gptbot"), "" when Herald does not know it.
func Known(name string) (operator, source string) {
	m, err := readManifest()
	if err != nil {
		return "", ""
	}
	for _, f := range m.Files {
		if strings.TrimSuffix(f.File, ".json") == name {
			return f.Operator, f.URL
		}
	}
	return "", ""
}

func readManifest() (manifest, error) {
	var m manifest
	b, err := shipped.ReadFile("ranges/sources.json")
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	return m, err
}

// ParseRangeFile reads a range file in the format OpenAI, Google, Bing
// and Perplexity publish: {"creationTime": …, "prefixes": [{"ipv4Prefix":
// …} or {"ipv6Prefix": …}]}.
func ParseRangeFile(name, operator, source string, body []byte) (RangeFile, error) {
	var raw struct {
		CreationTime string `json:"creationTime"`
		Prefixes     []struct {
			IPv4 string `json:"ipv4Prefix"`
			IPv6 string `json:"ipv6Prefix"`
		} `json:"prefixes"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return RangeFile{}, fmt.Errorf("range file %s: %w", name, err)
	}
	if operator == "" {
		return RangeFile{}, fmt.Errorf("range file %s: unknown operator (name the operator)", name)
	}
	f := RangeFile{Name: name, Operator: operator, Source: source, Body: body}
	created, err := parseCreationTime(raw.CreationTime)
	if err != nil {
		return RangeFile{}, fmt.Errorf("range file %s: creationTime: %w", name, err)
	}
	f.Created = created
	for i, p := range raw.Prefixes {
		s := p.IPv4
		if s == "" {
			s = p.IPv6
		}
		pfx, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			return RangeFile{}, fmt.Errorf("range file %s: prefix %d: %w", name, i+1, err)
		}
		f.Prefixes = append(f.Prefixes, pfx.Masked())
	}
	if len(f.Prefixes) == 0 {
		return RangeFile{}, fmt.Errorf("range file %s: no prefixes", name)
	}
	return f, nil
}

// parseCreationTime reads the operators' creationTime, written with or
// without a zone and with microseconds ("2025-07-29T18:00:04.000000").
func parseCreationTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time", s)
}

// Shipped returns the range files built into Herald.
func Shipped() ([]RangeFile, error) {
	m, err := readManifest()
	if err != nil {
		return nil, fmt.Errorf("ranges/sources.json: %w", err)
	}
	var out []RangeFile
	for _, mf := range m.Files {
		b, err := shipped.ReadFile(path.Join("ranges", mf.File))
		if err != nil {
			return nil, err
		}
		f, err := ParseRangeFile(strings.TrimSuffix(mf.File, ".json"), mf.Operator, mf.URL, b)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Ranges is the set of published addresses, per operator.
type Ranges struct {
	files      map[string]RangeFile
	byOperator map[string][]netip.Prefix
}

// NewRanges keeps, of each file name, the file with the newest Created
// (a later argument wins a tie), and indexes their prefixes by operator.
func NewRanges(files ...RangeFile) *Ranges {
	r := &Ranges{files: map[string]RangeFile{}, byOperator: map[string][]netip.Prefix{}}
	for _, f := range files {
		if old, ok := r.files[f.Name]; ok && old.Created.After(f.Created) {
			continue
		}
		r.files[f.Name] = f
	}
	for _, f := range r.files {
		r.byOperator[f.Operator] = append(r.byOperator[f.Operator], f.Prefixes...)
	}
	for op, ps := range r.byOperator {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Bits() < ps[j].Bits() })
		r.byOperator[op] = ps
	}
	return r
}

// Files lists the files in force, by name.
func (r *Ranges) Files() []RangeFile {
	out := make([]RangeFile, 0, len(r.files))
	for _, f := range r.files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Contains reports whether ip is in one of operator's published ranges.
func (r *Ranges) Contains(operator string, ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range r.byOperator[operator] {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
