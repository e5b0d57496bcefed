package visibility_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
	"github.com/heraldhq/herald/sdk"
)

// knownBrands are the names the fake discovery judge recognises, as a
// capable model would list them: tracked ones (Acme is self, Globex Corp
// and initech.io competitors, "Globex" a name inside a tracked one) and
// untracked ones.
var knownBrands = []string{"Acme", "Globex Corp", "Globex", "Initech", "Zoho CRM", "Pipedrive", "Freshsales", "HubSpot", "Salesforce"}

var enclosed = regexp.MustCompile(`(?s)<untrusted-data id="([0-9a-f]{32})" source="an AI answer engine's answer">\n(.*)\n</untrusted-data id="([0-9a-f]{32})">`)

// discoveryJudge lists the known names the enclosed answer holds, in
// order, Zoho CRM with its domain; it also lists Salesforce, which the
// answers never name (a made-up name must not count). It refuses a
// request whose answer is not enclosed as untrusted data or that asks
// for no schema.
func discoveryJudge(req sdk.TextRequest) (sdk.TextResponse, error) {
	rf, _ := json.Marshal(req.Options["response_format"])
	if !strings.Contains(string(rf), `"required":["name","domain"]`) {
		return sdk.TextResponse{}, fmt.Errorf("the discovery judge got no schema: %s", rf)
	}
	m := enclosed.FindStringSubmatch(req.Prompt)
	if m == nil || m[1] != m[3] || !strings.Contains(req.System, m[1]) {
		return sdk.TextResponse{}, fmt.Errorf("the answer is not enclosed as untrusted data: %q", req.Prompt)
	}
	type named struct {
		Name   string `json:"name"`
		Domain string `json:"domain"`
	}
	out := []named{{Name: "Salesforce"}}
	for _, n := range knownBrands {
		if strings.Contains(m[2], n) {
			d := ""
			if n == "Zoho CRM" {
				d = "zoho.com"
			}
			out = append(out, named{Name: n, Domain: d})
		}
	}
	b, _ := json.Marshal(map[string]any{"brands": out})
	return sdk.TextResponse{Text: string(b)}, nil
}

const crmBody = `{"websiteurl":"https://example.com","competitors":["Globex Corp","https://initech.io"],"prompts":["crm for small teams","crm for agencies","crm for shops"]}`

// discovered returns the report's discovered brands by name.
func discovered(t *testing.T, r map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	list, ok := get(t, r, "report.geo.discoveredBrands").([]any)
	if !ok {
		t.Fatalf("no discoveredBrands in %v", get(t, r, "report.geo"))
	}
	for _, d := range list {
		dm := d.(map[string]any)
		out[dm["name"].(string)] = dm
	}
	return out
}

func TestDiscoveredBrandsAreCountedAndTrackedOnesNeverAppear(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt", "claude"}})
		_, job := b.report(t, b.business, crmBody)
		reportID := get(t, job, "result.reportId").(string)
		r := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK).Body
		d := discovered(t, r)
		// Zoho CRM: named in three answers (gpt twice, claude once) of
		// six judged.
		z := d["Zoho CRM"]
		zj, _ := json.Marshal(z)
		if z == nil || z["answers"] != float64(3) || z["mentionRate"] != float64(50) || z["domain"] != "zoho.com" ||
			!strings.Contains(string(zj), `"engines":{"claude":{"answers":1,"mentionRate":33.3},"gpt":{"answers":2,"mentionRate":66.7}}`) {
			t.Errorf("Zoho CRM = %s", zj)
		}
		if h := d["HubSpot"]; h == nil || h["answers"] != float64(2) {
			t.Errorf("HubSpot = %v", h)
		}
		first := get(t, r, "report.geo.discoveredBrands").([]any)[0].(map[string]any)
		if first["name"] != "Zoho CRM" {
			t.Errorf("most frequent first: %v", first)
		}
		// Self, competitors, an alias of one (initech.io's "Initech", a
		// name inside "Globex Corp"), and a name the answers never write.
		for _, tracked := range []string{"Acme", "Globex Corp", "Globex", "Initech", "Salesforce"} {
			if d[tracked] != nil {
				t.Errorf("%s appears as discovered: %v", tracked, d[tracked])
			}
		}
		// Acme is first among tracked brands in both answers naming it,
		// and 1st then 3rd among all brands.
		self := get(t, r, "report.geo.brands").([]any)[0].(map[string]any)
		if self["avgPosition"] != float64(1) || self["positionAmongAll"] != float64(2) {
			t.Errorf("self avgPosition %v, positionAmongAll %v; want 1 and 2", self["avgPosition"], self["positionAmongAll"])
		}
		if st := get(t, r, "report.geo.discovery").(map[string]any); st["judged"] != float64(6) || st["unjudged"] != float64(0) || st["note"] != "" {
			t.Errorf("discovery = %v", st)
		}

		// The stored lists reproduce the report: a rescore asks no judge
		// and gives the same discovered brands and positions.
		calls := b.engines.count("judge", "discovery")
		if calls != 6 {
			t.Errorf("the discovery judge was asked %d times, want once per answer (6)", calls)
		}
		before, _ := json.Marshal(get(t, r, "report.geo"))
		if _, err := visibility.Rescore(context.Background(), s, b.businessID, nil); err != nil {
			t.Fatal(err)
		}
		after := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK).Body
		if a, _ := json.Marshal(get(t, after, "report.geo")); string(a) != string(before) || b.engines.count("judge", "discovery") != calls {
			t.Errorf("rescore of report %s changed geo or asked the judge:\n%s\n%s", reportID, before, a)
		}
	})
}

func TestWithoutAJudgeThereIsNoDiscoveryAndTheReportSaysSo(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt", "claude"}, judge: "broken"})
	b.report(t, b.business, crmBody)
	r := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK).Body
	if d := discovered(t, r); len(d) != 0 {
		t.Errorf("discovered without a judge: %v", d)
	}
	if st := get(t, r, "report.geo.discovery").(map[string]any); st["judged"] != float64(0) || st["unjudged"] != float64(6) || st["note"] != scoring.NoJudgeNote {
		t.Errorf("discovery = %v, want 0 judged, 6 unjudged and the note", st)
	}
	if self := get(t, r, "report.geo.brands").([]any)[0].(map[string]any); self["positionAmongAll"] != nil {
		t.Errorf("positionAmongAll without a judge: %v", self["positionAmongAll"])
	}
}

func TestPrefillSuggestsTheTopDiscoveredBrandsAsCompetitors(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt", "claude"}})
	b.report(t, b.business, crmBody)
	res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report/prefill", b.business,
		`{"websiteurl":"https://example.com","competitors":["HubSpot"]}`).Want(t, http.StatusOK).Body
	disc, _ := json.Marshal(res["discovered"])
	// Most frequent first, with the domain the judge gave; HubSpot is
	// tracked by this input, so it is not suggested again.
	if string(disc) != `["Zoho CRM (zoho.com)","Pipedrive","Freshsales"]` {
		t.Errorf("discovered = %s", disc)
	}
	sug := get(t, res, "suggestions.competitors").([]any)
	if len(sug) < 3 || sug[0] != "Zoho CRM (zoho.com)" {
		t.Errorf("suggestions.competitors = %v: the discovered brands lead", sug)
	}
}

func TestATrackersTrendCarriesDiscoveredBrandsAndPositionsAmongAll(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt", "claude"}})
	body := `{"websiteurl":"https://example.com","competitors":["Globex Corp","https://initech.io"],"prompts":["crm for small teams","crm for agencies","crm for shops"],"cadence":"daily"}`
	res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.business, body).Want(t, http.StatusCreated)
	id := res.Body["tracker"].(map[string]any)["id"].(string)
	b.waitJob(t, b.business, res.Body["jobId"].(string))
	trend := b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend", b.business, "").Want(t, http.StatusOK).Body
	series := trend["series"].([]any)
	if len(series) != 1 {
		t.Fatalf("series = %v", series)
	}
	pt := series[0].(map[string]any)
	list, _ := pt["discoveredBrands"].([]any)
	if len(list) == 0 {
		t.Fatalf("the trend point has no discoveredBrands: %v", pt)
	}
	if z := list[0].(map[string]any); z["name"] != "Zoho CRM" || z["mentionRate"] != float64(50) {
		t.Errorf("first discovered brand = %v", z)
	}
	acme := pt["all"].(map[string]any)["acme"].(map[string]any)
	if acme["avgPosition"] != float64(1) || acme["positionAmongAll"] != float64(2) {
		t.Errorf("acme in the trend: avgPosition %v, positionAmongAll %v", acme["avgPosition"], acme["positionAmongAll"])
	}
	if c := pt["engines"].(map[string]any)["claude"].(map[string]any)["acme"].(map[string]any); c["positionAmongAll"] != float64(3) {
		t.Errorf("acme on claude: positionAmongAll %v, want 3", c["positionAmongAll"])
	}
}
