package ga4

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/sdk"
)

// maxAnswer bounds one Google answer (a year of daily rows by source fits
// in a few MiB).
const maxAnswer = 32 << 20

// Row limits of the reports: Google's maximum page is 250,000 rows; the
// day report pages through at most maxPages pages, the page report reads
// the top pageRows landing pages by sessions.
const (
	dayPageRows = 100000
	maxPages    = 5
	pageRows    = 25000
)

// call sends a JSON request to a Google API with the access token and
// decodes the answer into out. Google's error body is
// {"error":{"code","message","status"}}: the message names the status and
// Google's words.
func (s *Source) call(ctx context.Context, method, u string, creds map[string]string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return sdk.Errorf(sdk.CodeInternal, "ga4: encode request: %v", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return sdk.Errorf(sdk.CodeInternal, "ga4: build request: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+creds[credAccess])
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return sdk.RequestError(service, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return sdk.RequestError(service, err)
	}
	if resp.StatusCode/100 != 2 {
		return googleError(resp.StatusCode, resp.Header, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return sdk.Errorf(sdk.CodeRemote, "%s answered %s %s with unreadable JSON", service, method, req.URL.Path)
	}
	return nil
}

// googleError builds the error of a Google API refusal, with a message a
// user can act on for the cases that matter: quota (429), a lost
// permission (403), a deleted property (404), expired credentials (401).
func googleError(status int, header http.Header, body []byte) error {
	var g struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &g)
	msg := g.Error.Message
	if g.Error.Status != "" {
		msg = g.Error.Status + ": " + msg
	}
	e := sdk.RemoteError(service, status, header, msg)
	switch status {
	case http.StatusTooManyRequests:
		e.Message = "Google Analytics quota exhausted for this property (" + msg + "); try again later"
	case http.StatusForbidden:
		e.Message = "Google Analytics refused access to this property (" + msg + "): the connected account lost its permission"
	case http.StatusNotFound:
		e.Message = "Google Analytics has no such property (" + msg + "): it was deleted or its id is wrong"
	case http.StatusUnauthorized:
		e.Message = "Google Analytics refused the access token (" + msg + "): reconnect Google Analytics"
	}
	return e
}

type accountSummary struct {
	Account     string `json:"account"`
	DisplayName string `json:"displayName"`
	Properties  []struct {
		Property    string `json:"property"`
		DisplayName string `json:"displayName"`
	} `json:"propertySummaries"`
}

// accountSummaries pages through GET /v1beta/accountSummaries.
func (s *Source) accountSummaries(ctx context.Context, creds map[string]string) ([]accountSummary, error) {
	var out []accountSummary
	token := ""
	for range 50 {
		q := url.Values{"pageSize": {"200"}}
		if token != "" {
			q.Set("pageToken", token)
		}
		var page struct {
			AccountSummaries []accountSummary `json:"accountSummaries"`
			NextPageToken    string           `json:"nextPageToken"`
		}
		if err := s.call(ctx, http.MethodGet, s.setting("admin_api_url")+"/v1beta/accountSummaries?"+q.Encode(), creds, nil, &page); err != nil {
			return nil, err
		}
		out = append(out, page.AccountSummaries...)
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	return out, nil
}

// Properties lists the GA4 properties of every account the credentials
// read.
func (s *Source) Properties(ctx context.Context, creds map[string]string) ([]sdk.AnalyticsProperty, error) {
	sums, err := s.accountSummaries(ctx, creds)
	if err != nil {
		return nil, err
	}
	out := []sdk.AnalyticsProperty{}
	for _, a := range sums {
		for _, p := range a.Properties {
			out = append(out, sdk.AnalyticsProperty{ID: strings.TrimPrefix(p.Property, "properties/"), DisplayName: p.DisplayName,
				Account: strings.TrimPrefix(a.Account, "accounts/"), AccountDisplayName: a.DisplayName})
		}
	}
	return out, nil
}

type dimension struct {
	Name string `json:"name"`
}

type runReportRequest struct {
	DateRanges  []map[string]string `json:"dateRanges"`
	Dimensions  []dimension         `json:"dimensions"`
	Metrics     []dimension         `json:"metrics"`
	Limit       string              `json:"limit"`
	Offset      string              `json:"offset,omitempty"`
	OrderBys    []map[string]any    `json:"orderBys,omitempty"`
	KeepEmpty   bool                `json:"keepEmptyRows"`
	ReturnQuota bool                `json:"returnPropertyQuota"`
}

type runReportResponse struct {
	DimensionHeaders []dimension `json:"dimensionHeaders"`
	MetricHeaders    []dimension `json:"metricHeaders"`
	Rows             []struct {
		DimensionValues []struct {
			Value string `json:"value"`
		} `json:"dimensionValues"`
		MetricValues []struct {
			Value string `json:"value"`
		} `json:"metricValues"`
	} `json:"rows"`
	RowCount int64 `json:"rowCount"`
	Metadata struct {
		SamplingMetadatas []json.RawMessage `json:"samplingMetadatas"`
	} `json:"metadata"`
}

func names(ns ...string) []dimension {
	out := make([]dimension, len(ns))
	for i, n := range ns {
		out[i] = dimension{n}
	}
	return out
}

// table is a runReport answer read by header name, so that the order
// Google returns the columns in does not matter.
type table struct {
	dims, mets map[string]int
	resp       *runReportResponse
}

func newTable(r *runReportResponse) table {
	t := table{dims: map[string]int{}, mets: map[string]int{}, resp: r}
	for i, h := range r.DimensionHeaders {
		t.dims[h.Name] = i
	}
	for i, h := range r.MetricHeaders {
		t.mets[h.Name] = i
	}
	return t
}

func (t table) dim(row int, name string) string {
	i, ok := t.dims[name]
	if !ok || i >= len(t.resp.Rows[row].DimensionValues) {
		return ""
	}
	return t.resp.Rows[row].DimensionValues[i].Value
}

func (t table) met(row int, name string) float64 {
	i, ok := t.mets[name]
	if !ok || i >= len(t.resp.Rows[row].MetricValues) {
		return 0
	}
	f, _ := strconv.ParseFloat(t.resp.Rows[row].MetricValues[i].Value, 64)
	return f
}

// runReport posts one report request to properties/{id}:runReport.
func (s *Source) runReport(ctx context.Context, creds map[string]string, property string, req runReportRequest) (*runReportResponse, error) {
	var out runReportResponse
	u := s.setting("data_api_url") + "/v1beta/properties/" + url.PathEscape(property) + ":runReport"
	if err := s.call(ctx, http.MethodPost, u, creds, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Report reads the property's sessions over the window: per date, session
// source, medium and default channel group (paged), and per landing page
// and source (the top landing pages by sessions).
func (s *Source) Report(ctx context.Context, req sdk.AnalyticsReportRequest) (sdk.AnalyticsReport, error) {
	if !validProperty(req.PropertyID) {
		return sdk.AnalyticsReport{}, sdk.Errorf(sdk.CodeInvalidArgument, "ga4: property id must be digits, got %q", req.PropertyID)
	}
	window := []map[string]string{{"startDate": req.StartDate, "endDate": req.EndDate}}
	metrics := names("sessions", "screenPageViews", "engagedSessions", "averageSessionDuration")
	var out sdk.AnalyticsReport
	for page := range maxPages {
		r, err := s.runReport(ctx, req.Credentials, req.PropertyID, runReportRequest{
			DateRanges: window, Dimensions: names("date", "sessionSource", "sessionMedium", "sessionDefaultChannelGroup"),
			Metrics: metrics, Limit: strconv.Itoa(dayPageRows), Offset: offset(page * dayPageRows), ReturnQuota: true,
		})
		if err != nil {
			return sdk.AnalyticsReport{}, err
		}
		out.Sampled = out.Sampled || len(r.Metadata.SamplingMetadatas) > 0
		t := newTable(r)
		for i := range r.Rows {
			sessions := t.met(i, "sessions")
			out.Days = append(out.Days, sdk.AnalyticsDayRow{
				Date: isoDate(t.dim(i, "date")), Source: t.dim(i, "sessionSource"), Medium: t.dim(i, "sessionMedium"),
				Channel: t.dim(i, "sessionDefaultChannelGroup"), Sessions: int64(sessions), Pageviews: int64(t.met(i, "screenPageViews")),
				EngagedSessions: int64(t.met(i, "engagedSessions")), DurationMs: int64(t.met(i, "averageSessionDuration")*sessions*1000 + 0.5),
			})
		}
		if int64((page+1)*dayPageRows) >= r.RowCount || len(r.Rows) == 0 {
			break
		}
	}
	r, err := s.runReport(ctx, req.Credentials, req.PropertyID, runReportRequest{
		DateRanges: window, Dimensions: names("landingPage", "sessionSource", "sessionMedium", "sessionDefaultChannelGroup"),
		Metrics: names("sessions", "screenPageViews", "averageSessionDuration"), Limit: strconv.Itoa(pageRows), ReturnQuota: true,
		OrderBys: []map[string]any{{"metric": map[string]string{"metricName": "sessions"}, "desc": true}},
	})
	if err != nil {
		return sdk.AnalyticsReport{}, err
	}
	t := newTable(r)
	for i := range r.Rows {
		sessions := t.met(i, "sessions")
		out.Pages = append(out.Pages, sdk.AnalyticsPageRow{Path: t.dim(i, "landingPage"), Source: t.dim(i, "sessionSource"),
			Medium: t.dim(i, "sessionMedium"), Channel: t.dim(i, "sessionDefaultChannelGroup"), Sessions: int64(sessions),
			Pageviews: int64(t.met(i, "screenPageViews")), DurationMs: int64(t.met(i, "averageSessionDuration")*sessions*1000 + 0.5)})
	}
	return out, nil
}

func offset(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// isoDate turns GA4's date dimension (YYYYMMDD) into YYYY-MM-DD.
func isoDate(d string) string {
	if len(d) != 8 {
		return d
	}
	return d[:4] + "-" + d[4:6] + "-" + d[6:]
}

func validProperty(id string) bool {
	if id == "" || len(id) > 20 {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
