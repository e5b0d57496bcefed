package content_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/sdk"
)

// improve-content-with-validation scores before and after with word forms
// by default, and with the forms typed when wordForms is false: the
// keyphrase "garden tool" is in "garden tools" only as a word form.
func TestImproveWithValidationScoresInTheWordFormsAsked(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	b.router.answer = func(sdk.TextRequest, int) (string, error) { return faithful, nil }
	for _, c := range []struct {
		wordForms any
		want      float64
	}{{nil, 4}, {true, 4}, {false, 0}} {
		body := map[string]any{"content": original, "keywords": []string{"garden tool"}}
		if c.wordForms != nil {
			body["wordForms"] = c.wordForms
		}
		d := b.rest(t, "/v1/ai/generate/improve-content-with-validation", b.alice, jsonBody(body)).Want(t, 200).Data(t)
		for _, side := range []string{"before", "after"} {
			if n := d[side].(map[string]any)["seo"].(map[string]any)["keyphraseCount"]; n != c.want {
				t.Errorf("wordForms %v: %s finds \"garden tool\" %v times, want %v", c.wordForms, side, n, c.want)
			}
		}
	}
	b.rest(t, "/v1/ai/generate/improve-content-with-validation", b.alice, `{"content":"x","wordForms":1}`).WantError(t, 400, "wordForms")
}
