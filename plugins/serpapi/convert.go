package serpapi

import (
	"strings"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// searchResponse is the part of a google (or google_ai_overview) search
// Herald reads: the AI Overview, absent when Google showed none.
type searchResponse struct {
	AIOverview *aiOverview `json:"ai_overview"`
}

type aiOverview struct {
	TextBlocks []textBlock `json:"text_blocks"`
	References []reference `json:"references"`
	// PageToken is set instead of the text blocks when the overview must
	// be fetched with the google_ai_overview engine.
	PageToken string `json:"page_token"`
}

// aiModeResponse is the part of a google_ai_mode search Herald reads.
type aiModeResponse struct {
	TextBlocks []textBlock `json:"text_blocks"`
	References []reference `json:"references"`
	Markdown   string      `json:"reconstructed_markdown"`
}

// textBlock is one block of an AI answer: a paragraph or heading
// (snippet), a list (list items, each a block), a table, code, or an
// expandable section holding more blocks.
type textBlock struct {
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Snippet    string      `json:"snippet"`
	List       []textBlock `json:"list"`
	TextBlocks []textBlock `json:"text_blocks"`
	Table      [][]string  `json:"table"`
	Code       string      `json:"code"`
}

type reference struct {
	Title   string `json:"title"`
	Link    string `json:"link"`
	Snippet string `json:"snippet"`
	Source  string `json:"source"`
	Index   int    `json:"index"`
}

// answer builds the response: the blocks' text (or AI Mode's markdown when
// it has no blocks), the references as citations, each link once; no text
// at all is no AI answer for the query.
func answer(model string, blocks []textBlock, refs []reference, markdown string) sdk.TextResponse {
	var b strings.Builder
	writeBlocks(&b, blocks, "")
	text := strings.TrimSpace(b.String())
	if text == "" {
		text = strings.TrimSpace(markdown)
	}
	if text == "" {
		return sdk.TextResponse{Model: model, FinishReason: sdk.FinishNoAnswer}
	}
	var cites provider.Citations
	for _, r := range refs {
		cites.Add(r.Link, r.Title, r.Source)
	}
	return sdk.TextResponse{Text: text, Model: model, FinishReason: "stop", Citations: cites.List()}
}

// writeBlocks renders blocks as plain text: paragraphs apart, list items
// as "- " lines (nested lists indented), table rows with " | ".
func writeBlocks(b *strings.Builder, blocks []textBlock, indent string) {
	for _, t := range blocks {
		switch t.Type {
		case "list":
			for _, item := range t.List {
				line := item.Snippet
				if item.Title != "" {
					line = strings.TrimSpace(item.Title + " " + item.Snippet)
				}
				b.WriteString(indent + "- " + line + "\n")
				if len(item.List) > 0 {
					writeBlocks(b, []textBlock{{Type: "list", List: item.List}}, indent+"  ")
				}
				writeBlocks(b, item.TextBlocks, indent+"  ")
			}
			if indent == "" {
				b.WriteString("\n")
			}
		case "table":
			for _, row := range t.Table {
				b.WriteString(strings.Join(row, " | ") + "\n")
			}
			b.WriteString("\n")
		case "code_block":
			b.WriteString(t.Code + "\n\n")
		case "expandable":
			if t.Title != "" {
				b.WriteString(t.Title + "\n\n")
			}
			writeBlocks(b, t.TextBlocks, indent)
		default: // paragraph, heading
			if t.Snippet != "" {
				b.WriteString(indent + t.Snippet + "\n\n")
			}
		}
	}
}
