package schedule

import "testing"

func TestStatusWordsAreTheStoresWords(t *testing.T) {
	for st, word := range statusWords {
		if st.stored() != word || statusOf(word) != st {
			t.Fatalf("status %q is stored as %q, the store writes %q", st, st.stored(), word)
		}
	}
	if len(statusWords) != 6 {
		t.Fatalf("%d statuses, want 6", len(statusWords))
	}
}
