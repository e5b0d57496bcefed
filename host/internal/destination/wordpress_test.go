package destination_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestSavingAConnectionChecksItWithTheRemote(t *testing.T) {
	t.Parallel()
	b := scheduletest.Setup(t, storetest.SQLite(t))
	wp := scheduletest.NewFakeWordPress(t)
	const path = "/v1/destinations/wordpress/connection"

	// Refused credentials: 400 naming the field and quoting WordPress;
	// nothing stored.
	res := b.Do(t, "PUT", path, b.Acme, wp.Credentials("wrong")).Want(t, http.StatusBadRequest)
	msg := res.Body["message"].(string)
	if !strings.Contains(msg, "application_password") || !strings.Contains(msg, "The provided password is an invalid application password.") || strings.Contains(msg, "wrong") {
		t.Fatalf("refused message = %q, want it to name application_password and quote WordPress (and not echo the password)", msg)
	}
	if wpEntry := scheduletest.DestinationEntry(t, b.Do(t, "GET", "/v1/destinations", b.Acme, "").Want(t, http.StatusOK), "wordpress"); wpEntry["connected"] != false {
		t.Fatalf("refused credentials were stored: %v", wpEntry)
	}

	// An unreachable site: 503 with the reason.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	body := fmt.Sprintf(`{"credentials":{"site_url":%q,"username":"u","application_password":"p"}}`, closed)
	res = b.Do(t, "PUT", path, b.Acme, body).Want(t, http.StatusServiceUnavailable)
	if msg := res.Body["message"].(string); !strings.Contains(msg, "could not check") || !strings.Contains(msg, "verify=false") {
		t.Fatalf("unreachable message = %q", msg)
	}

	// ?verify=false skips the check and says so.
	res = b.Do(t, "PUT", path+"?verify=false", b.Acme, body).Want(t, http.StatusOK)
	if check := res.Body["destination"].(map[string]any)["lastCheck"].(map[string]any); check["result"] != "skipped" || check["checkedAt"] != nil {
		t.Fatalf("skipped check = %v", check)
	}

	// Good credentials: checked, and the list shows when and for whom.
	before := time.Now().Add(-time.Second)
	b.Do(t, "PUT", path, b.Acme, wp.Credentials(scheduletest.WPPassword)).Want(t, http.StatusOK)
	check := scheduletest.DestinationEntry(t, b.Do(t, "GET", "/v1/destinations", b.Acme, "").Want(t, http.StatusOK), "wordpress")["lastCheck"].(map[string]any)
	at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(check["checkedAt"]))
	if check["result"] != "ok" || check["account"] != "Ed Itor" || err != nil || at.Before(before) {
		t.Fatalf("last check = %v", check)
	}
}
