package main

import "github.com/heraldhq/herald/config"

// providerHasKey reports whether a provider plugin can answer: a
// first-party provider needs its API key in the host's environment or in
// its plugin block's env; a third-party provider is assumed configured.
func providerHasKey(cfg *config.Config, provider string, getenv func(string) string) bool {
	name := provider
	if p, ok := cfg.Plugins[provider]; ok && p.Command != "" {
		return true
	}
	env, ok := config.ProviderKeyEnv[name]
	if !ok {
		return true
	}
	if p, ok := cfg.Plugins[provider]; ok && p.Env[env] != "" {
		return true
	}
	return getenv(env) != ""
}
