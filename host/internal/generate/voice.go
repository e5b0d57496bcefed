package generate

import (
	"context"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
)

// Voice is a brand voice to write in.
type Voice struct {
	ID, Name string
	// Content is the voice's text, written into the system prompt.
	Content string
}

// VoiceRef names the brand voice a generation used.
type VoiceRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// MaxVoicePromptChars bounds how much of a voice goes into a system
// prompt; longer voices (a whole website's text) are cut at a paragraph.
const MaxVoicePromptChars = 12_000

// ResolveVoice returns the caller's voice id, or nil for an empty id.
func (s *Service) ResolveVoice(ctx context.Context, p auth.Principal, id string) (*Voice, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, nil
	}
	if s.voices == nil {
		return nil, errNoVoices
	}
	v, err := s.voices.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return &Voice{ID: v.ID, Name: v.Name, Content: v.Content}, nil
}

// VoiceSystem is the system prompt that makes a model write in voice v,
// followed by the caller's own system prompt when there is one.
func VoiceSystem(v *Voice, system string) string {
	if v == nil {
		return system
	}
	content := v.Content
	if r := []rune(content); len(r) > MaxVoicePromptChars {
		content = string(r[:MaxVoicePromptChars])
		if i := strings.LastIndex(content, "\n\n"); i > MaxVoicePromptChars/2 {
			content = content[:i]
		}
	}
	var b strings.Builder
	b.WriteString("Write in the brand voice \"")
	b.WriteString(v.Name)
	b.WriteString("\". Match its tone, vocabulary, sentence style and point of view; do not copy its sentences or facts.\n\n<brand_voice>\n")
	b.WriteString(content)
	b.WriteString("\n</brand_voice>")
	if strings.TrimSpace(system) != "" {
		b.WriteString("\n\n")
		b.WriteString(system)
	}
	return b.String()
}

// applyVoice resolves in.BrandVoiceID and puts the voice into the system
// option of in.
func (s *Service) applyVoice(ctx context.Context, p auth.Principal, in *TextInput) (*VoiceRef, error) {
	v, err := s.ResolveVoice(ctx, p, in.BrandVoiceID)
	if err != nil || v == nil {
		return nil, err
	}
	opts := make(map[string]any, len(in.Options)+1)
	for k, val := range in.Options {
		opts[k] = val
	}
	system, _ := opts["system"].(string)
	opts["system"] = VoiceSystem(v, system)
	in.Options = opts
	return &VoiceRef{ID: v.ID, Name: v.Name}, nil
}

var errNoVoices = apierr.Unavailable("brand voices are not available on this host")
