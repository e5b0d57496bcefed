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
	// openai-go does not model Perplexity's extra fields; read them from
	// the response's raw JSON.
	var extra struct {
		Citations     []string `json:"citations"`
		SearchResults []struct {
			Title string `json:"title"`
			URL   string `json:"url"`
		} `json:"search_results"`
	}
	if raw := resp.RawJSON(); raw != "" {
		_ = json.Unmarshal([]byte(raw), &extra)
	}
	for _, u := range extra.Citations {
		c.Add(u, "", "")
	}
	for _, r := range extra.SearchResults {
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
