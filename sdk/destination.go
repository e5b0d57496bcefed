package sdk

import (
	"context"
	"fmt"
	"strings"
)

// Destination is implemented by plugins that publish scheduled content to a
// CMS, a social network or a webhook. Deleting exported content is optional
// ([Deleter]), and so are operator settings ([Configurer]).
//
// Methods may be called concurrently. Return an [*Error] from Export so the
// host knows whether to retry: [RemoteError] and [RequestError] build the
// right one from an HTTP exchange.
type Destination interface {
	// Info describes the destination: the contentToExport keys and the
	// credential fields it needs.
	Info(ctx context.Context) (DestinationInfo, error)
	// Validate checks a payload and credentials without calling the remote
	// and returns the problems found (none when it can be exported).
	// [CheckRequired] does the checks that follow from Info.
	Validate(ctx context.Context, req ValidateRequest) ([]Problem, error)
	// Export publishes one schedule. It should pass req.IdempotencyKey to
	// remotes that support one, because the host may repeat an Export whose
	// outcome it did not learn.
	Export(ctx context.Context, req ExportRequest) (ExportResult, error)
}

// Deleter is implemented by destinations that can remove what they exported.
type Deleter interface {
	Delete(ctx context.Context, req DeleteRequest) error
}

// ConnectionChecker is implemented by destinations that can verify
// credentials with one cheap authenticated call to the remote (the host
// calls it when a workspace saves a connection). Without it the host's
// CheckConnection answers [CodeUnimplemented] and the connection is saved
// unverified.
//
// Return [CodeUnauthenticated] or [CodePermissionDenied] when the remote
// refuses the credentials, with a message naming the credential fields to
// check and quoting the remote's reason ([CredentialsRefused] builds it),
// [CodeInvalidArgument] for a malformed credential, and a retryable
// [CodeUnavailable] when the remote cannot be reached.
type ConnectionChecker interface {
	CheckConnection(ctx context.Context, req CheckConnectionRequest) (CheckConnectionResult, error)
}

// CheckConnectionRequest carries the credentials to verify.
type CheckConnectionRequest struct {
	Credentials map[string]string
}

// CheckConnectionResult says whom the remote recognised.
type CheckConnectionResult struct {
	// Account names the remote account the credentials belong to (a user
	// name, an e-mail), for display; may be empty.
	Account string
}

// DestinationInfo describes a destination.
type DestinationInfo struct {
	// Name is the stable identifier used as a schedule's exportTo.
	Name        string
	DisplayName string
	// RequiredKeys are the contentToExport keys Export needs.
	RequiredKeys []string
	// OptionalKeys are the other contentToExport keys Export reads.
	OptionalKeys []string
	// Credentials are the per-workspace credential fields Export needs.
	Credentials []Field
	// CanDelete reports whether the plugin implements [Deleter]. The SDK
	// sets it when serving; plugins need not.
	CanDelete bool
	// Idempotent reports that the remote deduplicates exports on
	// [ExportRequest].IdempotencyKey, so that repeating an Export whose
	// outcome the host did not learn (a plugin crash during the call)
	// publishes once. Set it only when that holds: the host then repeats
	// such an Export once instead of failing the post.
	Idempotent bool
}

// Content is a schedule's contentToExport: JSON values by key.
type Content map[string]any

// String returns the value at key as a trimmed string: strings as they are,
// numbers and booleans formatted, anything else (or nothing) as "".
func (c Content) String(key string) string {
	switch v := c[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case float64, bool, int, int64:
		return fmt.Sprint(v)
	default:
		return ""
	}
}

// ValidateRequest is a payload to check.
type ValidateRequest struct {
	Content     Content
	Credentials map[string]string
}

// ExportRequest publishes one schedule.
type ExportRequest struct {
	ScheduleID string
	// IdempotencyKey is the same on every attempt to export one schedule.
	IdempotencyKey string
	Content        Content
	Credentials    map[string]string
	// ImageURL is the schedule's durable image, or "".
	ImageURL string
	// ImageData holds the bytes behind ImageURL whenever the host stores the
	// image (always, for images re-hosted by Herald): use them rather than
	// fetching ImageURL, which may be a private address the plugin cannot
	// (and should not) reach. [ExportRequest.Image] does so.
	ImageData     []byte
	ImageMIMEType string
	// ImageFileName is a meaningful file name for uploads (the schedule's
	// imageFileName, else a slug of its title, with an extension); may be
	// empty, in which case [ExportRequest.Image] derives one.
	ImageFileName string
	// ImageAlt is the image's alternative text (the schedule's imageAlt,
	// else its title). Pass it wherever the remote takes alt text.
	ImageAlt string
}

// ExportResult identifies what the remote created.
type ExportResult struct {
	ExternalID  string
	ExternalURL string
}

// DeleteRequest removes an exported item.
type DeleteRequest struct {
	ExternalID  string
	Credentials map[string]string
	Content     Content
}

// Problem is one reason a payload cannot be exported.
type Problem struct {
	// Key names the offending field: a contentToExport key such as "title",
	// or "credentials.<name>" for a credential.
	Key     string
	Message string
}

// CredentialKey returns the Problem key for the credential name.
func CredentialKey(name string) string { return "credentials." + name }

// CheckRequired returns a Problem for every required key of info that is
// missing or empty in content, and for every required credential that is
// missing or empty, in the order info lists them.
func CheckRequired(info DestinationInfo, content Content, credentials map[string]string) []Problem {
	var problems []Problem
	for _, k := range info.RequiredKeys {
		if content.String(k) == "" {
			problems = append(problems, Problem{Key: k, Message: fmt.Sprintf("contentToExport.%s is required by %s", k, info.Name)})
		}
	}
	for _, f := range info.Credentials {
		if f.Required && strings.TrimSpace(credentials[f.Name]) == "" {
			problems = append(problems, Problem{Key: CredentialKey(f.Name), Message: fmt.Sprintf("credential %q (%s) is required by %s", f.Name, f.Label, info.Name)})
		}
	}
	return problems
}

// ProblemsError returns a CodeInvalidArgument *Error listing the problems,
// or nil when there are none. Export uses it to refuse a payload that
// Validate would reject.
func ProblemsError(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Message
	}
	return &Error{Code: CodeInvalidArgument, Message: strings.Join(msgs, "; ")}
}
