package content

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/seo"
)

// MaxBlogImages bounds the images of one blog post.
const MaxBlogImages = 6

// BlogImage asks for one image of a blog post.
type BlogImage struct {
	Prompt   string `json:"prompt,omitempty"`
	Purpose  string `json:"purpose,omitempty"`
	Alt      string `json:"alt,omitempty"`
	Position string `json:"position,omitempty"`
}

// BlogInput is a process-blog-post-with-images request.
type BlogInput struct {
	Title          string      `json:"title"`
	Content        string      `json:"content"`
	Images         []BlogImage `json:"images"`
	GenerateImages *bool       `json:"generateImages,omitempty"`
	Model          string      `json:"model,omitempty"`
	ImageModel     string      `json:"imageModel"`
	BrandVoiceID   string      `json:"brandVoiceId,omitempty"`
	Keywords       []string    `json:"keywords,omitempty"`
}

// validate checks the request and fills the defaults: one hero image when
// none are given, purpose blog, image model gpt-image-1.
func (in *BlogInput) validate() error {
	in.Title = strings.TrimSpace(in.Title)
	if in.Title == "" {
		return apierr.Invalid("title is required")
	}
	if utf8.RuneCountInString(in.Title) > MaxTitleChars {
		return apierr.Invalid("title is longer than %d characters", MaxTitleChars)
	}
	if err := checkContent(in.Content); err != nil {
		return err
	}
	if len(in.Keywords) > MaxKeywords {
		return apierr.Invalid("keywords has %d entries; the limit is %d", len(in.Keywords), MaxKeywords)
	}
	generateImages := in.GenerateImages == nil || *in.GenerateImages
	if !generateImages && len(in.Images) > 0 {
		return apierr.Invalid("images must be empty when generateImages is false")
	}
	if generateImages && len(in.Images) == 0 {
		in.Images = []BlogImage{{Position: "hero"}}
	}
	if len(in.Images) > MaxBlogImages {
		return apierr.Invalid("images has %d entries; the limit is %d", len(in.Images), MaxBlogImages)
	}
	if in.ImageModel == "" {
		in.ImageModel = generate.DefaultImageModel
	}
	if !slices.Contains(generate.ImageModels, in.ImageModel) {
		return apierr.Invalid("imageModel must be one of %s; got %q", strings.Join(generate.ImageModels, ", "), in.ImageModel)
	}
	nHeadings := len(headings(in.Content))
	for i := range in.Images {
		im := &in.Images[i]
		if im.Position == "" {
			if i == 0 {
				im.Position = "hero"
			} else {
				im.Position = fmt.Sprintf("after-heading:%d", i)
			}
		}
		n, ok := parsePosition(im.Position)
		if !ok {
			return apierr.Invalid(`images[%d].position must be "hero" or "after-heading:<n>" (n from 1); got %q`, i, im.Position)
		}
		if n > nHeadings {
			return apierr.Invalid("images[%d].position %q: the content has %d headings", i, im.Position, nHeadings)
		}
		if im.Purpose == "" {
			im.Purpose = "blog"
		}
		if _, ok := generate.Presets[im.Purpose]; !ok {
			return apierr.Invalid("images[%d].purpose must be one of blog, linkedin, portrait, square; got %q", i, im.Purpose)
		}
		if utf8.RuneCountInString(im.Prompt) > generate.MaxImagePromptChars {
			return apierr.Invalid("images[%d].prompt is longer than %d characters", i, generate.MaxImagePromptChars)
		}
		if utf8.RuneCountInString(im.Alt) > 500 {
			return apierr.Invalid("images[%d].alt is longer than 500 characters", i)
		}
	}
	return nil
}

// PlacedImage is a generated image in the processed post.
type PlacedImage struct {
	URL      string `json:"url"`
	Alt      string `json:"alt"`
	Prompt   string `json:"prompt"`
	Position string `json:"position"`
}

// BlogResult is the result of a blog job: ready for POST /v1/scheduler/create.
type BlogResult struct {
	Title      string             `json:"title"`
	Content    string             `json:"content"`
	Images     []PlacedImage      `json:"images"`
	SEO        seo.Result         `json:"seo"`
	BrandVoice *generate.VoiceRef `json:"brandVoice"`
}

type blogJobData struct {
	Principal principal `json:"principal"`
	Input     BlogInput `json:"input"`
}

// QueueBlogPost checks the request and queues it on contentQueue. Each
// image costs one AI credit, paid when it is generated; the request is
// refused (403) up front when the allowance cannot cover all of them.
func (s *Service) QueueBlogPost(ctx context.Context, p auth.Principal, in BlogInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if _, err := s.gen.ResolveVoice(ctx, p, in.BrandVoiceID); err != nil {
		return "", err
	}
	if n := len(in.Images); n > 0 {
		if err := s.quota.CheckCredits(ctx, p, n); err != nil {
			return "", err
		}
	}
	id, err := s.queue.Enqueue(ctx, jobs.NewJob{Workspace: p.WorkspaceID, Queue: jobs.ContentQueue, Name: JobBlogPost,
		Data: blogJobData{Principal: toStored(p), Input: in}})
	if err != nil {
		return "", fmt.Errorf("queue blog post: %w", err)
	}
	return id, nil
}

// blogProgress is the partial result pollers see while images are made.
type blogProgress struct {
	Done   int           `json:"imagesDone"`
	Total  int           `json:"imagesTotal"`
	Images []PlacedImage `json:"images"`
}

// RunBlogPost runs a JobBlogPost job.
func (s *Service) RunBlogPost(ctx context.Context, job *jobs.Job) (any, error) {
	var d blogJobData
	if err := job.Decode(&d); err != nil {
		return nil, err
	}
	p, in := d.Principal.auth(), d.Input
	voice, err := s.gen.ResolveVoice(ctx, p, in.BrandVoiceID)
	if err != nil {
		return nil, jobs.NoRetry(err)
	}
	var ref *generate.VoiceRef
	if voice != nil {
		ref = &generate.VoiceRef{ID: voice.ID, Name: voice.Name}
	}
	s.fillImageTexts(ctx, p, &in)
	total := len(in.Images)
	placedImgs := make([]PlacedImage, 0, total)
	for i, im := range in.Images {
		img, err := s.gen.GenerateImage(ctx, p, generate.ImageInput{Text: im.Prompt, Model: in.ImageModel, Purpose: im.Purpose})
		if err != nil {
			return nil, jobs.NoRetry(fmt.Errorf("image %d of %d: %s", i+1, total, message(err)))
		}
		placedImgs = append(placedImgs, PlacedImage{URL: img.URL, Alt: im.Alt, Prompt: im.Prompt, Position: im.Position})
		// Images are 90% of the work; scoring takes the rest.
		if err := job.Progress(ctx, 90*(i+1)/total, blogProgress{Done: i + 1, Total: total, Images: placedImgs}); err != nil {
			return nil, err
		}
	}
	content := insertImages(in.Content, placedImgs)
	score, err := seo.Score(seo.Input{Content: content, Title: in.Title, Keywords: in.Keywords, AutoExtract: true})
	if err != nil {
		return nil, jobs.NoRetry(fmt.Errorf("score the post: %w", err))
	}
	return BlogResult{Title: in.Title, Content: content, Images: placedImgs, SEO: score, BrandVoice: ref}, nil
}

// message is an error's client message (apierr messages without the code).
func message(err error) string {
	type messager interface{ Message() string }
	if m, ok := err.(messager); ok {
		return m.Message()
	}
	return err.Error()
}

// fillImageTexts writes the missing prompts and alt texts: with the text
// model (in the brand voice) when one is available, else from templates.
// A model failure falls back to the templates: the images matter more than
// the wording of their prompts.
func (s *Service) fillImageTexts(ctx context.Context, p auth.Principal, in *BlogInput) {
	heads := headingTexts(in.Content)
	section := func(im BlogImage) string {
		if n, _ := parsePosition(im.Position); n > 0 && n <= len(heads) {
			return heads[n-1]
		}
		return ""
	}
	missing := false
	for _, im := range in.Images {
		missing = missing || strings.TrimSpace(im.Prompt) == "" || strings.TrimSpace(im.Alt) == ""
	}
	if !missing {
		return
	}
	var written []struct{ Prompt, Alt string }
	if model, err := s.model(in.Model); err == nil {
		written = s.writeImageTexts(ctx, p, model, in, section)
	}
	for i := range in.Images {
		im := &in.Images[i]
		sec := section(*im)
		if strings.TrimSpace(im.Prompt) == "" {
			if i < len(written) && meaningful(written[i].Prompt) {
				im.Prompt = written[i].Prompt
			} else if sec != "" {
				im.Prompt = fmt.Sprintf("Editorial illustration for the section %q of a blog post titled %q. Clean, modern style, no text or lettering in the image.", sec, in.Title)
			} else {
				im.Prompt = fmt.Sprintf("Editorial header image for a blog post titled %q. Clean, modern style, no text or lettering in the image.", in.Title)
			}
		}
		if strings.TrimSpace(im.Alt) == "" {
			if i < len(written) && meaningful(written[i].Alt) {
				im.Alt = written[i].Alt
			} else if sec != "" {
				im.Alt = "Illustration: " + sec
			} else {
				im.Alt = "Illustration: " + in.Title
			}
		}
	}
}

// meaningful rejects what a model copies from the answer template ("...").
func meaningful(s string) bool {
	return len(strings.Trim(s, " .…\t\n\"'")) >= 3
}

func (s *Service) writeImageTexts(ctx context.Context, p auth.Principal, model string, in *BlogInput, section func(BlogImage) string) []struct{ Prompt, Alt string } {
	var b strings.Builder
	fmt.Fprintf(&b, "A blog post titled %q needs %d images. For each, write an image-generation prompt (no text in the image) and a short alt text (under 125 characters) that describes the image for screen readers.\n", in.Title, len(in.Images))
	b.WriteString(`Answer with a JSON array only, one object per image in order: [{"prompt": "...", "alt": "..."}].` + "\n\nImages:\n")
	for i, im := range in.Images {
		where := "hero image at the top"
		if sec := section(im); sec != "" {
			where = fmt.Sprintf("after the heading %q", sec)
		}
		fmt.Fprintf(&b, "%d. %s", i+1, where)
		if im.Prompt != "" {
			fmt.Fprintf(&b, "; prompt given: %q", im.Prompt)
		}
		b.WriteString("\n")
	}
	excerpt := []rune(in.Content)
	if len(excerpt) > 6000 {
		excerpt = excerpt[:6000]
	}
	b.WriteString("\nPost:\n")
	b.WriteString(string(excerpt))
	res, _, err := s.gen.GenerateText(ctx, p, generate.TextInput{Model: model, Text: b.String(), BrandVoiceID: in.BrandVoiceID})
	if err != nil {
		s.log.Warn("write image prompts; using templates", "workspace", p.WorkspaceID, "error", err)
		return nil
	}
	var out []struct{ Prompt, Alt string }
	text := stripFences(res.Text)
	if i, j := strings.IndexByte(text, '['), strings.LastIndexByte(text, ']'); i >= 0 && j > i {
		text = text[i : j+1]
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		s.log.Warn("image prompts are not JSON; using templates", "workspace", p.WorkspaceID)
		return nil
	}
	return out
}
