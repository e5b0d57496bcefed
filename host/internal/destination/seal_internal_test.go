package destination

import "testing"

// Sealed credentials are bound to their workspace and row: the AES-GCM
// additional data names both, so a value copied into another workspace's
// row, or another row of the same workspace, does not open.
func TestSealedCredentialsOpenOnlyInTheirOwnRow(t *testing.T) {
	t.Parallel()
	s, err := NewSealer("test-secret-key")
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte(`{"password":"hunter2"}`)
	for _, tc := range []struct {
		name       string
		sealedFor  string
		openedWith []string
	}{
		{"a connection", connectionAAD("ws_a", "wordpress"), []string{connectionAAD("ws_b", "wordpress"), connectionAAD("ws_a", "webflow"), webhookAAD("ws_a", "wordpress"), ""}},
		{"a webhook", webhookAAD("ws_a", "wh_1"), []string{webhookAAD("ws_b", "wh_1"), webhookAAD("ws_a", "wh_2"), connectionAAD("ws_a", "wh_1"), ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sealed := s.Seal(plain, tc.sealedFor)
			if got, err := s.Open(sealed, tc.sealedFor); err != nil || string(got) != string(plain) {
				t.Fatalf("open in its own row: %q, %v", got, err)
			}
			for _, aad := range tc.openedWith {
				if got, err := s.Open(sealed, aad); err == nil {
					t.Errorf("a value sealed for %q opened as %q: %q", tc.sealedFor, aad, got)
				}
			}
		})
	}
	// Another key does not open it either.
	other, _ := NewSealer("another-secret-key")
	if _, err := other.Open(s.Seal(plain, "x"), "x"); err == nil {
		t.Error("a value opened under another secret key")
	}
}
