package generate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/sdk"
)

// Image models, sizes and qualities the image route accepts (SPEC).
var (
	ImageModels    = []string{"gpt-image-1", "gpt-image-1-mini", "gpt-image-1.5", "gpt-image-2"}
	ImageSizes     = []string{"1024x1024", "1536x1024", "1024x1536", "auto"}
	ImageQualities = []string{"low", "medium", "high", "auto"}
)

// DefaultImageModel is used when the request names none.
const DefaultImageModel = "gpt-image-1"

// CustomPurpose is the purpose of an image generated without a preset
// (also accepted as input, meaning no preset).
const CustomPurpose = "custom"

// Preset is the size and quality a purpose implies.
type Preset struct{ Size, Quality string }

// Presets are the purpose presets: landscape for LinkedIn and blog headers
// (the closest supported shape to 1.91:1 and 16:9), square for feeds,
// portrait for stories and pins. Explicit size or quality win.
var Presets = map[string]Preset{
	"linkedin": {Size: "1536x1024", Quality: "high"},
	"blog":     {Size: "1536x1024", Quality: "medium"},
	"square":   {Size: "1024x1024", Quality: "medium"},
	"portrait": {Size: "1024x1536", Quality: "high"},
}

// ImageInput is an image generation request.
type ImageInput struct {
	Text, Model, Size, Quality, Purpose string
}

// Image is a generated, stored image.
type Image struct {
	URL, Model, Size, Quality, Purpose string
}

func oneOf(field, value string, allowed []string) error {
	if !slices.Contains(allowed, value) {
		return apierr.Invalid("%s must be one of %s; got %q", field, strings.Join(allowed, ", "), value)
	}
	return nil
}

// validate checks the request and fills in the defaults: the default
// model, the purpose's preset size and quality (explicit ones win), else a
// high-quality square.
func (in *ImageInput) validate() error {
	if strings.TrimSpace(in.Text) == "" {
		return apierr.Invalid("text is required")
	}
	if n := utf8.RuneCountInString(in.Text); n > MaxImagePromptChars {
		return apierr.Invalid("text is %d characters; the limit is %d", n, MaxImagePromptChars)
	}
	if in.Model == "" {
		in.Model = DefaultImageModel
	}
	if err := oneOf("model", in.Model, ImageModels); err != nil {
		return err
	}
	if in.Purpose == "" {
		// SPEC types purpose as a string: without a preset it is "custom".
		in.Purpose = CustomPurpose
	}
	if in.Purpose != CustomPurpose {
		preset, ok := Presets[in.Purpose]
		if !ok {
			return apierr.Invalid("purpose must be one of blog, linkedin, portrait, square (or custom: no preset); got %q", in.Purpose)
		}
		if in.Size == "" {
			in.Size = preset.Size
		}
		if in.Quality == "" {
			in.Quality = preset.Quality
		}
	}
	if in.Size == "" {
		in.Size = "1024x1024"
	}
	if in.Quality == "" {
		in.Quality = "high"
	}
	if err := oneOf("size", in.Size, ImageSizes); err != nil {
		return err
	}
	return oneOf("quality", in.Quality, ImageQualities)
}

// GenerateImage generates one image, stores it and returns its hosted URL.
// One AI credit is reserved before the provider is called and given back
// if anything fails, so only successful requests count and concurrent
// requests never overspend the monthly allowance.
func (s *Service) GenerateImage(ctx context.Context, p auth.Principal, in ImageInput) (Image, error) {
	if err := in.validate(); err != nil {
		return Image{}, err
	}
	if err := s.checkModel(in.Model); err != nil {
		return Image{}, err
	}
	if s.blobs == nil {
		return Image{}, apierr.Unavailable("image generation is not available on this host")
	}
	out := Image{Model: in.Model, Size: in.Size, Quality: in.Quality, Purpose: in.Purpose}

	refund, err := s.quota.Reserve(ctx, p, 1)
	if err != nil {
		return Image{}, err
	}
	res, err := s.models.GenerateImage(ctx, out.Model, sdk.ImageRequest{Model: out.Model, Prompt: in.Text, Size: out.Size, Quality: out.Quality})
	if err != nil {
		refund()
		return Image{}, s.providerError(ctx, err)
	}
	mime, isImage := blob.SniffImage(res.Data)
	if !isImage {
		refund()
		return Image{}, apierr.Unavailable("the provider returned something that is not an image")
	}
	obj, err := s.blobs.Put(ctx, res.Data, mime)
	if err != nil {
		refund()
		s.log.Error("store generated image", "workspace", p.WorkspaceID, "error", err)
		if errors.Is(err, blob.ErrTooLarge) {
			return Image{}, apierr.Unavailable("the generated image is larger than the %d bytes the store accepts; no credit was spent", blob.MaxBytes)
		}
		return Image{}, apierr.New(connect.CodeInternal, "the image was generated but could not be stored; no credit was spent, retry")
	}
	s.log.Debug("image generated", "workspace", p.WorkspaceID, "model", out.Model)
	out.URL = obj.URL
	return out, nil
}
