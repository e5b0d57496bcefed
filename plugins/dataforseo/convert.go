package dataforseo

import (
	"strings"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// response is the envelope of a live task's answer.
type response struct {
	StatusCode    int    `json:"status_code"`
	StatusMessage string `json:"status_message"`
	Tasks         []struct {
		StatusCode    int    `json:"status_code"`
		StatusMessage string `json:"status_message"`
		Result        []struct {
			Items []item `json:"items"`
		} `json:"result"`
	} `json:"tasks"`
}

// item is one element of a result page; Herald reads the ai_overview one:
// its markdown, else its elements' text, and its references.
type item struct {
	Type       string      `json:"type"`
	Markdown   string      `json:"markdown"`
	Text       string      `json:"text"`
	Items      []item      `json:"items"`
	References []reference `json:"references"`
}

type reference struct {
	Source string `json:"source"`
	Domain string `json:"domain"`
	URL    string `json:"url"`
	Title  string `json:"title"`
}

// answer turns an ai_overview item into a response: its markdown (else the
// text of its elements) as the text, its references (then its elements')
// as citations, each URL once. An overview with no text is no answer.
func answer(model string, ov item) sdk.TextResponse {
	text := strings.TrimSpace(ov.Markdown)
	if text == "" {
		var parts []string
		for _, el := range ov.Items {
			if s := strings.TrimSpace(el.Text); s != "" {
				parts = append(parts, s)
			}
		}
		text = strings.Join(parts, "\n\n")
	}
	if text == "" {
		return sdk.TextResponse{Model: model, FinishReason: sdk.FinishNoAnswer}
	}
	var cites provider.Citations
	refs := ov.References
	for _, el := range ov.Items {
		refs = append(refs, el.References...)
	}
	for _, r := range refs {
		cites.Add(r.URL, r.Title, r.Source)
	}
	return sdk.TextResponse{Text: text, Model: model, FinishReason: "stop", Citations: cites.List()}
}
