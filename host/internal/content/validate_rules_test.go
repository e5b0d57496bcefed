package content

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/seo"
)

func checkOf(t *testing.T, v Validation, id string) Check {
	t.Helper()
	for _, c := range v.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", id, v.Checks)
	return Check{}
}

func validated(t *testing.T, in ValidatedInput, original, improved string) Validation {
	t.Helper()
	orig, err := seo.OutlineOf(original)
	if err != nil {
		t.Fatal(err)
	}
	now, err := seo.OutlineOf(improved)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := seo.Score(seo.Input{Content: original, Keywords: []string{"garden tools"}})
	after, _ := seo.Score(seo.Input{Content: improved, Keywords: []string{"garden tools"}})
	return validate(in, orig, now, before, after, []string{"garden tools"}, 50)
}

// An improvement that adds a number the original does not state fails
// no-new-facts and names the number; one that keeps the original's numbers
// passes.
func TestValidationFlagsNumbersAbsentFromTheOriginal(t *testing.T) {
	t.Parallel()
	original := "Our garden tools last 10 years. Clean them after use."
	in := ValidatedInput{Content: original, ImprovePrompt: "make it livelier"}

	added := validated(t, in, original, "Our garden tools last 10 years and 95% of buyers agree. Clean them after use.")
	if c := checkOf(t, added, "no-new-facts"); c.Passed || c.Detail != "numbers or names not in the original: 95" {
		t.Errorf("new number: %+v, want failed naming 95", c)
	}
	if added.Passed {
		t.Error("validation passed with a new number")
	}

	kept := validated(t, in, original, "Good garden tools last 10 years. Always clean them after use.")
	if c := checkOf(t, kept, "no-new-facts"); !c.Passed {
		t.Errorf("same numbers: %+v, want passed", c)
	}

	// A number the instructions ask for is allowed.
	asked := ValidatedInput{Content: original, ImprovePrompt: "mention the 2 year warranty"}
	if c := checkOf(t, validated(t, asked, original, "Our garden tools last 10 years, with a 2 year warranty. Clean them after use."), "no-new-facts"); !c.Passed {
		t.Errorf("number from the instructions: %+v, want passed", c)
	}
}

// The improve routes score before and after with the same assessments:
// stuffing the keyphrase into the text lowers the score and fails
// score-not-lower.
func TestValidationScoresFollowTheAssessments(t *testing.T) {
	t.Parallel()
	original := "Our garden tools last for years. Clean them after use and dry the blades before you store them in the shed."
	stuffed := "Garden tools, garden tools, garden tools. Our garden tools are the best garden tools. Buy garden tools."
	v := validated(t, ValidatedInput{Content: original, ImprovePrompt: "add the keyphrase"}, original, stuffed)
	if c := checkOf(t, v, "score-not-lower"); c.Passed {
		t.Errorf("stuffed rewrite: %+v, want score-not-lower failed", c)
	}
}
