package schedule

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/sdk"
)

// Preview is what one destination of a post would receive, and what it
// would refuse.
type Preview struct {
	ExportTo  string
	WebhookID *string
	// Content is contentToExport with the destination's variant merged.
	Content map[string]any
	// Rendered is the text as the destination shows it.
	Rendered string
	Problems []sdk.Problem
}

// Preview checks a post for each of its destinations without storing
// anything: the destination plugin's own Validate (the checks its Export
// makes first: LinkedIn's 3,000 characters, WordPress statuses, Webflow
// collection ids and fieldData, Notion parents, required keys and
// credentials), then the host's checks of what a plugin cannot see before
// it exports (preview_checks.go). A request the create would refuse as
// malformed (no destinations, an unknown destination) is a 400 here too.
func (s *Service) Preview(ctx context.Context, p auth.Principal, in NewPost) ([]Preview, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return nil, err
	}
	if len(in.Destinations) == 0 {
		return nil, apierr.Invalid("destinations is required: at least one of %s", strings.Join(s.destinationNames(), ", "))
	}
	plan, _ := s.plans.Get(p.Plan)
	if n, max := len(in.Destinations), destinationCap(plan); n > max {
		return nil, apierr.Forbidden("destinations: %d destinations, the %s plan allows %d per post", n, p.Plan, max)
	}
	base := NewSchedule{Content: in.Content, Title: in.Title, Text: in.Text, Body: in.Body}.content()
	if strings.TrimSpace(in.Image.URL) != "" {
		base["imageUrl"] = strings.TrimSpace(in.Image.URL)
	}
	out := make([]Preview, len(in.Destinations))
	for i, d := range in.Destinations {
		content := maps.Clone(base)
		maps.Copy(content, d.Variant)
		name := strings.TrimSpace(d.ExportTo)
		if !contains(s.destinationNames(), name) {
			return nil, apierr.Invalid("destinations[%d].exportTo %q is not a configured destination (configured: %s)", i, d.ExportTo, strings.Join(s.destinationNames(), ", "))
		}
		pv := Preview{ExportTo: name, WebhookID: d.WebhookID, Content: content, Rendered: render(name, content)}
		creds, err := s.creds.ExportCredentials(ctx, destination.Export{Workspace: p.WorkspaceID, Destination: name, WebhookID: d.WebhookID})
		if err != nil {
			pv.Problems = append(pv.Problems, sdk.Problem{Key: "credentials", Message: errMessage(err)})
		}
		problems, err := s.dests.Validate(ctx, name, sdk.ValidateRequest{Content: content, Credentials: creds})
		if err != nil {
			return nil, destination.PluginError(name, "validate", err)
		}
		for _, pr := range problems {
			if creds == nil && strings.HasPrefix(pr.Key, "credentials.") {
				continue // already reported: not connected
			}
			pv.Problems = append(pv.Problems, pr)
		}
		pv.Problems = append(pv.Problems, hostChecks(name, content)...)
		out[i] = pv
	}
	return out, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// render is the text a destination shows of content: LinkedIn the
// commentary (text), the CMS destinations the title over the body, a
// webhook the title and text it delivers.
func render(dest string, content map[string]any) string {
	str := func(k string) string { v, _ := content[k].(string); return strings.TrimSpace(v) }
	switch dest {
	case "linkedin":
		return str("text")
	case "wordpress", "webflow", "notion":
		body := firstNonEmpty(str("content"), str("text"))
		if t := str("title"); t != "" {
			return fmt.Sprintf("%s\n\n%s", t, body)
		}
		return body
	}
	return strings.TrimSpace(strings.Join([]string{str("title"), firstNonEmpty(str("text"), str("content"))}, "\n\n"))
}
