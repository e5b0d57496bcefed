package agent

import (
	"context"
	"encoding/json"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/store"
)

// Document kinds in the workspace context.
const (
	DocumentText      = "generated_text" // a text generation job's text
	DocumentBlogDraft = "blog_draft"     // a generated blog post, or a scheduler draft
	DocumentPublished = "published_post" // a post the scheduler published
)

// JobBlogPost is the contentQueue job that writes a blog post (content's
// JobBlogPost; agent does not import content, and a test in host/ pins
// the two equal).
const JobBlogPost = "blog_post_with_images"

// contextDocuments is how many documents the context lists.
const contextDocuments = 10

// maxDocumentTitle caps a document's title in the context.
const maxDocumentTitle = 120

// Document is one of the workspace's recent texts: what it is, when, and
// where to read it (an API path for a job's result or a draft, the
// published URL for a post).
type Document struct {
	ID, Title, Kind string
	// Date is epoch milliseconds: when the text was generated, the draft
	// last changed, or the post published.
	Date int64
	Link string
}

// documents lists the workspace's newest generated texts, blog drafts and
// published posts, newest first.
func (s *Service) documents(ctx context.Context, workspaceID string) ([]Document, error) {
	// A service built without the job queue or the scheduler lists none
	// of theirs.
	var jobs []jobstore.FinishedJob
	var posts []store.Schedule
	var err error
	if s.jobs != nil {
		if jobs, err = s.jobs.RecentGenerated(ctx, workspaceID, []string{JobBlogPost}, contextDocuments); err != nil {
			return nil, err
		}
	}
	if s.scheduler != nil {
		if posts, err = s.scheduler.RecentPosts(ctx, workspaceID, contextDocuments); err != nil {
			return nil, err
		}
	}
	out := make([]Document, 0, len(jobs)+len(posts))
	for _, j := range jobs {
		out = append(out, jobDocument(j))
	}
	for _, sc := range posts {
		out = append(out, postDocument(sc))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Date > out[j].Date })
	return out[:min(len(out), contextDocuments)], nil
}

func jobDocument(j jobstore.FinishedJob) Document {
	d := Document{ID: j.ID, Kind: DocumentText, Date: j.FinishedOn, Link: "/v1/ai/generate/job/" + j.ID}
	var res struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	if j.Result != nil {
		_ = json.Unmarshal([]byte(*j.Result), &res)
	}
	var data struct {
		Text  string `json:"text"`
		Title string `json:"title"`
	}
	_ = json.Unmarshal([]byte(j.Data), &data)
	if j.Queue == "contentQueue" {
		d.Kind = DocumentBlogDraft
		d.Title = titleOf(res.Title, data.Title)
		return d
	}
	d.Title = titleOf(firstLine(res.Text), data.Text)
	return d
}

func postDocument(sc store.Schedule) Document {
	var c struct {
		Title, Text, Content string
	}
	_ = json.Unmarshal([]byte(sc.Content), &c)
	d := Document{ID: sc.ID, Kind: DocumentBlogDraft, Date: sc.UpdatedAt, Link: "/v1/scheduler/" + sc.ID,
		Title: titleOf(c.Title, firstLine(c.Text), firstLine(c.Content))}
	if sc.Status == store.SchedulePublished {
		d.Kind = DocumentPublished
		if sc.PublishedAt != nil {
			d.Date = *sc.PublishedAt
		}
		if sc.ExternalURL != nil && *sc.ExternalURL != "" {
			d.Link = *sc.ExternalURL
		}
	}
	return d
}

// titleOf is the first non-empty candidate, on one line, clipped.
func titleOf(candidates ...string) string {
	for _, c := range candidates {
		c = strings.Join(strings.Fields(c), " ")
		if c == "" {
			continue
		}
		if utf8.RuneCountInString(c) > maxDocumentTitle {
			c = string([]rune(c)[:maxDocumentTitle-1]) + "…"
		}
		return c
	}
	return ""
}

// firstLine is a text's first non-empty line without Markdown heading
// marks or emphasis.
func firstLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if l := strings.Trim(strings.TrimSpace(line), "#*_ \t"); l != "" {
			return l
		}
	}
	return ""
}
