// Package rule checks API requests against the rules declared on their
// proto fields (the herald.api.v1.rule option: required, allowed values,
// lengths, ranges, list sizes, URL prefixes). The same declarations are
// what the OpenAPI generator writes into the document, so the document
// and the server cannot disagree about them. Both faces call Check after
// decoding a request and before the operation runs; its error is a 400
// (invalid_argument) whose message begins with the field's JSON name.
package rule

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/heraldhq/herald/host/internal/apierr"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// Of is the rule declared on fd, or nil.
func Of(fd protoreflect.FieldDescriptor) *apiv1.Rule {
	opts := fd.Options()
	if opts == nil || !proto.HasExtension(opts, apiv1.E_Rule) {
		return nil
	}
	r, _ := proto.GetExtension(opts, apiv1.E_Rule).(*apiv1.Rule)
	return r
}

// fieldRule is one field of a message with its rule (nil rule: a message
// field checked only for its own fields' rules).
type fieldRule struct {
	fd   protoreflect.FieldDescriptor
	rule *apiv1.Rule
}

var plans sync.Map // protoreflect.FullName → []fieldRule

// planOf lists the fields of md that have a rule or may hold messages
// with rules, computed once per message type.
func planOf(md protoreflect.MessageDescriptor) []fieldRule {
	if p, ok := plans.Load(md.FullName()); ok {
		return p.([]fieldRule)
	}
	var out []fieldRule
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		r := Of(fd)
		nested := fd.Message() != nil && !fd.IsMap() && fd.Message().ParentFile().Package() == md.ParentFile().Package()
		if r != nil || nested {
			out = append(out, fieldRule{fd: fd, rule: r})
		}
	}
	plans.Store(md.FullName(), out)
	return out
}

// Check returns the first broken rule of m as a 400 naming the field, or nil.
func Check(m proto.Message) error {
	return check(m.ProtoReflect(), "")
}

func check(m protoreflect.Message, prefix string) error {
	for _, f := range planOf(m.Descriptor()) {
		name := prefix + f.fd.JSONName()
		if err := checkField(m, f, name); err != nil {
			return err
		}
	}
	return nil
}

func checkField(m protoreflect.Message, f fieldRule, name string) error {
	fd, r := f.fd, f.rule
	if r == nil {
		r = &apiv1.Rule{}
	}
	switch {
	case fd.IsList():
		list := m.Get(fd).List()
		if r.Required && list.Len() == 0 {
			return apierr.Invalid("%s is required", name)
		}
		if r.MaxItems != nil && uint32(list.Len()) > r.GetMaxItems() {
			return apierr.Invalid("%s has %d entries; the limit is %d", name, list.Len(), r.GetMaxItems())
		}
		for i := 0; i < list.Len(); i++ {
			elem := fmt.Sprintf("%s[%d]", name, i)
			switch fd.Kind() {
			case protoreflect.StringKind:
				if err := checkItem(list.Get(i).String(), r, elem); err != nil {
					return err
				}
			case protoreflect.MessageKind:
				if s, ok := stringValue(list.Get(i).Message()); ok {
					if err := checkItem(s, r, elem); err != nil {
						return err
					}
					continue
				}
				if err := check(list.Get(i).Message(), elem+"."); err != nil {
					return err
				}
			}
		}
		return nil
	case fd.IsMap():
		return nil
	case fd.Kind() == protoreflect.MessageKind:
		if !m.Has(fd) {
			if r.Required {
				return apierr.Invalid("%s is required", name)
			}
			return nil
		}
		sub := m.Get(fd).Message()
		if fd.Message().FullName() == "google.protobuf.ListValue" {
			values := sub.Get(sub.Descriptor().Fields().ByName("values")).List()
			n := values.Len()
			if r.Required && n == 0 {
				return apierr.Invalid("%s is required", name)
			}
			if r.MaxItems != nil && uint32(n) > r.GetMaxItems() {
				return apierr.Invalid("%s has %d entries; the limit is %d", name, n, r.GetMaxItems())
			}
			for i := 0; i < n; i++ {
				if s, ok := stringValue(values.Get(i).Message()); ok {
					if err := checkItem(s, r, fmt.Sprintf("%s[%d]", name, i)); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if fd.Message().ParentFile().Package() != m.Descriptor().ParentFile().Package() {
			return nil
		}
		return check(sub, name+".")
	case fd.Kind() == protoreflect.StringKind:
		set := m.Has(fd)
		v := m.Get(fd).String()
		if r.Required && strings.TrimSpace(v) == "" {
			return apierr.Invalid("%s is required", name)
		}
		if !set {
			if r.Required && fd.HasPresence() {
				return apierr.Invalid("%s is required", name)
			}
			return nil
		}
		return checkString(v, r, name, fd.HasPresence())
	case fd.Kind() == protoreflect.BoolKind:
		return nil
	default:
		if !m.Has(fd) {
			if r.Required {
				return apierr.Invalid("%s is required", name)
			}
			return nil
		}
		return checkNumber(number(m.Get(fd), fd.Kind()), r, name)
	}
}

// checkString checks a set string: with presence (optional) even an empty
// one, else only a non-empty one (proto3 cannot tell "" from unset).
func checkString(v string, r *apiv1.Rule, name string, presence bool) error {
	if v == "" && !presence {
		return nil
	}
	if r.NotBlank && strings.TrimSpace(v) == "" {
		return apierr.Invalid("%s must not be empty", name)
	}
	if len(r.OneOf) > 0 && !contains(r.OneOf, v) {
		switch len(r.OneOf) {
		case 1:
			return apierr.Invalid("%s must be %s, got %q", name, r.OneOf[0], clip(v))
		case 2:
			return apierr.Invalid("%s must be %s or %s, got %q", name, r.OneOf[0], r.OneOf[1], clip(v))
		}
		return apierr.Invalid("%s must be one of %s; got %q", name, strings.Join(r.OneOf, ", "), clip(v))
	}
	n := utf8.RuneCountInString(v)
	if r.MinLen != nil && uint32(n) < r.GetMinLen() {
		return apierr.Invalid("%s is %d characters; it must have at least %d", name, n, r.GetMinLen())
	}
	if r.MaxLen != nil && uint32(n) > r.GetMaxLen() {
		return apierr.Invalid("%s is %d characters; the limit is %d", name, n, r.GetMaxLen())
	}
	if r.Https && strings.Contains(v, "://") {
		if u, err := url.Parse(v); err == nil && !strings.EqualFold(u.Scheme, "https") {
			return apierr.Invalid("%s: %s://%s refused: only https:// URLs are fetched", name, u.Scheme, clip(u.Host))
		}
	}
	if r.Pattern != "" && v != "" && !compiled(r.Pattern).MatchString(v) {
		if r.PatternMessage != "" {
			return apierr.Invalid("%s %s", name, r.PatternMessage)
		}
		return apierr.Invalid("%s must match %s; got %q", name, r.Pattern, clip(v))
	}
	if len(r.Prefix) > 0 && v != "" {
		ok := false
		for _, p := range r.Prefix {
			ok = ok || strings.HasPrefix(v, p)
		}
		if !ok {
			return apierr.Invalid("%s must start with %s; got %q", name, strings.Join(r.Prefix, " or "), clip(v))
		}
	}
	return nil
}

func checkItem(v string, r *apiv1.Rule, name string) error {
	if r.ItemsNotBlank && strings.TrimSpace(v) == "" {
		return apierr.Invalid("%s is empty", name)
	}
	if r.MaxItemLen != nil {
		if n := utf8.RuneCountInString(v); uint32(n) > r.GetMaxItemLen() {
			return apierr.Invalid("%s is %d characters; the limit is %d", name, n, r.GetMaxItemLen())
		}
	}
	return nil
}

func checkNumber(v float64, r *apiv1.Rule, name string) error {
	lo, hi := math.Inf(-1), math.Inf(1)
	if r.Min != nil {
		lo = r.GetMin()
	}
	if r.Max != nil {
		hi = r.GetMax()
	}
	if v >= lo && v <= hi {
		return nil
	}
	switch {
	case r.Min != nil && r.Max != nil:
		return apierr.Invalid("%s must be between %s and %s, got %s", name, num(lo), num(hi), num(v))
	case r.Min != nil:
		return apierr.Invalid("%s must be %s or more, got %s", name, num(lo), num(v))
	default:
		return apierr.Invalid("%s must be %s or less, got %s", name, num(hi), num(v))
	}
}

// stringValue is the string of a google.protobuf.Value that holds one.
func stringValue(m protoreflect.Message) (string, bool) {
	if m.Descriptor().FullName() != "google.protobuf.Value" {
		return "", false
	}
	fd := m.Descriptor().Fields().ByName("string_value")
	if !m.Has(fd) {
		return "", false
	}
	return m.Get(fd).String(), true
}

var patterns sync.Map // string → *regexp.Regexp

// compiled is the compiled form of a rule's pattern; a pattern that does
// not compile is a bug of the proto, caught by the tests of every route.
func compiled(p string) *regexp.Regexp {
	if re, ok := patterns.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(p)
	patterns.Store(p, re)
	return re
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func number(v protoreflect.Value, k protoreflect.Kind) float64 {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return float64(v.Int())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return float64(v.Uint())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float()
	case protoreflect.EnumKind:
		return float64(v.Enum())
	}
	return 0
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// clip keeps an echoed value short.
func clip(v string) string {
	if utf8.RuneCountInString(v) <= 64 {
		return v
	}
	return string([]rune(v)[:64]) + "…"
}
