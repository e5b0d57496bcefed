package generate

import (
	"slices"
	"strings"
)

// PreferredTextModel is the default text model of routes that let the
// model be omitted, when it is configured.
const PreferredTextModel = "gpt-4o-mini"

// DefaultTextModel is PreferredTextModel when configured, else the first
// configured model (by name) that is not an image model; "" when none.
func (s *Service) DefaultTextModel() string { return DefaultTextModelOf(s.models.Models()) }

// DefaultTextModelOf is DefaultTextModel of the configured models.
func DefaultTextModelOf(configured []string) string {
	models := slices.Sorted(slices.Values(configured))
	if slices.Contains(models, PreferredTextModel) {
		return PreferredTextModel
	}
	for _, m := range models {
		if !slices.Contains(ImageModels, m) && !strings.Contains(m, "image") {
			return m
		}
	}
	return ""
}
