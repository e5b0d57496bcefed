package schedule

import (
	"strings"

	"github.com/heraldhq/herald/sdk"
)

// hostChecks are the preview's checks of what a destination would refuse
// that its plugin's Validate cannot see before the export: they are made
// host-side per destination kind, from contentToExport alone (no remote is
// asked: a preview must be cheap and side-effect free).
//
//   - every destination: an imageUrl that is neither https nor a data: URL
//     (the create refuses it; the export could not fetch it);
//   - webflow: an imageField or imageAlt without an image (the item would be
//     created without its main image); fieldData keys that are not field
//     slugs (lower case, digits, hyphens);
//   - notion: properties that are not an object of property names to
//     values (whether the database has those properties needs Notion).
func hostChecks(dest string, content map[string]any) []sdk.Problem {
	var out []sdk.Problem
	str := func(k string) string { v, _ := content[k].(string); return strings.TrimSpace(v) }
	img := str("imageUrl")
	if img != "" && !hasPrefixFold(img, "https://") && !hasPrefixFold(img, "data:") {
		out = append(out, sdk.Problem{Key: "imageUrl", Message: "imageUrl must be an https URL or a data: URL"})
	}
	switch dest {
	case "webflow":
		if img == "" && (str("imageField") != "" || str("imageAlt") != "") {
			out = append(out, sdk.Problem{Key: "imageUrl", Message: "imageField or imageAlt is set but the post has no image: the item would have no main image"})
		}
		if fd, ok := content["fieldData"].(map[string]any); ok {
			for k := range fd {
				if !isSlug(k) {
					out = append(out, sdk.Problem{Key: "fieldData." + k, Message: "fieldData key " + k + " is not a Webflow field slug (lower-case letters, digits and hyphens)"})
				}
			}
		}
	case "notion":
		if v, ok := content["properties"]; ok {
			if _, isObject := v.(map[string]any); !isObject {
				out = append(out, sdk.Problem{Key: "properties", Message: "properties must be an object of Notion property names to values"})
			}
		}
	}
	return out
}

func isSlug(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
