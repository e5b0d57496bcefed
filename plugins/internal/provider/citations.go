package provider

import "github.com/heraldhq/herald/sdk"

// Citations collects an answer's citations in the engine's order, each URL
// once; a title seen later fills a citation that had none, and an empty
// title falls back to the name given with it (a source's site name).
type Citations struct {
	list  []sdk.Citation
	index map[string]int
}

// Add adds url with title (else fallback); an empty url is skipped.
func (c *Citations) Add(url, title, fallback string) {
	if url == "" {
		return
	}
	if title == "" {
		title = fallback
	}
	if c.index == nil {
		c.index = map[string]int{}
	}
	if i, ok := c.index[url]; ok {
		if c.list[i].Title == "" {
			c.list[i].Title = title
		}
		return
	}
	c.index[url] = len(c.list)
	c.list = append(c.list, sdk.Citation{URL: url, Title: title})
}

// List returns the citations, nil when none.
func (c *Citations) List() []sdk.Citation { return c.list }
