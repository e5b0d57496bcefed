package openai

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"

	oai "github.com/openai/openai-go/v3"

	"github.com/heraldhq/herald/sdk"
)

// GenerateImage creates one image. gpt-image models answer with base64
// bytes; servers that answer with a URL are fetched.
func (p *Provider) GenerateImage(ctx context.Context, req sdk.ImageRequest) (sdk.ImageResponse, error) {
	if !p.d.Images {
		return sdk.ImageResponse{}, sdk.Errorf(sdk.CodeUnimplemented, "%s does not generate images", p.d.Name)
	}
	if req.Prompt == "" {
		return sdk.ImageResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "openai: an image prompt is required")
	}
	client, err := p.client()
	if err != nil {
		return sdk.ImageResponse{}, err
	}
	model := req.Model
	if model == "" {
		model = DefaultImageModel
	}
	params := oai.ImageGenerateParams{Prompt: req.Prompt, Model: oai.ImageModel(model), N: oai.Int(1)}
	if req.Size != "" {
		params.Size = oai.ImageGenerateParamsSize(req.Size)
	}
	if req.Quality != "" {
		params.Quality = oai.ImageGenerateParamsQuality(req.Quality)
	}
	if f, ok := req.Options["output_format"].(string); ok && f != "" {
		params.OutputFormat = oai.ImageGenerateParamsOutputFormat(f)
	}
	resp, err := client.Images.Generate(ctx, params)
	if err != nil {
		return sdk.ImageResponse{}, p.mapError("image generation", err)
	}
	if len(resp.Data) == 0 {
		return sdk.ImageResponse{}, sdk.Errorf(sdk.CodeRemote, "openai returned no image")
	}
	img := resp.Data[0]
	var data []byte
	switch {
	case img.B64JSON != "":
		if data, err = base64.StdEncoding.DecodeString(img.B64JSON); err != nil {
			return sdk.ImageResponse{}, sdk.Errorf(sdk.CodeRemote, "openai returned an image that is not base64")
		}
	case img.URL != "":
		if data, err = p.fetch(ctx, img.URL); err != nil {
			return sdk.ImageResponse{}, err
		}
	default:
		return sdk.ImageResponse{}, sdk.Errorf(sdk.CodeRemote, "openai returned an image without data")
	}
	mimeType := "image/" + string(resp.OutputFormat)
	if resp.OutputFormat == "" {
		mimeType = http.DetectContentType(data)
	}
	size, quality := string(resp.Size), string(resp.Quality)
	if size == "" {
		size = req.Size
	}
	if quality == "" {
		quality = req.Quality
	}
	return sdk.ImageResponse{
		Data: data, MIMEType: mimeType, Model: model, Size: size, Quality: quality, RevisedPrompt: img.RevisedPrompt,
		Usage: sdk.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, TotalTokens: resp.Usage.TotalTokens},
	}, nil
}

// maxImageBytes bounds a fetched image.
const maxImageBytes = 50 << 20

func (p *Provider) fetch(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeRemote, "openai returned an invalid image URL")
	}
	c, err := p.current()
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, sdk.RequestError("openai image download", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, sdk.RemoteError("openai image download", resp.StatusCode, resp.Header, "")
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxImageBytes+1))
	if err != nil {
		return nil, sdk.RequestError("openai image download", err)
	}
	if len(data) > maxImageBytes {
		return nil, sdk.Errorf(sdk.CodeRemote, "openai image is larger than %d bytes", maxImageBytes)
	}
	return data, nil
}
