package destination_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestConnectionsAreSealedAndNeverReturned(t *testing.T) {
	t.Parallel()
	b := scheduletest.Setup(t, storetest.SQLite(t))
	const password = "abcd EFGH ijkl MNOP"
	for _, tc := range []struct {
		name, path, body string
		want             int
		message          string
	}{
		{"an unknown destination is 404", "/v1/destinations/myspace/connection", `{"credentials":{}}`, 404, `destination "myspace" is not configured`},
		{"webhook points to saved webhooks", "/v1/destinations/webhook/connection", `{"credentials":{"url":"https://x.test"}}`, 400, "POST /v1/webhooks"},
		{"unknown fields are named", "/v1/destinations/wordpress/connection", `{"credentials":{"site_url":"https://wp.test","token":"x"}}`, 400, "wordpress has no credential fields token"},
		{"missing required fields are named", "/v1/destinations/wordpress/connection", `{"credentials":{"site_url":"https://wp.test"}}`, 400, `credential "username"`},
		{"the plugin's checks apply", "/v1/destinations/wordpress/connection", `{"credentials":{"site_url":"ftp://wp.test","username":"u","application_password":"p"}}`, 400, "site_url must be an http(s) URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := b.Do(t, "PUT", tc.path, b.Acme, tc.body).Want(t, tc.want)
			if !strings.Contains(res.Body["message"].(string), tc.message) {
				t.Fatalf("message %q, want %q", res.Body["message"], tc.message)
			}
		})
	}
	res := b.Do(t, "PUT", "/v1/destinations/wordpress/connection?verify=false", b.Acme, `{"credentials":{"site_url":"https://wp.test","username":"u","application_password":"`+password+`"}}`).Want(t, http.StatusOK)
	d := res.Body["destination"].(map[string]any)
	if d["connected"] != true || fmt.Sprint(d["connectedFields"]) != "[application_password site_url username]" || strings.Contains(res.Raw, password) {
		t.Fatalf("connect: %s", res.Raw)
	}
	list := b.Do(t, "GET", "/v1/destinations", b.Acme, "").Want(t, http.StatusOK)
	if strings.Contains(list.Raw, password) {
		t.Fatal("the list shows a credential value")
	}
	byName := map[string]map[string]any{}
	for _, it := range list.Body["destinations"].([]any) {
		m := it.(map[string]any)
		byName[m["name"].(string)] = m
	}
	if wp := byName["wordpress"]; wp["connected"] != true || len(wp["credentials"].([]any)) != 3 || !slices.Contains(wp["requiredKeys"].([]any), any("title")) {
		t.Fatalf("wordpress entry: %v", wp)
	}
	if byName["webhook"]["connected"] != false || byName["webhook"]["connectWith"] != "POST /v1/webhooks" || byName["notion"]["connected"] != false {
		t.Fatalf("other entries: %v %v", byName["webhook"], byName["notion"])
	}
	if other := b.Do(t, "GET", "/v1/destinations", b.Other, ""); strings.Contains(other.Raw, `"connected":true`) {
		t.Fatalf("another workspace sees the connection: %s", other.Raw)
	}
	var sealed string
	storetest.QueryRow(context.Background(), b.Store, `SELECT sealed FROM destination_connections WHERE workspace_id = $1`, b.AcmeID).Scan(&sealed)
	if !strings.HasPrefix(sealed, "v1.") || strings.Contains(sealed, password) || strings.Contains(sealed, "wp.test") {
		t.Fatalf("stored credentials are not sealed: %q", sealed)
	}
	// A connected destination accepts a pending post.
	b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"wordpress","title":"T","content":"C","whenToExport":"`+scheduletest.In(time.Hour)+`"}`).Want(t, http.StatusOK)
	b.Do(t, "DELETE", "/v1/destinations/wordpress/connection", b.Acme, "").Want(t, http.StatusOK)
	b.Do(t, "DELETE", "/v1/destinations/wordpress/connection", b.Acme, "").Want(t, http.StatusNotFound)
}

func TestWithoutASecretKeyCredentialsAreRefusedWith503(t *testing.T) {
	t.Parallel()
	b := scheduletest.Setup(t, storetest.SQLite(t), scheduletest.Options{})
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/webhooks", `{"url":"https://hooks.test/x"}`},
		{"PUT", "/v1/destinations/wordpress/connection", `{"credentials":{"site_url":"https://wp.test","username":"u","application_password":"p"}}`},
	} {
		res := b.Do(t, tc.method, tc.path, b.Acme, tc.body).Want(t, http.StatusServiceUnavailable)
		if !strings.Contains(res.Body["message"].(string), "HERALD_SECRET_KEY is not set") {
			t.Fatalf("message: %s", res.Raw)
		}
	}
}
