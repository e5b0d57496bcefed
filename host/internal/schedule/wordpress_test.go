package schedule_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestAPostWithAnImageReachesADestinationThatCannotReachHerald(t *testing.T) {
	t.Parallel()
	// The blob store's public URL (http://blobs.test) resolves nowhere, as
	// Herald's own URL is unreachable from a remote site: the plugin must
	// upload the bytes the host passes, not download the URL.
	b := setup(t, storetest.SQLite(t))
	wp := scheduletest.NewFakeWordPress(t)
	b.Do(t, "PUT", "/v1/destinations/wordpress/connection", b.Acme, wp.Credentials(scheduletest.WPPassword)).Want(t, http.StatusOK)

	img := base64.StdEncoding.EncodeToString(pngBytes)
	named := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"wordpress","title":"Launch Day!","content":"<p>Hi</p>","whenToExport":%q,"imageBase64":%q,"imageFileName":"cover shot.png","imageAlt":"The team on launch day"}`, in(0), img)).Want(t, http.StatusOK))
	if c := named["contentToExport"].(map[string]any); c["imageFileName"] != "cover shot.png" || c["imageAlt"] != "The team on launch day" || !strings.HasPrefix(fmt.Sprint(c["imageUrl"]), "http://blobs.test/") {
		t.Fatalf("contentToExport = %v", c)
	}
	b.WaitStatus(t, b.Acme, named["id"].(string), "published", 15*time.Second)
	plain := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"wordpress","title":"Launch Day!","content":"<p>Hi</p>","whenToExport":%q,"imageBase64":%q}`, in(0), img)).Want(t, http.StatusOK))
	b.WaitStatus(t, b.Acme, plain["id"].(string), "published", 15*time.Second)

	want := []scheduletest.Upload{
		{FileName: "cover shot.png", MIMEType: "image/png", Title: "cover shot", Alt: "The team on launch day", Data: pngBytes},
		// Without imageFileName and imageAlt: a slug of the title, and the title.
		{FileName: "launch-day.png", MIMEType: "image/png", Title: "launch-day", Alt: "Launch Day!", Data: pngBytes},
	}
	uploads := wp.Uploads()
	if len(uploads) != len(want) {
		t.Fatalf("%d uploads, want %d", len(uploads), len(want))
	}
	for i, w := range want {
		got := uploads[i]
		if got.FileName != w.FileName || got.MIMEType != w.MIMEType || got.Title != w.Title || got.Alt != w.Alt || !bytes.Equal(got.Data, w.Data) {
			t.Errorf("upload %d = {%q %q %q %q %d bytes}, want {%q %q %q %q the image}", i, got.FileName, got.MIMEType, got.Title, got.Alt, len(got.Data), w.FileName, w.MIMEType, w.Title, w.Alt)
		}
	}
}

func TestARefusedExportNamesTheCredentialsToCheck(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	wp := scheduletest.NewFakeWordPress(t)
	b.Do(t, "PUT", "/v1/destinations/wordpress/connection", b.Acme, wp.Credentials(scheduletest.WPPassword)).Want(t, http.StatusOK)
	// The password is revoked after the connection was saved.
	wp.Refuse()
	id := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"wordpress","title":"T","content":"C","whenToExport":%q}`, in(0))).Want(t, http.StatusOK))["id"].(string)
	sc := b.WaitStatus(t, b.Acme, id, "failed", 15*time.Second)
	if got, _ := sc["lastError"].(string); !strings.Contains(got, "WordPress refused the username or application_password") || sc["attempts"] != float64(1) {
		t.Fatalf("lastError %q after %v attempts, want one attempt naming the credentials", got, sc["attempts"])
	}
	check := scheduletest.DestinationEntry(t, b.Do(t, "GET", "/v1/destinations", b.Acme, "").Want(t, http.StatusOK), "wordpress")["lastCheck"].(map[string]any)
	if check["result"] != "failed" || !strings.Contains(fmt.Sprint(check["message"]), "application_password") {
		t.Fatalf("last check after the refusal = %v", check)
	}
}

func TestOnlyAnHTTPLinkFromTheDestinationBecomesTheExternalURL(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	wp := scheduletest.NewFakeWordPress(t)
	b.Do(t, "PUT", "/v1/destinations/wordpress/connection", b.Acme, wp.Credentials(scheduletest.WPPassword)).Want(t, http.StatusOK)
	for _, tc := range []struct{ link, want string }{
		{"javascript:alert(document.cookie)", ""},
		{"JavaScript:alert(1)", ""},
		{"data:text/html,<script>alert(1)</script>", ""},
		{"/relative/launch", ""},
		{"ftp://blog.example/launch", ""},
		{"https://user:pw@blog.example/", ""},
		{"https://blog.example/launch/", "https://blog.example/launch/"},
	} {
		wp.Link(tc.link)
		id := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"wordpress","title":"T","content":"C","whenToExport":%q}`, in(0))).Want(t, http.StatusOK))["id"].(string)
		sc := b.WaitStatus(t, b.Acme, id, "published", 15*time.Second)
		got, _ := sc["externalUrl"].(string)
		if got != tc.want {
			t.Errorf("link %q: externalUrl %q, want %q", tc.link, got, tc.want)
		}
		stored, err := b.Store.GetSchedule(context.Background(), b.AcmeID, id)
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == "" && stored.ExternalURL != nil {
			t.Errorf("link %q stored as %q", tc.link, *stored.ExternalURL)
		}
	}
}
