package pluginhost

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/heraldhq/herald/sdk"
)

// Analytics returns the analytics source plugin name as an
// sdk.AnalyticsSource whose calls go through the manager (lazy start,
// restart after a crash, the call timeout). Every call of an analytics
// source reads or renews credentials, so one interrupted by a crash is
// repeated once, except Exchange (a code works once) and Revoke. An
// unknown name answers a CodeUnimplemented *sdk.Error on every call.
func (m *Manager) Analytics(name string) sdk.AnalyticsSource {
	return analyticsSource{m: m, name: name}
}

type analyticsSource struct {
	m    *Manager
	name string
}

func analyticsCall[T any](ctx context.Context, a analyticsSource, idempotent func() bool, fn func(context.Context, *sdk.AnalyticsClient) (T, error)) (T, error) {
	var zero T
	g, err := a.m.acquire()
	if err != nil {
		return zero, err
	}
	defer a.m.release(g)
	p, ok := g.procs[a.name]
	if !ok || p.kind != sdk.AnalyticsPluginName {
		var known []string
		for _, n := range slices.Sorted(maps.Keys(g.procs)) {
			if g.procs[n].kind == sdk.AnalyticsPluginName {
				known = append(known, n)
			}
		}
		return zero, &sdk.Error{Code: sdk.CodeUnimplemented, Message: fmt.Sprintf("no analytics source plugin %q is configured (configured: %s)", a.name, strings.Join(known, ", "))}
	}
	return call(ctx, p, methodAnalytics, idempotent, func(ctx context.Context, h *handle) (T, error) {
		return fn(ctx, h.analytics)
	})
}

func (a analyticsSource) Info(ctx context.Context) (sdk.AnalyticsInfo, error) {
	return analyticsCall(ctx, a, always, func(ctx context.Context, c *sdk.AnalyticsClient) (sdk.AnalyticsInfo, error) { return c.Info(ctx) })
}

func (a analyticsSource) AuthURL(ctx context.Context, req sdk.AuthURLRequest) (string, error) {
	return analyticsCall(ctx, a, always, func(ctx context.Context, c *sdk.AnalyticsClient) (string, error) { return c.AuthURL(ctx, req) })
}

func (a analyticsSource) Exchange(ctx context.Context, req sdk.ExchangeRequest) (sdk.Grant, error) {
	return analyticsCall(ctx, a, never, func(ctx context.Context, c *sdk.AnalyticsClient) (sdk.Grant, error) { return c.Exchange(ctx, req) })
}

func (a analyticsSource) Refresh(ctx context.Context, creds map[string]string) (sdk.Grant, error) {
	return analyticsCall(ctx, a, always, func(ctx context.Context, c *sdk.AnalyticsClient) (sdk.Grant, error) { return c.Refresh(ctx, creds) })
}

func (a analyticsSource) Revoke(ctx context.Context, creds map[string]string) error {
	_, err := analyticsCall(ctx, a, never, func(ctx context.Context, c *sdk.AnalyticsClient) (struct{}, error) {
		return struct{}{}, c.Revoke(ctx, creds)
	})
	return err
}

func (a analyticsSource) Properties(ctx context.Context, creds map[string]string) ([]sdk.AnalyticsProperty, error) {
	return analyticsCall(ctx, a, always, func(ctx context.Context, c *sdk.AnalyticsClient) ([]sdk.AnalyticsProperty, error) {
		return c.Properties(ctx, creds)
	})
}

func (a analyticsSource) Report(ctx context.Context, req sdk.AnalyticsReportRequest) (sdk.AnalyticsReport, error) {
	return analyticsCall(ctx, a, always, func(ctx context.Context, c *sdk.AnalyticsClient) (sdk.AnalyticsReport, error) {
		return c.Report(ctx, req)
	})
}
