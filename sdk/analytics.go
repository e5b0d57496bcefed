package sdk

import "context"

// AnalyticsSource is implemented by plugins that read a website's traffic
// from a web analytics product (Google Analytics 4, Matomo, Plausible...).
// The plugin is the product's API client, sign-in included: it builds the
// consent page address, exchanges a code (or an operator's key) for
// credentials, refreshes and revokes them, lists the properties they can
// read and reports one property's sessions over a window. The host keeps
// the credentials a [Grant] carries (sealed at rest), hands them back with
// every call and calls Refresh before ExpiresAt. Operator settings come
// through [Configurer].
//
// Methods may be called concurrently. Return an [*Error]: [RemoteError]
// maps the product's HTTP statuses (429 rate limited, 403 permission
// denied, 404 not found) to codes the host tells the user about; return
// [CodeUnauthenticated] when the product refuses the credentials for good
// (revoked, expired refresh token), so the host asks the user to reconnect.
type AnalyticsSource interface {
	// Info describes the source and how a workspace can connect it.
	Info(ctx context.Context) (AnalyticsInfo, error)
	// AuthURL returns the consent page address for req.
	AuthURL(ctx context.Context, req AuthURLRequest) (string, error)
	// Exchange turns an authorization code, or key fields, into credentials.
	Exchange(ctx context.Context, req ExchangeRequest) (Grant, error)
	// Refresh renews credentials.
	Refresh(ctx context.Context, credentials map[string]string) (Grant, error)
	// Revoke withdraws credentials at the product.
	Revoke(ctx context.Context, credentials map[string]string) error
	// Properties lists what the credentials can read.
	Properties(ctx context.Context, credentials map[string]string) ([]AnalyticsProperty, error)
	// Report reads one property's sessions over a window of days.
	Report(ctx context.Context, req AnalyticsReportRequest) (AnalyticsReport, error)
}

// AnalyticsInfo describes an analytics source.
type AnalyticsInfo struct {
	Name, DisplayName string
	// OAuth reports that AuthURL and a code Exchange work (the operator
	// configured an OAuth client).
	OAuth bool
	// KeyFields are the fields Exchange takes instead of a code, such as
	// "service_account_key".
	KeyFields []string
}

// AuthURLRequest asks for the consent page of an OAuth 2.0
// authorization-code flow with PKCE (S256).
type AuthURLRequest struct {
	RedirectURI, State, CodeChallenge string
}

// ExchangeRequest carries a code with its PKCE verifier and redirect URI,
// or Key fields (see [AnalyticsInfo].KeyFields).
type ExchangeRequest struct {
	Code, CodeVerifier, RedirectURI string
	Key                             map[string]string
}

// Grant is a set of credentials for the host to keep. Credentials are
// secret and opaque to the host; ExpiresAtMs (epoch ms, 0: never) is when
// they need a Refresh; Account names whom the product recognised.
type Grant struct {
	Credentials map[string]string
	ExpiresAtMs int64
	Account     string
}

// AnalyticsProperty is one readable property (a GA4 property, a Matomo
// site).
type AnalyticsProperty struct {
	ID, DisplayName, Account, AccountDisplayName string
}

// AnalyticsReportRequest reads PropertyID over [StartDate, EndDate]
// (YYYY-MM-DD, both included).
type AnalyticsReportRequest struct {
	Credentials        map[string]string
	PropertyID         string
	StartDate, EndDate string
}

// AnalyticsReport is a property's sessions: per day, source and medium, and
// per landing page and source.
type AnalyticsReport struct {
	Days  []AnalyticsDayRow
	Pages []AnalyticsPageRow
	// Sampled reports that the product estimated the figures from a sample.
	Sampled bool
}

// AnalyticsDayRow is the sessions of one day from one source and medium.
type AnalyticsDayRow struct {
	// Date is YYYY-MM-DD.
	Date string
	// Source and Medium are the session's ("chatgpt.com", "referral");
	// Channel is the product's channel grouping ("AI Assistant"), or "".
	Source, Medium, Channel string
	Sessions, Pageviews     int64
	EngagedSessions         int64
	// DurationMs is the sessions' total duration.
	DurationMs int64
}

// AnalyticsPageRow is the sessions that landed on Path from one source.
type AnalyticsPageRow struct {
	Path, Source, Medium, Channel   string
	Sessions, Pageviews, DurationMs int64
}
