// Package provider holds what Herald's first-party provider plugins share.
package provider

import (
	"net/url"

	"github.com/heraldhq/herald/sdk"
)

// CheckSettings checks a provider's settings before any is applied: only
// api_key (not empty) and base_url (an http(s) URL) are known. Its errors
// name the plugin and the key, never a value.
func CheckSettings(plugin string, settings map[string]string) error {
	for k, v := range settings {
		switch k {
		case "api_key":
			if v == "" {
				return sdk.Errorf(sdk.CodeInvalidArgument, "%s setting api_key is empty", plugin)
			}
		case "base_url":
			if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return sdk.Errorf(sdk.CodeInvalidArgument, "%s setting base_url must be an http(s) URL", plugin)
			}
		default:
			return sdk.Errorf(sdk.CodeInvalidArgument, "%s has no setting %q (settings: api_key, base_url)", plugin, k)
		}
	}
	return nil
}
