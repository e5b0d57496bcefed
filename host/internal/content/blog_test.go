package content_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/sdk"
)

const post = `# Garden tools guide

Good garden tools make the work easy.

## Choosing garden tools

Pick tools with a solid handle.

## Caring for them

Clean and oil them after use.`

type blogResult struct {
	Title   string `json:"title"`
	Content string `json:"content"`
	Images  []struct {
		URL, Alt, Prompt, Position string
	} `json:"images"`
	SEO struct {
		Score int `json:"score"`
		Stats struct {
			Images int `json:"images"`
		} `json:"stats"`
	} `json:"seo"`
	BrandVoice *struct{ ID, Name string } `json:"brandVoice"`
}

func TestBlogPostGetsImagesAtTheirPositions(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, 5)
		voiceID := b.voice(t, b.aliceP, "Plain", "We write short, warm sentences.", "team")
		// The text model writes the missing prompt and alt text as JSON.
		b.router.answer = func(req sdk.TextRequest, n int) (string, error) {
			return "```json\n[{\"prompt\":\"a rake on grass\",\"alt\":\"A rake on a lawn\"},{\"prompt\":\"ignored\",\"alt\":\"ignored\"}]\n```", nil
		}
		body := jsonBody(map[string]any{"title": "Garden tools guide", "content": post, "brandVoiceId": voiceID, "keywords": []string{"garden tools"},
			"images": []map[string]any{{"position": "hero"}, {"prompt": "an oiled spade", "alt": "A spade being oiled", "position": "after-heading:3", "purpose": "square"}}})
		q := b.rest(t, "/v1/ai/generate/process-blog-post-with-images", b.alice, body).Want(t, 202)
		if len(q.Body) != 2 || q.Body["jobId"] == nil || !strings.Contains(q.Body["message"].(string), "/v1/ai/generate/job/") {
			t.Fatalf("body %v", q.Body)
		}
		j := b.waitJob(t, b.aliceP.WorkspaceID, q.Body["jobId"].(string))
		if j.State != "completed" || j.Queue != "contentQueue" || j.Progress != 100 {
			t.Fatalf("job %+v", j)
		}
		var r blogResult
		if err := json.Unmarshal([]byte(*j.Result), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Images) != 2 || r.Images[0].Prompt != "a rake on grass" || r.Images[0].Alt != "A rake on a lawn" ||
			r.Images[1].Prompt != "an oiled spade" || r.Images[1].Alt != "A spade being oiled" {
			t.Fatalf("images %+v", r.Images)
		}
		for _, im := range r.Images {
			if !strings.HasPrefix(im.URL, "http://blobs.test/") {
				t.Fatalf("image url %q is not in the blob store", im.URL)
			}
		}
		want := "# Garden tools guide\n\n![A rake on a lawn](" + r.Images[0].URL + ")\n\nGood garden tools make the work easy." +
			"\n\n## Choosing garden tools\n\nPick tools with a solid handle.\n\n## Caring for them\n\n![A spade being oiled](" + r.Images[1].URL + ")\n\nClean and oil them after use."
		if r.Content != want {
			t.Fatalf("content:\n%s\nwant:\n%s", r.Content, want)
		}
		if r.Title != "Garden tools guide" || r.SEO.Stats.Images != 2 || r.SEO.Score == 0 || r.BrandVoice == nil || r.BrandVoice.ID != voiceID {
			t.Fatalf("result %+v", r)
		}
		// The images went to the image model with the purpose's size, and
		// the prompt writer wrote in the brand voice.
		if len(b.router.images) != 2 || b.router.images[0].Size != "1536x1024" || b.router.images[1].Size != "1024x1024" || b.router.images[1].Prompt != "an oiled spade" {
			t.Fatalf("image requests %+v", b.router.images)
		}
		if calls := b.router.textCalls(); len(calls) != 1 || !strings.Contains(calls[0].System, "warm sentences") {
			t.Fatalf("text calls %+v", calls)
		}
		if n := b.creditsUsed(t, b.aliceP); n != 2 {
			t.Fatalf("credits used %d, want 2 (one per image)", n)
		}
	})
}

func TestBlogPostDefaultsToAHeroImageFromTemplates(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	b.router.answer = func(sdk.TextRequest, int) (string, error) { return "not json", nil }
	q := b.connectCall(t, "ProcessBlogPostWithImages", b.alice, jsonBody(map[string]any{"title": "Garden tools", "content": "<h1>Garden tools</h1><p>Good tools help.</p>"})).Want(t, 200)
	j := b.waitJob(t, b.aliceP.WorkspaceID, q.Body["jobId"].(string))
	var r blogResult
	if err := json.Unmarshal([]byte(*j.Result), &r); err != nil || j.State != "completed" {
		t.Fatalf("job %+v %v", j, err)
	}
	if len(r.Images) != 1 || r.Images[0].Alt != "Illustration: Garden tools" || !strings.Contains(r.Images[0].Prompt, `"Garden tools"`) {
		t.Fatalf("images %+v", r.Images)
	}
	want := `<h1>Garden tools</h1><figure><img src="` + r.Images[0].URL + `" alt="Illustration: Garden tools"></figure><p>Good tools help.</p>`
	if r.Content != want {
		t.Fatalf("content %s\nwant %s", r.Content, want)
	}

	// generateImages false: no images, no credits, still scored.
	q = b.rest(t, "/v1/ai/generate/process-blog-post-with-images", b.alice, `{"title":"T","content":"Text.","generateImages":false}`).Want(t, 202)
	if j := b.waitJob(t, b.aliceP.WorkspaceID, q.Body["jobId"].(string)); j.State != "completed" || !strings.Contains(*j.Result, `"images":[]`) {
		t.Fatalf("job %+v", *j.Result)
	}
	if n := b.creditsUsed(t, b.aliceP); n != 1 {
		t.Fatalf("credits used %d, want 1", n)
	}
}

func TestBlogPostRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 1)
	foreign := b.voice(t, b.malP, "Other", "other style", "team")
	for _, face := range []func(string, string) apitest.Response{
		func(key, body string) apitest.Response {
			return b.rest(t, "/v1/ai/generate/process-blog-post-with-images", key, body)
		},
		func(key, body string) apitest.Response {
			return b.connectCall(t, "ProcessBlogPostWithImages", key, body)
		},
	} {
		face(b.alice, `{"content":"x"}`).WantError(t, 400, "title is required")
		face(b.alice, `{"title":"x"}`).WantError(t, 400, "content is required")
		face(b.alice, `{"title":"x","content":"## One\n\ntext","images":[{"position":"after-heading:2"}]}`).WantError(t, 400, "images[0].position", "1 headings")
		face(b.alice, `{"title":"x","content":"x","images":[{"position":"middle"}]}`).WantError(t, 400, "images[0].position")
		face(b.alice, `{"title":"x","content":"x","images":[{"purpose":"poster"}]}`).WantError(t, 400, "images[0].purpose")
		face(b.alice, `{"title":"x","content":"x","imageModel":"dall-e-9"}`).WantError(t, 400, "imageModel")
		face(b.alice, `{"title":"x","content":"x","generateImages":false,"images":[{}]}`).WantError(t, 400, "generateImages")
		face(b.alice, `{"title":"x","content":"x","brandVoiceId":"`+foreign+`"}`).WantError(t, 404, foreign)
		// Two images with one credit left: refused before any work.
		face(b.alice, `{"title":"x","content":"## A\n\nx","images":[{},{}]}`).WantError(t, 403, "credit")
		face("", `{"title":"x","content":"x"}`).Want(t, 401)
	}
	if len(b.router.images) != 0 || len(b.router.textCalls()) != 0 {
		t.Fatal("refused requests reached a model")
	}
}

func TestBlogPostFailsWhenAnImageFails(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	b.router.imgErrs = []error{nil, &sdk.Error{Code: sdk.CodeInvalidArgument, Message: "prompt rejected by safety system"}}
	q := b.rest(t, "/v1/ai/generate/process-blog-post-with-images", b.alice, `{"title":"x","content":"## A\n\nx","images":[{"prompt":"p","alt":"a"},{"prompt":"q","alt":"b"}]}`).Want(t, 202)
	j := b.waitJob(t, b.aliceP.WorkspaceID, q.Body["jobId"].(string))
	if j.State != "failed" || j.FailedReason == nil || !strings.Contains(*j.FailedReason, "image 2 of 2") || !strings.Contains(*j.FailedReason, "rejected") {
		t.Fatalf("job %+v", j)
	}
	if n := b.creditsUsed(t, b.aliceP); n != 1 {
		t.Fatalf("credits used %d, want 1: only the generated image is paid", n)
	}
	// Progress was reported for the first image.
	if j.Progress != 45 {
		t.Fatalf("progress %d, want 45 after one of two images; result %v", j.Progress, j.Result)
	}
}
