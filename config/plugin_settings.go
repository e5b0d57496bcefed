package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// Settings are a plugin block's operator settings, sent to the plugin's
// Configure: keys and string values. Values often are API keys, so the
// type prints its keys only (fmt's %v, %+v and %#v); pass the map itself
// to the plugin and nowhere else.
type Settings map[string]string

// Keys returns the setting names, sorted.
func (s Settings) Keys() []string { return slices.Sorted(maps.Keys(s)) }

// String lists the keys with their values hidden.
func (s Settings) String() string {
	keys := s.Keys()
	for i, k := range keys {
		keys[i] = k + ":[hidden]"
	}
	return "map[" + strings.Join(keys, " ") + "]"
}

// GoString is String, so that %#v hides the values too.
func (s Settings) GoString() string { return s.String() }

// Values returns the setting values, for redaction lists.
func (s Settings) Values() []string {
	out := make([]string, 0, len(s))
	for _, k := range s.Keys() {
		out = append(out, s[k])
	}
	return out
}

// pluginSettings evaluates the settings = { ... } attribute of plugin
// name: an object whose values are strings (numbers and booleans are
// written as strings) and may call env("NAME") to read the host's
// environment through getenv. Each key is evaluated on its own so that an
// error names the plugin, the key and the variable, and never a value.
// An absent attribute gives nil.
func pluginSettings(name string, expr hcl.Expression, getenv func(string) string) (Settings, error) {
	if expr == nil {
		return nil, nil
	}
	field := "plugin." + name + ".settings"
	fail := func(rng hcl.Range, field, format string, args ...any) error {
		return &Error{File: rng.Filename, Line: rng.Start.Line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	obj, ok := hcl.UnwrapExpression(expr).(*hclsyntax.ObjectConsExpr)
	if !ok {
		if v, diags := expr.Value(nil); !diags.HasErrors() && v.IsNull() {
			return nil, nil // not set
		}
		return nil, fail(expr.Range(), field, `must be a map such as { api_key = env("OPENAI_API_KEY") }`)
	}
	out := Settings{}
	for _, item := range obj.Items {
		k, diags := item.KeyExpr.Value(nil)
		if diags.HasErrors() || k.IsNull() || !k.IsKnown() || !k.Type().Equals(cty.String) || k.AsString() == "" {
			return nil, fail(item.KeyExpr.Range(), field, "keys must be names such as api_key")
		}
		key := k.AsString()
		keyField := field + "." + key
		if _, dup := out[key]; dup {
			return nil, fail(item.KeyExpr.Range(), keyField, "set twice")
		}
		var missing []string
		ctx := &hcl.EvalContext{Functions: map[string]function.Function{"env": envFunction(getenv, &missing)}}
		v, diags := item.ValueExpr.Value(ctx)
		if len(missing) > 0 {
			return nil, fail(item.ValueExpr.Range(), keyField, "environment variable %s is not set (or empty)", missing[0])
		}
		if diags.HasErrors() {
			// HCL's diagnostics name what is wrong (an unknown function or
			// variable), not the values.
			msg := diags[0].Summary
			if d := diags[0].Detail; d != "" {
				msg += ": " + d
			}
			return nil, fail(item.ValueExpr.Range(), keyField, "%s", msg)
		}
		if v.IsNull() {
			return nil, fail(item.ValueExpr.Range(), keyField, "must not be null")
		}
		s, err := convert.Convert(v, cty.String)
		if err != nil || !s.IsKnown() || s.IsNull() {
			return nil, fail(item.ValueExpr.Range(), keyField, "must be a string, number or bool, not %s", v.Type().FriendlyName())
		}
		out[key] = s.AsString()
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// envFunction is the config's env("NAME"): the value of the host's
// environment variable NAME. A missing or empty variable is recorded in
// missing and fails the call.
func envFunction(getenv func(string) string, missing *[]string) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the value of an environment variable of the host.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			name := args[0].AsString()
			v := getenv(name)
			if v == "" {
				*missing = append(*missing, name)
				return cty.NilVal, fmt.Errorf("environment variable %s is not set", name)
			}
			return cty.StringVal(v), nil
		},
	})
}
