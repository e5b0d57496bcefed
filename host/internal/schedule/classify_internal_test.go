package schedule

import (
	"fmt"
	"testing"

	"github.com/heraldhq/herald/sdk"
)

// A host that does not know a destination yet (a rolling reload) retries
// the post later instead of failing it for good.
func TestAnUnknownDestinationIsRetriedLater(t *testing.T) {
	t.Parallel()
	p := &Publisher{}
	reason, retry, after := p.classify(fmt.Errorf("export: %w", sdk.ErrUnknownDestination))
	if !retry || after != UnknownDestinationRetryAfter || reason == "" {
		t.Fatalf("unknown destination: retry=%v after=%s reason=%q; want a retry after %s", retry, after, reason, UnknownDestinationRetryAfter)
	}
	if _, retry, _ := p.classify(&sdk.Error{Code: sdk.CodeInvalidArgument, Message: "bad", StatusCode: 400}); retry {
		t.Fatal("a 400 refusal must not be retried")
	}
}
