package apiconv_test

import (
	"math"
	"testing"

	"github.com/heraldhq/herald/host/internal/apiconv"
)

func TestStructTakesAnyJSONShapedValue(t *testing.T) {
	t.Parallel()
	score := 42.5
	type point struct {
		Name string `json:"name"`
	}
	st, err := apiconv.Struct(map[string]any{
		"required": []string{"a", "b"},
		"labels":   map[string]string{"x": "y"},
		"score":    &score,
		"missing":  (*float64)(nil),
		"points":   []point{{Name: "p"}},
		"plain":    []any{"z", 1.0},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := st.AsMap()
	if r := m["required"].([]any); len(r) != 2 || r[1] != "b" {
		t.Fatalf("required = %v", m["required"])
	}
	if m["labels"].(map[string]any)["x"] != "y" || m["score"] != 42.5 || m["missing"] != nil {
		t.Fatalf("struct = %v", m)
	}
	if m["points"].([]any)[0].(map[string]any)["name"] != "p" || m["plain"].([]any)[1] != 1.0 {
		t.Fatalf("struct = %v", m)
	}
}

func TestStructRefusesWhatJSONCannotHold(t *testing.T) {
	t.Parallel()
	if _, err := apiconv.Struct(map[string]any{"f": func() {}}); err == nil {
		t.Fatal("a function converted")
	}
	if _, err := apiconv.Struct(map[string]any{"n": []float64{math.NaN()}}); err == nil {
		t.Fatal("NaN converted")
	}
	if st, err := apiconv.Struct(nil); st != nil || err != nil {
		t.Fatalf("nil = %v, %v", st, err)
	}
}
