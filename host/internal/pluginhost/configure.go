package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/sdk"
)

// configure sends the plugin block's settings to a process that has just
// started: on the first call, after a crash restart, and in the new
// generation after a reload. A block without settings sends nothing, so
// plugins built without Configure keep working. A refusal fails the start:
// the process is killed and the caller gets an unconfigured *sdk.Error
// naming the plugin, the keys and the plugin's message, with every setting
// value hidden from it.
func (p *process) configure(h *handle) error {
	if len(p.settings) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(p.timeout, startTimeout))
	defer cancel()
	var c sdk.Configurer
	switch {
	case h.provider != nil:
		c = h.provider
	case h.analytics != nil:
		c = h.analytics
	default:
		c = h.destination
	}
	err := c.Configure(ctx, p.settings)
	if err == nil {
		return nil
	}
	keys := strings.Join(p.settings.Keys(), ", ")
	msg := err.Error()
	var e *sdk.Error
	if errors.As(err, &e) {
		msg = e.Message
	}
	msg = hideValues(msg, p.settings)
	switch code := sdk.ErrorCode(err); code {
	case sdk.CodeUnimplemented:
		return &sdk.Error{Code: sdk.CodeUnconfigured, Message: fmt.Sprintf("plugin %s does not accept settings (it does not implement Configure), but its config block sets %s", p.name, keys)}
	case sdk.CodeUnavailable, sdk.CodeCanceled:
		return &sdk.Error{Code: sdk.CodeUnavailable, Message: fmt.Sprintf("plugin %s did not take its settings (%s): %s", p.name, keys, msg)}
	default:
		return &sdk.Error{Code: sdk.CodeUnconfigured, Message: fmt.Sprintf("plugin %s refused its settings (%s): %s", p.name, keys, msg)}
	}
}

// hideValues replaces the setting values in a plugin's message (a
// third-party plugin may echo what it refused). Values shorter than four
// characters are left: hiding every "1" or "yes" would garble the message
// and such values are no secrets.
func hideValues(msg string, settings config.Settings) string {
	for _, v := range settings.Values() {
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "[hidden]")
		}
	}
	return msg
}
