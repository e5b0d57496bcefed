package generate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/testlog"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/sdk"
)

// A literal plugin setting added by a reload (no key-like
// shape, so only the list catches it) is redacted from logged provider
// errors from then on, and the values known at start stay redacted.
func TestSecretsAddedByAReloadAreRedacted(t *testing.T) {
	t.Parallel()
	var logs testlog.Buffer
	svc, r := bare(t, generate.Deps{Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn}),
		Secrets: []string{"start-time-password"}})
	const added = "corp-proxy-passphrase-7731"
	fail := func() {
		r.textErrs = []error{&sdk.Error{Code: sdk.CodeInvalidArgument, Message: "proxy refused " + added + " and start-time-password"}}
		if _, _, err := svc.GenerateText(context.Background(), auth.Principal{WorkspaceID: "w"}, generate.TextInput{Model: "gpt-4o", Text: "x"}); err == nil {
			t.Fatal("no error")
		}
	}
	svc.RedactAlso([]string{added, "start-time-password"})
	fail()
	log := logs.String()
	if !strings.Contains(log, "proxy refused") {
		t.Fatalf("the provider error was not logged:\n%s", log)
	}
	for _, v := range []string{added, "start-time-password"} {
		if strings.Contains(log, v) {
			t.Errorf("the log carries %q:\n%s", v, log)
		}
	}
}
