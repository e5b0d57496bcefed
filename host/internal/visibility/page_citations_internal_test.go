package visibility

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// pageOf is how PageCitations keeps a source URL: its path when its host
// is domain or a subdomain.
func pageOf(raw, domain string) (string, bool) {
	host, path, ok := hostPath(raw)
	if !ok || !onDomain(host, domain) {
		return "", false
	}
	return path, true
}

func TestPageOfKeepsTheSitesPagesOnly(t *testing.T) {
	for raw, want := range map[string]string{
		"https://example.com/guide?utm_source=chatgpt.com": "/guide",
		"https://www.example.com/":                         "/",
		"example.com/pricing":                              "/pricing",
		"https://blog.example.com/post#x":                  "/post",
		"https://notexample.com/guide":                     "",
		"https://example.com.evil.test/guide":              "",
	} {
		got, ok := pageOf(raw, "example.com")
		if (want == "") == ok || got != want {
			t.Errorf("pageOf(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
}

// An answer's pages are written by its first save only: the saves of its
// sentiment and judged brands that follow (the same answer, passed on)
// leave them alone instead of deleting and inserting them again.
func TestAnAnswersPagesAreWrittenOnce(t *testing.T) {
	st := storetest.SQLite(t)
	ctx := context.Background()
	ws, _, err := st.EnsureWorkspaceUser(ctx, "pages", "business", "a@pages.test")
	if err != nil {
		t.Fatal(err)
	}
	rep := &store.VisibilityReport{WorkspaceID: ws.ID, WebsiteURL: "https://acme.example", Input: "{}", Engines: `[]`, CreditsMonth: "2026-12"}
	if err := st.CreateVisibilityReport(ctx, nil, rep); err != nil {
		t.Fatal(err)
	}
	s := &Service{store: st, log: hclog.NewNullLogger(), now: time.Now}
	a := store.VisibilityAnswer{ReportID: rep.ID, WorkspaceID: ws.ID, Kind: KindPrompt, Engine: "gpt", Item: "0", Question: "q",
		Text: "See https://acme.example/guide.", Citations: "[]"}
	withPages(&a)
	if len(a.Pages) != 1 {
		t.Fatalf("pages %+v, want acme.example/guide", a.Pages)
	}
	if err := s.save(ctx, &a); err != nil {
		t.Fatal(err)
	}
	if a.Pages != nil {
		t.Errorf("after its first save the answer still carries %d pages to write: each later save would delete and insert them again", len(a.Pages))
	}
}
