package destination_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"net/http"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A sealed connection copied into another workspace's row (a database
// mix-up, a malicious operator with SQL but not the key) does not give that
// workspace the credentials: the additional data binds it to its row.
func TestASealedConnectionCopiedToAnotherWorkspaceDoesNotOpen(t *testing.T) {
	t.Parallel()
	b := scheduletest.Setup(t, storetest.SQLite(t))
	ctx := context.Background()
	b.Do(t, "PUT", "/v1/destinations/wordpress/connection?verify=false", b.Acme, `{"credentials":{"site_url":"https://wp.test","username":"u","application_password":"secret pass"}}`).Want(t, http.StatusOK)
	mine, err := destinationstore.New(b.Store).GetConnection(ctx, b.AcmeID, "wordpress")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := b.Store.EnsureWorkspaceUser(ctx, "other", "business", "o@other.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := destinationstore.New(b.Store).PutConnection(ctx, &destinationstore.Connection{WorkspaceID: other.ID, Destination: "wordpress", Sealed: mine.Sealed, Fields: mine.Fields}); err != nil {
		t.Fatal(err)
	}
	res := b.Do(t, "POST", "/v1/scheduler/create", b.Other, `{"exportTo":"wordpress","title":"T","content":"C","whenToExport":"`+scheduletest.In(time.Hour)+`"}`)
	// Today the unreadable connection is a 500 (as after a key change);
	// any server-side refusal will do, a success or a validation 4xx not.
	if res.Status < 500 {
		t.Fatalf("another workspace's post with a connection sealed for acme: %d %s, want a refusal", res.Status, res.Raw)
	}
	// The owner's connection still opens.
	b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"wordpress","title":"T","content":"C","whenToExport":"`+scheduletest.In(time.Hour)+`"}`).Want(t, http.StatusOK)
}
