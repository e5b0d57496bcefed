package content

import (
	"context"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/seo"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves ContentService on both API faces.
type Handler struct{ svc *Service }

var _ apiv1connect.ContentServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// CalculateSEOScore scores content.
func (h *Handler) CalculateSEOScore(ctx context.Context, req *connect.Request[apiv1.CalculateSEOScoreRequest]) (*connect.Response[apiv1.CalculateSEOScoreResponse], error) {
	if _, err := auth.Caller(ctx); err != nil {
		return nil, err
	}
	m := req.Msg
	res, err := h.svc.Score(ScoreInput{Content: m.Content, Title: m.Title, Keywords: m.Keywords, AutoExtract: m.AutoExtractKeywords, Language: m.Language, WordForms: m.WordForms})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CalculateSEOScoreResponse{Message: "SEO score calculated", Data: scoreProto(res)}), nil
}

// ImproveContentSimple improves content inline, or queues it with useWorker.
func (h *Handler) ImproveContentSimple(ctx context.Context, req *connect.Request[apiv1.ImproveContentSimpleRequest]) (*connect.Response[apiv1.ImproveContentSimpleResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	in := SimpleInput{Content: m.Content, ImprovePrompt: m.ImprovePrompt, MetricType: m.MetricType, Model: m.Model, BrandVoiceID: m.BrandVoiceId}
	if m.UseWorker {
		id, err := h.svc.QueueImproveSimple(ctx, p, in)
		if err != nil {
			return nil, err
		}
		return connect.NewResponse(&apiv1.ImproveContentSimpleResponse{Message: apiconv.JobQueued(id), Outcome: &apiv1.ImproveContentSimpleResponse_JobId{JobId: id}}), nil
	}
	out, err := h.svc.ImproveSimple(ctx, p, in)
	if err != nil {
		return nil, err
	}
	data := &apiv1.ImprovedContent{Content: out.Content, Model: out.Model, Usage: usageProto(out.Usage), BrandVoice: voiceRefProto(out.BrandVoice)}
	if out.MetricType != "" {
		data.MetricType = &out.MetricType
	}
	return connect.NewResponse(&apiv1.ImproveContentSimpleResponse{Message: "Content improved", Outcome: &apiv1.ImproveContentSimpleResponse_Data{Data: data}}), nil
}

// ImproveContentWithValidation improves, validates and re-scores content.
func (h *Handler) ImproveContentWithValidation(ctx context.Context, req *connect.Request[apiv1.ImproveContentWithValidationRequest]) (*connect.Response[apiv1.ImproveContentWithValidationResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	in := ValidatedInput{Content: m.Content, ImprovePrompt: m.ImprovePrompt, Keywords: m.Keywords, Title: m.Title, Model: m.Model, BrandVoiceID: m.BrandVoiceId, Language: m.Language, WordForms: m.WordForms}
	if m.MinScore != nil {
		v := int(*m.MinScore)
		in.MinScore = &v
	}
	if m.MaxLengthChange != nil {
		v := int(*m.MaxLengthChange)
		in.MaxLengthChange = &v
	}
	if m.UseWorker {
		id, err := h.svc.QueueImproveValidated(ctx, p, in)
		if err != nil {
			return nil, err
		}
		return connect.NewResponse(&apiv1.ImproveContentWithValidationResponse{Message: apiconv.JobQueued(id), Outcome: &apiv1.ImproveContentWithValidationResponse_JobId{JobId: id}}), nil
	}
	out, err := h.svc.ImproveValidated(ctx, p, in)
	if err != nil {
		return nil, err
	}
	data := &apiv1.ValidatedImprovement{
		Content: out.Content, Before: scoreProto(out.Before), After: scoreProto(out.After), Attempts: int32(out.Attempts),
		Model: out.Model, Usage: usageProto(out.Usage), BrandVoice: voiceRefProto(out.BrandVoice),
		Validation: &apiv1.ContentValidation{Passed: out.Validation.Passed},
	}
	for _, c := range out.Validation.Checks {
		data.Validation.Checks = append(data.Validation.Checks, &apiv1.ValidationCheck{Id: c.ID, Passed: c.Passed, Detail: c.Detail})
	}
	msg := "Content improved and validated"
	if !out.Validation.Passed {
		msg = "Content improved; some validation checks failed"
	}
	return connect.NewResponse(&apiv1.ImproveContentWithValidationResponse{Message: msg, Outcome: &apiv1.ImproveContentWithValidationResponse_Data{Data: data}}), nil
}

// ProcessBlogPostWithImages queues a blog post's image pipeline.
func (h *Handler) ProcessBlogPostWithImages(ctx context.Context, req *connect.Request[apiv1.ProcessBlogPostWithImagesRequest]) (*connect.Response[apiv1.ProcessBlogPostWithImagesResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	in := BlogInput{Title: m.Title, Content: m.Content, GenerateImages: m.GenerateImages, Model: m.Model, ImageModel: m.ImageModel, BrandVoiceID: m.BrandVoiceId, Keywords: m.Keywords}
	for _, im := range m.Images {
		in.Images = append(in.Images, BlogImage{Prompt: im.Prompt, Purpose: im.Purpose, Alt: im.Alt, Position: im.Position})
	}
	id, err := h.svc.QueueBlogPost(ctx, p, in)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.ProcessBlogPostWithImagesResponse{Message: apiconv.JobQueued(id), JobId: id}), nil
}

func voiceRefProto(v *VoiceRef) *apiv1.BrandVoiceRef {
	if v == nil {
		return nil
	}
	return &apiv1.BrandVoiceRef{Id: v.ID, Name: v.Name}
}

func usageProto(u Usage) *apiv1.Usage {
	return &apiv1.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
}

func scoreProto(r seo.Result) *apiv1.SEOScore {
	out := &apiv1.SEOScore{
		Score: int32(r.Score),
		Readability: &apiv1.SEOReadability{
			Score: int32(r.Readability.Score), FleschReadingEase: r.Readability.FleschReadingEase, Language: r.Readability.Language,
			AverageSentenceLength: r.Readability.AverageSentenceLength, LongSentencesPercent: r.Readability.LongSentencesPercent,
			PassiveVoicePercent: r.Readability.PassivePercent, TransitionWordsPercent: r.Readability.TransitionPercent,
			Rating: r.Readability.Rating, FleschFormula: r.Readability.FleschFormula,
		},
		Seo: &apiv1.SEOSummary{
			Score: int32(r.SEO.Score), Keyphrase: r.SEO.Keyphrase, Title: r.SEO.Title, TitleLength: int32(r.SEO.TitleLength),
			KeyphraseCount: int32(r.SEO.KeyphraseCount), KeyphraseDensity: r.SEO.Density,
			InternalLinks: int32(r.SEO.InternalLinks), OutboundLinks: int32(r.SEO.OutboundLinks),
			Rating: r.SEO.Rating, TitleWidth: int32(r.SEO.TitleWidth),
		},
		Stats: &apiv1.SEOStats{
			Words: int32(r.Stats.Words), Sentences: int32(r.Stats.Sentences), Paragraphs: int32(r.Stats.Paragraphs),
			Headings: int32(r.Stats.Headings), Links: int32(r.Stats.Links), Images: int32(r.Stats.Images),
		},
	}
	for _, k := range r.Keywords {
		out.Keywords = append(out.Keywords, &apiv1.SEOKeyword{Keyword: k.Keyword, Source: k.Source, Count: int32(k.Count), Density: k.Density})
	}
	for _, a := range r.Assessments {
		out.Assessments = append(out.Assessments, &apiv1.SEOAssessment{Id: a.ID, Category: a.Category, Rating: a.Rating, Score: int32(a.Score), Text: a.Text})
	}
	return out
}
