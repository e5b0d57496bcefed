package destination_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A sealed connection copied into another workspace's row (a database
// mix-up, a malicious operator with SQL but not the key) does not give that
// workspace the credentials: the additional data binds it to its row.
func TestASealedConnectionCopiedToAnotherWorkspaceDoesNotOpen(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	ctx := context.Background()
	b.do(t, "PUT", "/v1/destinations/wordpress/connection?verify=false", b.acme, `{"credentials":{"site_url":"https://wp.test","username":"u","application_password":"secret pass"}}`).want(t, http.StatusOK)
	mine, err := b.store.GetConnection(ctx, b.acmeID, "wordpress")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := b.store.EnsureWorkspaceUser(ctx, "other", "business", "o@other.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.store.PutConnection(ctx, &store.Connection{WorkspaceID: other.ID, Destination: "wordpress", Sealed: mine.Sealed, Fields: mine.Fields}); err != nil {
		t.Fatal(err)
	}
	res := b.do(t, "POST", "/v1/scheduler/create", b.other, `{"exportTo":"wordpress","title":"T","content":"C","whenToExport":"`+in(time.Hour)+`"}`)
	// Today the unreadable connection is a 500 (as after a key change);
	// any server-side refusal will do, a success or a validation 4xx not.
	if res.status < 500 {
		t.Fatalf("another workspace's post with a connection sealed for acme: %d %s, want a refusal", res.status, res.raw)
	}
	// The owner's connection still opens.
	b.do(t, "POST", "/v1/scheduler/create", b.acme, `{"exportTo":"wordpress","title":"T","content":"C","whenToExport":"`+in(time.Hour)+`"}`).want(t, http.StatusOK)
}
