package ga4test

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// checkAssertion verifies a JWT-bearer assertion: RS256 signed by a
// registered service account, for the read-only scope, addressed to this
// token endpoint, issued now and valid at most an hour.
func (g *Google) checkAssertion(a string) error {
	parts := strings.Split(a, ".")
	if len(parts) != 3 {
		return errors.New("Invalid JWT")
	}
	var claims struct {
		Iss, Scope, Aud string
		Exp, Iat        int64
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(raw, &claims) != nil {
		return errors.New("Invalid JWT payload")
	}
	g.mu.Lock()
	pub := g.saKeys[claims.Iss]
	g.mu.Unlock()
	if pub == nil {
		return errors.New("Invalid JWT Signature.")
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig) != nil {
		return errors.New("Invalid JWT Signature.")
	}
	now := time.Now().Unix()
	if claims.Scope != Scope || claims.Aud != g.URL+"/token" || claims.Iat > now+60 || claims.Exp < now || claims.Exp-claims.Iat > 3600 {
		return fmt.Errorf("Invalid JWT claims: scope %q aud %q", claims.Scope, claims.Aud)
	}
	return nil
}

// accountSummaries is GET /v1beta/accountSummaries.
func (g *Google) accountSummaries(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		g.fail(w, "accountSummaries: %s, want GET", r.Method)
		return
	}
	if !g.authorized(w, r) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	props := []map[string]string{}
	for _, p := range [][2]string{{PropertyOK, "acme.com - GA4"}, {PropertyQuota, "Busy property"}, {PropertyForbidden, "Lost property"}, {PropertyDeleted, "Deleted property"}} {
		props = append(props, map[string]string{"property": "properties/" + p[0], "displayName": p[1], "propertyType": "PROPERTY_TYPE_ORDINARY", "parent": "accounts/1000"})
	}
	json.NewEncoder(w).Encode(map[string]any{"accountSummaries": []any{map[string]any{
		"name": "accountSummaries/1000", "account": "accounts/1000", "displayName": "Acme Inc.", "propertySummaries": props}}})
}

var knownDims = []string{"date", "sessionSource", "sessionMedium", "sessionDefaultChannelGroup", "landingPage"}
var knownMetrics = []string{"sessions", "screenPageViews", "engagedSessions", "averageSessionDuration"}

// Row is one realistic day of a property: sessions by source and medium,
// with GA4's default channel group.
type Row struct {
	Source, Medium, Channel, Landing string
	Sessions, Views, Engaged         int64
	AvgSeconds                       float64
}

// Rows is what PropertyOK answers for every day of any window.
var Rows = []Row{
	{"chatgpt.com", "referral", "Referral", "/pricing", 12, 30, 9, 95.5},
	{"perplexity", "(not set)", "Unassigned", "/blog/ai-seo", 5, 9, 3, 61},
	{"copilot.microsoft.com", "referral", "AI Assistant", "/", 2, 3, 1, 40},
	{"newassistant.example", "referral", "AI Assistant", "/docs", 1, 2, 1, 30},
	{"google", "organic", "Organic Search", "/", 80, 160, 50, 120},
	{"(direct)", "(none)", "Direct", "/", 40, 70, 20, 75},
}

// runReport is POST /v1beta/properties/{id}:runReport with a JSON body.
func (g *Google) runReport(w http.ResponseWriter, r *http.Request) {
	g.RunReports.Add(1)
	prop, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/v1beta/properties/"), ":runReport")
	if r.Method != http.MethodPost || !ok || !strings.HasPrefix(r.URL.Path, "/v1beta/properties/") || r.Header.Get("Content-Type") != "application/json" {
		g.fail(w, "runReport: %s %s with Content-Type %q, want POST /v1beta/properties/{id}:runReport with JSON", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		return
	}
	if !g.authorized(w, r) {
		return
	}
	var req struct {
		DateRanges []struct{ StartDate, EndDate string } `json:"dateRanges"`
		Dimensions []struct{ Name string }               `json:"dimensions"`
		Metrics    []struct{ Name string }               `json:"metrics"`
		Limit      string                                `json:"limit"`
		Offset     string                                `json:"offset"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.DateRanges) != 1 || len(req.Dimensions) == 0 || len(req.Metrics) == 0 {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received.")
		return
	}
	start, err1 := time.Parse(time.DateOnly, req.DateRanges[0].StartDate)
	end, err2 := time.Parse(time.DateOnly, req.DateRanges[0].EndDate)
	if err1 != nil || err2 != nil || end.Before(start) {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid dateRange: startDate and endDate must be YYYY-MM-DD")
		return
	}
	var dims, mets []string
	for _, d := range req.Dimensions {
		if !slices.Contains(knownDims, d.Name) {
			googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Field "+d.Name+" is not a valid dimension.")
			return
		}
		dims = append(dims, d.Name)
	}
	for _, m := range req.Metrics {
		if !slices.Contains(knownMetrics, m.Name) {
			googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Field "+m.Name+" is not a valid metric.")
			return
		}
		mets = append(mets, m.Name)
	}
	if n, err := strconv.Atoi(req.Limit); err != nil || n < 1 || n > 250000 {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "limit must be between 1 and 250000")
		return
	}
	switch prop {
	case PropertyQuota:
		googleError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Exhausted property tokens per day for a project per property. Wait for the quota to refresh.")
		return
	case PropertyForbidden:
		googleError(w, http.StatusForbidden, "PERMISSION_DENIED", "User does not have sufficient permissions for this property.")
		return
	case PropertyDeleted:
		googleError(w, http.StatusNotFound, "NOT_FOUND", "Property properties/"+prop+" not found.")
		return
	case PropertyOK:
	default:
		googleError(w, http.StatusForbidden, "PERMISSION_DENIED", "User does not have sufficient permissions for this property.")
		return
	}
	g.writeRows(w, dims, mets, start, end)
}

func (g *Google) writeRows(w http.ResponseWriter, dims, mets []string, start, end time.Time) {
	type value struct {
		Value string `json:"value"`
	}
	type row struct {
		DimensionValues []value `json:"dimensionValues"`
		MetricValues    []value `json:"metricValues"`
	}
	byDate := slices.Contains(dims, "date")
	var rows []row
	days := 1
	if byDate {
		days = int(end.Sub(start).Hours()/24) + 1
	}
	for d := range days {
		for _, src := range Rows {
			var out row
			mult := int64(1)
			if !byDate {
				mult = int64(int(end.Sub(start).Hours()/24) + 1)
			}
			for _, dim := range dims {
				v := map[string]string{"date": start.AddDate(0, 0, d).Format("20060102"), "sessionSource": src.Source,
					"sessionMedium": src.Medium, "sessionDefaultChannelGroup": src.Channel, "landingPage": src.Landing}[dim]
				out.DimensionValues = append(out.DimensionValues, value{v})
			}
			for _, m := range mets {
				v := map[string]string{"sessions": strconv.FormatInt(src.Sessions*mult, 10), "screenPageViews": strconv.FormatInt(src.Views*mult, 10),
					"engagedSessions": strconv.FormatInt(src.Engaged*mult, 10), "averageSessionDuration": strconv.FormatFloat(src.AvgSeconds, 'f', -1, 64)}[m]
				out.MetricValues = append(out.MetricValues, value{v})
			}
			rows = append(rows, out)
		}
	}
	headers := func(names []string, typed bool) []map[string]string {
		out := []map[string]string{}
		for _, n := range names {
			h := map[string]string{"name": n}
			if typed {
				h["type"] = "TYPE_INTEGER"
				if n == "averageSessionDuration" {
					h["type"] = "TYPE_SECONDS"
				}
			}
			out = append(out, h)
		}
		return out
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"dimensionHeaders": headers(dims, false), "metricHeaders": headers(mets, true),
		"rows": rows, "rowCount": len(rows), "metadata": map[string]any{"currencyCode": "USD", "timeZone": "Etc/UTC"},
		"kind": "analyticsData#runReport"})
}
