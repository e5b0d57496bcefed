package openai

import (
	"encoding/json"

	oai "github.com/openai/openai-go/v3"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// citations returns the sources of a chat completion, each URL once:
// first Perplexity's top-level citations (the URLs its [1], [2] markers
// number), then its search_results not already listed, then OpenAI's
// url_citation annotations on the message. A title found in any of them
// fills a citation that lacks one.
func citations(resp *oai.ChatCompletion) []sdk.Citation {
	var c provider.Citations
	// openai-go does not model Perplexity's extra fields; it keeps each
	// field's raw JSON, so only those are decoded again (not the whole
	// response).
	var cited []string
	var results []struct {
		Title string `json:"title"`
		URL   string `json:"url"`
	}
	if f, ok := resp.JSON.ExtraFields["citations"]; ok {
		_ = json.Unmarshal([]byte(f.Raw()), &cited)
	}
	if f, ok := resp.JSON.ExtraFields["search_results"]; ok {
		_ = json.Unmarshal([]byte(f.Raw()), &results)
	}
	for _, u := range cited {
		c.Add(u, "", "")
	}
	for _, r := range results {
		c.Add(r.URL, r.Title, "")
	}
	if len(resp.Choices) > 0 {
		for _, a := range resp.Choices[0].Message.Annotations {
			if a.Type == "url_citation" {
				c.Add(a.URLCitation.URL, a.URLCitation.Title, "")
			}
		}
	}
	return c.List()
}
