package plugintest

import (
	"context"
	"errors"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
)

// DestinationChecks are the plugin-specific inputs of the destination
// conformance checks.
type DestinationChecks struct {
	// Valid is a payload and credentials that Validate must accept. Each
	// required key is also removed from it in turn to check that Validate
	// names it.
	Valid sdk.ValidateRequest
	// Export, when non-nil, is exported and must succeed. Point its
	// credentials at a fake of the remote (an httptest server).
	Export *sdk.ExportRequest
	// Failures are exports that must fail with the given error after the
	// round trip through gRPC.
	Failures []ExportFailure
	// Connection holds credentials the remote (a fake) accepts:
	// CheckConnection must succeed with them. RefusedConnection holds
	// credentials it refuses: CheckConnection must fail with
	// unauthenticated or permission_denied, not retryable, with a message
	// that names a credential field. Leave both nil for a destination that
	// is not an [sdk.ConnectionChecker]: CheckConnection must then answer
	// unimplemented.
	Connection, RefusedConnection *sdk.CheckConnectionRequest
}

// ExportFailure is an export that must fail.
type ExportFailure struct {
	// Name is a sentence naming the case, used as the subtest name.
	Name    string
	Request sdk.ExportRequest
	// Want is compared on Code, Retryable, StatusCode and RetryAfter.
	Want sdk.Error
}

// TestDestination serves d in-process through gRPC and runs
// [CheckDestination] against the client.
func TestDestination(t *testing.T, d sdk.Destination, c DestinationChecks) {
	t.Helper()
	CheckDestination(t, InProcessDestination(t, d), c)
}

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// CheckDestination runs the destination conformance checks against d, which
// is normally a client from [InProcessDestination] or [Process.Destination].
func CheckDestination(t *testing.T, d sdk.Destination, c DestinationChecks) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)

	info, err := d.Info(ctx)
	if err != nil {
		t.Fatalf("Info: %v", err)
	}

	t.Run("Info names the destination, its keys and its credential fields", func(t *testing.T) {
		if !namePattern.MatchString(info.Name) {
			t.Errorf("Name = %q, want a lowercase identifier", info.Name)
		}
		if info.DisplayName == "" {
			t.Error("DisplayName is empty")
		}
		seen := map[string]bool{}
		for _, k := range info.RequiredKeys {
			if k == "" || seen[k] {
				t.Errorf("required key %q is empty or repeated", k)
			}
			seen[k] = true
		}
		for _, k := range info.OptionalKeys {
			if k == "" || seen[k] {
				t.Errorf("optional key %q is empty or repeated (or also required)", k)
			}
			seen[k] = true
		}
		fields := map[string]bool{}
		for _, f := range info.Credentials {
			if f.Name == "" || f.Label == "" || fields[f.Name] {
				t.Errorf("credential field %+v has no name or label, or is repeated", f)
			}
			fields[f.Name] = true
		}
	})

	t.Run("Validate accepts the valid payload", func(t *testing.T) {
		problems, err := d.Validate(ctx, c.Valid)
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		if len(problems) != 0 {
			t.Errorf("Validate found problems in the valid payload: %+v", problems)
		}
	})

	t.Run("Validate names every missing key and credential of an empty payload", func(t *testing.T) {
		problems, err := d.Validate(ctx, sdk.ValidateRequest{Content: sdk.Content{}, Credentials: map[string]string{}})
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		for _, k := range info.RequiredKeys {
			if !hasProblem(problems, k) {
				t.Errorf("no problem names missing key %q; got %+v", k, problems)
			}
		}
		for _, f := range info.Credentials {
			if f.Required && !hasProblem(problems, sdk.CredentialKey(f.Name)) {
				t.Errorf("no problem names missing credential %q; got %+v", sdk.CredentialKey(f.Name), problems)
			}
		}
	})

	t.Run("Validate names a required key removed from the valid payload", func(t *testing.T) {
		if len(info.RequiredKeys) == 0 {
			t.Skip("no required keys")
		}
		for _, k := range info.RequiredKeys {
			content := maps.Clone(c.Valid.Content)
			delete(content, k)
			problems, err := d.Validate(ctx, sdk.ValidateRequest{Content: content, Credentials: c.Valid.Credentials})
			if err != nil {
				t.Fatalf("Validate without %q: %v", k, err)
			}
			if !hasProblem(problems, k) {
				t.Errorf("without %q, no problem names it; got %+v", k, problems)
			}
		}
	})

	// Destinations without required keys (webhook) still have required
	// credentials: each is removed in turn from the valid payload, and
	// both Validate and Export must refuse the result.
	required := requiredCredentials(info)
	t.Run("Validate names a required credential removed from the valid payload", func(t *testing.T) {
		if len(required) == 0 {
			t.Skip("no required credentials")
		}
		for _, f := range required {
			creds := maps.Clone(c.Valid.Credentials)
			delete(creds, f)
			problems, err := d.Validate(ctx, sdk.ValidateRequest{Content: c.Valid.Content, Credentials: creds})
			if err != nil {
				t.Fatalf("Validate without credential %q: %v", f, err)
			}
			if !hasProblem(problems, sdk.CredentialKey(f)) {
				t.Errorf("without credential %q, no problem names %q; got %+v", f, sdk.CredentialKey(f), problems)
			}
		}
	})
	t.Run("Export refuses a payload without a required credential and does not ask for a retry", func(t *testing.T) {
		if len(required) == 0 {
			t.Skip("no required credentials")
		}
		for _, f := range required {
			creds := maps.Clone(c.Valid.Credentials)
			delete(creds, f)
			_, err := d.Export(ctx, sdk.ExportRequest{ScheduleID: "conformance", IdempotencyKey: "conformance", Content: c.Valid.Content, Credentials: creds})
			var e *sdk.Error
			if !errors.As(err, &e) {
				t.Fatalf("Export without credential %q: error = %v, want an *sdk.Error", f, err)
			}
			if (e.Code != sdk.CodeInvalidArgument && e.Code != sdk.CodeUnconfigured) || e.Retryable {
				t.Errorf("Export without credential %q: error = %+v, want code %q or %q and not retryable", f, e, sdk.CodeInvalidArgument, sdk.CodeUnconfigured)
			}
		}
	})
	if len(info.RequiredKeys) == 0 && len(required) == 0 && c.Export == nil && len(c.Failures) == 0 {
		t.Log("plugintest: this destination has no required key or credential and no Export case: only Info and Validate of the valid payload are checked")
	}

	if len(info.RequiredKeys) > 0 {
		t.Run("Export refuses a payload without its required keys and does not ask for a retry", func(t *testing.T) {
			_, err := d.Export(ctx, sdk.ExportRequest{ScheduleID: "conformance", IdempotencyKey: "conformance", Content: sdk.Content{}, Credentials: c.Valid.Credentials})
			var e *sdk.Error
			if !errors.As(err, &e) {
				t.Fatalf("Export error = %v, want an *sdk.Error", err)
			}
			if e.Code != sdk.CodeInvalidArgument || e.Retryable {
				t.Errorf("Export error = %+v, want code %q and not retryable", e, sdk.CodeInvalidArgument)
			}
		})
	}

	if !info.CanDelete {
		t.Run("Delete answers unimplemented when the destination cannot delete", func(t *testing.T) {
			del, ok := d.(sdk.Deleter)
			if !ok {
				t.Skip("not a client: Delete is not reachable")
			}
			err := del.Delete(ctx, sdk.DeleteRequest{ExternalID: "x", Credentials: c.Valid.Credentials})
			if got := sdk.ErrorCode(err); got != sdk.CodeUnimplemented {
				t.Errorf("Delete error = %v, want code %q", err, sdk.CodeUnimplemented)
			}
		})
	}

	checkConnection(ctx, t, d, info, c)

	if c.Export != nil {
		t.Run("Export of the valid payload succeeds", func(t *testing.T) {
			if _, err := d.Export(ctx, *c.Export); err != nil {
				t.Errorf("Export: %v", err)
			}
		})
	}

	for _, f := range c.Failures {
		t.Run(f.Name, func(t *testing.T) {
			_, err := d.Export(ctx, f.Request)
			checkError(t, err, f.Want)
		})
	}
}

func checkConnection(ctx context.Context, t *testing.T, d sdk.Destination, info sdk.DestinationInfo, c DestinationChecks) {
	t.Helper()
	checker, ok := d.(sdk.ConnectionChecker)
	if !ok {
		return // not a client: CheckConnection is not reachable
	}
	if c.Connection == nil && c.RefusedConnection == nil {
		t.Run("CheckConnection answers unimplemented when the destination cannot check", func(t *testing.T) {
			_, err := checker.CheckConnection(ctx, sdk.CheckConnectionRequest{Credentials: c.Valid.Credentials})
			if got := sdk.ErrorCode(err); got != sdk.CodeUnimplemented {
				t.Errorf("CheckConnection error = %v, want code %q (or pass DestinationChecks.Connection)", err, sdk.CodeUnimplemented)
			}
		})
		return
	}
	if c.Connection != nil {
		t.Run("CheckConnection accepts credentials the remote accepts", func(t *testing.T) {
			if _, err := checker.CheckConnection(ctx, *c.Connection); err != nil {
				t.Errorf("CheckConnection: %v", err)
			}
		})
	}
	if c.RefusedConnection != nil {
		t.Run("CheckConnection of refused credentials names the field to check", func(t *testing.T) {
			_, err := checker.CheckConnection(ctx, *c.RefusedConnection)
			var e *sdk.Error
			if !errors.As(err, &e) || (e.Code != sdk.CodeUnauthenticated && e.Code != sdk.CodePermissionDenied) || e.Retryable {
				t.Fatalf("CheckConnection error = %v, want a non-retryable unauthenticated or permission_denied *sdk.Error", err)
			}
			for _, f := range info.Credentials {
				if strings.Contains(e.Message, f.Name) {
					return
				}
			}
			t.Errorf("message %q names none of the credential fields", e.Message)
		})
	}
}

func requiredCredentials(info sdk.DestinationInfo) []string {
	var out []string
	for _, f := range info.Credentials {
		if f.Required {
			out = append(out, f.Name)
		}
	}
	return out
}

func hasProblem(problems []sdk.Problem, key string) bool {
	for _, p := range problems {
		if p.Key == key && p.Message != "" {
			return true
		}
	}
	return false
}

func checkError(t *testing.T, err error, want sdk.Error) {
	t.Helper()
	var e *sdk.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want an *sdk.Error", err)
	}
	if e.Code != want.Code || e.Retryable != want.Retryable || e.StatusCode != want.StatusCode || e.RetryAfter != want.RetryAfter {
		t.Errorf("error = {Code:%s Retryable:%v StatusCode:%d RetryAfter:%s}, want {Code:%s Retryable:%v StatusCode:%d RetryAfter:%s}",
			e.Code, e.Retryable, e.StatusCode, e.RetryAfter, want.Code, want.Retryable, want.StatusCode, want.RetryAfter)
	}
	if e.Message == "" {
		t.Error("error message is empty")
	}
}
