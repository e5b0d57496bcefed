package visibility

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// benchAnswers are answers as engines give them to buyer prompts (about
// 700 bytes to 1 KB), one of three citing pages of the tracked site
// (acme.example) in its text or its sources.
var benchAnswers = []struct{ text, citations string }{
	{"For industrial widgets most buyers shortlist three suppliers. **Acme** is the usual first pick: it ships fast, publishes its tolerances and answers quotes within a day. Globex Corp is cheaper at volume but its lead times slip in the autumn. Initech (initech.com) sells mostly through distributors.\n\n1. Acme: best overall.\n2. Globex Corp: best for volume buyers.\n3. Initech: good catalogue, slower support.\n\nSources:\n- https://www.example-reviews.com/widgets/best-suppliers\n- https://www.acme.example/widgets?utm_source=chatgpt.com\n- https://initech.com/catalogue\n", `[]`},
	{"There is no single best widget supplier; it depends on volume and how much support you need. Globex Corp leads on price for large runs and has warehouses on three continents. Acme is the one most engineers recommend for prototypes, since it takes small orders and its parts match the datasheets. Initech is worth a look if you already buy its fasteners.\n\nIn short: prototypes, Acme; volume, Globex; bundled orders, Initech.\n\n[1] https://globex.example.com/pricing\n", `[{"url":"https://docs.acme.example/tolerances","title":"Tolerances"},{"url":"https://globex.example.com/pricing","title":"Pricing"}]`},
	{"Widget buyers usually compare Initech, Acme and Globex Corp. Initech has the widest range and the best online configurator. Acme's support is the most praised in forums. Globex is a solid alternative when price matters more than lead time.\n\n- **Initech**: range and configurator.\n- **Acme**: support and reliability.\n- **Globex Corp**: price at scale.\n\nReferences\nhttps://www.widget-guide.example/compare\n", `[{"url":"https://www.widget-guide.example/compare","title":"Compare"}]`},
}

// BenchmarkPageCitations is the pages view's citations read of one site
// in a workspace of reports × 300 prompt answers: from the pages saved with
// the answers, against reading and scanning every answer (the reports
// flagged as saved before their answers kept pages), in the same run.
// PostgreSQL when HERALD_TEST_DATABASE_URL is set, else SQLite.
func BenchmarkPageCitations(b *testing.B) {
	for _, reports := range []int{5, 50} {
		b.Run(fmt.Sprintf("reports=%d", reports), func(b *testing.B) {
			var st *store.Store
			if storetest.DatabaseURL(b) != "" {
				st = storetest.Postgres(b)
			} else {
				st = storetest.SQLite(b)
			}
			ctx := context.Background()
			ws, _, err := st.EnsureWorkspaceUser(ctx, "bench", "business", "a@bench.test")
			if err != nil {
				b.Fatal(err)
			}
			svc := &Service{store: st, log: hclog.NewNullLogger()}
			for r := range reports {
				rep := &store.VisibilityReport{WorkspaceID: ws.ID, State: store.ReportCompleted, WebsiteURL: "https://acme.example",
					Input: "{}", Engines: `["gpt-4o"]`, CreditsMonth: "2026-12", CreatedAt: int64(1_000_000 + r)}
				if err := st.CreateVisibilityReport(ctx, nil, rep); err != nil {
					b.Fatal(err)
				}
				for i := range 300 {
					ans := benchAnswers[(r+i)%len(benchAnswers)]
					a := &store.VisibilityAnswer{ReportID: rep.ID, WorkspaceID: ws.ID, Kind: KindPrompt, Engine: []string{"gpt-4o", "claude", "sonar", "gemini"}[i%4],
						Item: fmt.Sprint(i), Question: fmt.Sprintf("prompt %d", i), Text: ans.text, Citations: ans.citations}
					withPages(a)
					if err := st.SaveVisibilityAnswer(ctx, a); err != nil {
						b.Fatal(err)
					}
				}
			}
			for _, saved := range []bool{true, false} {
				name := "answers-text"
				if saved {
					name = "saved-pages"
				}
				b.Run(name, func(b *testing.B) {
					if _, err := storetest.Exec(ctx, st, `UPDATE visibility_reports SET answer_pages = $1`, saved); err != nil {
						b.Fatal(err)
					}
					n := 0
					for b.Loop() {
						cites, err := svc.PageCitations(ctx, ws.ID, "acme.example", 0)
						if err != nil {
							b.Fatal(err)
						}
						n = len(cites)
					}
					b.ReportMetric(float64(n), "citations")
				})
			}
		})
	}
}
