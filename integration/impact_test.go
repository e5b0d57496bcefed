package integration_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
	"github.com/heraldhq/herald/internal/testwait"
)

// The impact of a published post, end to end: the real binary on
// PostgreSQL, the real openai plugin answering as the engine (and the
// judges) against a scripted fake, and the real wordpress plugin
// publishing to a WordPress-shaped fake. Two trackers of the same site
// run their baseline; a post is written for the tagged prompts of each
// and published; then the engine starts naming the brand on the first
// tracker's targeted prompts and not on the second's.
//
// Waiting 7 days is impossible, so the test moves time in the store, as
// the days would: once the baseline runs are done and the posts are
// published, the baseline runs' created_at (and their answers' asked_at)
// go back 10 days and the posts' published_at 8 days (SQL on the host's
// schema); the runs after are real
// runs made now. The impact then reads baseline runs 2 days before
// publishing and after runs 8 days after it.

const impactDay = int64(24 * time.Hour / time.Millisecond)

// wpFake answers the wordpress plugin's calls as WordPress does; every
// post is published at link.
type wpFake struct {
	*httptest.Server
	mu    sync.Mutex
	link  string
	posts int
}

func newWPFake(t *testing.T) *wpFake {
	f := &wpFake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if u, p, ok := r.BasicAuth(); !ok || u != "editor" || p != "abcd efgh ijkl mnop" {
			w.WriteHeader(401)
			io.WriteString(w, `{"code":"incorrect_password","message":"The provided password is an invalid application password.","data":{"status":401}}`)
			return
		}
		switch r.Method + " " + r.URL.Path {
		case "GET /wp-json/wp/v2/users/me":
			io.WriteString(w, `{"id":3,"name":"Ed Itor","slug":"editor"}`)
		case "POST /wp-json/wp/v2/posts":
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				w.WriteHeader(400)
				fmt.Fprintf(w, `{"code":"rest_invalid_json","message":"content type %s"}`, ct)
				return
			}
			f.mu.Lock()
			f.posts++
			link := fmt.Sprintf("%s-%d/", f.link, f.posts)
			f.mu.Unlock()
			w.WriteHeader(201)
			fmt.Fprintf(w, `{"id":%d,"link":%q,"status":"publish"}`, 1000+f.posts, link)
		default:
			w.WriteHeader(404)
			io.WriteString(w, `{"code":"rest_no_route","message":"No route was found matching the URL and request method."}`)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func TestImpactOfAPublishedPost(t *testing.T) {
	t.Parallel()
	changed := []string{"Which privacy analytics tool suits a startup?", "What analytics tool works without cookies?", "Which web analytics tool is GDPR compliant?"}
	steady := []string{"Which analytics tool suits a newsroom?", "What analytics tool handles high traffic?", "Which analytics tool has a public dashboard?"}
	controls := []string{"Which tool tracks marketing campaigns?", "What is a good dashboard for founders?", "Which analytics tool is cheapest?", "What tool shows referrers?"}
	answers := map[string]string{}
	for _, q := range append(append(append([]string{}, changed...), steady...), controls...) {
		answers[q] = "The usual choice is Matomo, and Fathom is close behind."
	}
	// Self is named on two control prompts throughout; the other two name
	// nobody, so the gap is the targeted prompts alone.
	answers[controls[0]] = "The usual choice is Matomo, then Plausible."
	answers[controls[1]] = "The usual choice is Plausible, then Matomo."
	answers[controls[2]] = "A spreadsheet is the usual choice."
	answers[controls[3]] = "A spreadsheet is the usual choice."
	openai := newJudgeFake(t, "sk-impact", answers, map[string]bool{})
	var engineMu sync.Mutex // the answers change between runs only
	serve := openai.Server.Config.Handler
	writer := &draftWriter{t: t}
	openai.Server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if writer.serve(w, r) {
			return
		}
		engineMu.Lock()
		defer engineMu.Unlock()
		serve.ServeHTTP(w, r)
	})
	siteURL, ca := plausibleSite(t)
	wp := newWPFake(t)
	wp.link = siteURL + "/blog/plausible-guide"
	dbURL := testenv.NewSchema(t, testenv.DatabaseURL(t))
	p := harness.Start(t, harness.Options{Env: withEnv(map[string]string{
		"OPENAI_API_KEY": "sk-impact", "OPENAI_BASE_URL": openai.URL + "/v1", "SSL_CERT_FILE": ca,
		"HERALD_DATABASE_URL": dbURL, "HERALD_REDIS_URL": testenv.RedisURL(t),
	})})
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	db := trackerDB{t: t, conn: conn}

	newTracker := func(targets []string) string {
		prompts := []any{}
		for _, q := range targets {
			prompts = append(prompts, map[string]any{"text": q, "tags": []string{"guide"}})
		}
		for _, q := range controls {
			prompts = append(prompts, q)
		}
		status, out := api(t, p.URL, p.Key, "POST", "/v1/visibility/trackers", map[string]any{
			"websiteurl": siteURL, "competitors": []string{"Fathom (usefathom.com)", "Matomo"}, "prompts": prompts,
			"cadence": "daily", "samples": 1,
		})
		if status != http.StatusCreated {
			t.Fatalf("create tracker: %d %v\n%s", status, out, p.Output())
		}
		return out["tracker"].(map[string]any)["id"].(string)
	}
	moving, still := newTracker(changed), newTracker(steady)
	runs := func(id string, n int) {
		t.Helper()
		for {
			done := db.count(`SELECT COUNT(*) FROM visibility_reports WHERE tracker_id = $1 AND state = 'completed'`, id)
			if done >= n {
				return
			}
			if db.count(`SELECT COUNT(*) FROM visibility_reports WHERE tracker_id = $1 AND state IN ('queued', 'running')`, id) == 0 {
				if status, out := api(t, p.URL, p.Key, "POST", "/v1/visibility/trackers/"+id+"/run", nil); status != http.StatusAccepted {
					t.Fatalf("run tracker: %d %v\n%s", status, out, p.Output())
				}
			}
			if err := testwait.Until(90*time.Second, func() bool {
				return db.count(`SELECT COUNT(*) FROM visibility_reports WHERE tracker_id = $1 AND state = 'completed'`, id) > done
			}); err != nil {
				t.Fatalf("tracker %s: no run completed in 90s\n%s", id, p.Output())
			}
		}
	}
	// The baseline: three runs of each tracker (the first starts at creation).
	runs(moving, 3)
	runs(still, 3)

	rivalOut, err := p.Run(context.Background(), "keys", "create", "--workspace", "rival", "--plan", "business")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, rivalOut)
	}
	rival := harness.LastLine(rivalOut)

	// The gap: the prompts where engines name competitors and not the
	// brand (the three tagged prompts), as a brief.
	status, out := api(t, p.URL, p.Key, "POST", "/v1/visibility/trackers/"+moving+"/brief", nil)
	brief, _ := out["brief"].(map[string]any)
	if status != 200 || len(brief["targetPrompts"].([]any)) != 3 || !strings.Contains(brief["outline"].(string), changed[0]) ||
		strings.Contains(brief["outline"].(string), controls[0]) || strings.Contains(brief["outline"].(string), controls[2]) {
		t.Errorf("brief: %d %v, want the 3 prompts naming competitors without the brand", status, out)
	}
	if status, out := api(t, p.URL, rival, "POST", "/v1/visibility/trackers/"+moving+"/brief", nil); status != 404 {
		t.Errorf("another workspace's tracker brief: %d %v, want 404", status, out)
	}

	// Targets: checked against the workspace's trackers.
	status, out = api(t, p.URL, p.Key, "PUT", "/v1/destinations/wordpress/connection", map[string]any{
		"credentials": map[string]string{"site_url": wp.URL, "username": "editor", "application_password": "abcd efgh ijkl mnop"}})
	if status != http.StatusOK {
		t.Fatalf("connect wordpress: %d %v\n%s", status, out, p.Output())
	}
	post := func(key, tracker string, targets []string) (int, map[string]any) {
		return api(t, p.URL, key, "POST", "/v1/scheduler/create", map[string]any{
			"exportTo": "wordpress", "title": "A guide to privacy analytics", "content": "<p>Plausible measures without cookies.</p>",
			"whenToExport": time.Now().UTC().Format(time.RFC3339), "trackerId": tracker, "targetPrompts": targets,
		})
	}
	if status, out := post(p.Key, moving, nil); status != 400 || !strings.Contains(fmt.Sprint(out), "targetPrompts") {
		t.Errorf("trackerId without targetPrompts: %d %v, want 400 naming targetPrompts", status, out)
	}
	if status, out := post(p.Key, moving, []string{"no-such-tag"}); status != 400 || !strings.Contains(fmt.Sprint(out), "targetPrompts[0]") {
		t.Errorf("a target that is no prompt id or tag: %d %v, want 400 naming targetPrompts[0]", status, out)
	}
	if status, out := post(rival, moving, []string{"guide"}); status != 404 || !strings.Contains(fmt.Sprint(out), "trackerId") {
		t.Errorf("another workspace's tracker: %d %v, want 404 naming trackerId", status, out)
	}
	// One after the other: the first is published (WordPress post 1, the
	// page the engine cites later) before the second is drafted.
	movingPost := draftAndConfirm(t, p.URL, p.Key, rival, moving, wp, writer)
	waitSchedule(t, p.URL, p.Key, movingPost, "published", 60*time.Second)
	stillPost := draftAndConfirm(t, p.URL, p.Key, rival, still, wp, writer)
	if problems := writer.Problems(); len(problems) > 0 {
		t.Errorf("the draft's model requests: %v", problems)
	}
	for _, id := range []string{movingPost, stillPost} {
		waitSchedule(t, p.URL, p.Key, id, "published", 60*time.Second)
	}

	// Just published: pending, with the day the effect can first be read.
	status, out = api(t, p.URL, p.Key, "GET", "/v1/scheduler/"+movingPost+"/impact", nil)
	im, _ := out["impact"].(map[string]any)
	if status != 200 || im["state"] != "pending" || im["readableAt"] == nil || len(im["effects"].([]any)) != 0 {
		t.Fatalf("right after publishing: %d %v, want pending with readableAt and no effect", status, out)
	}
	// Another workspace's schedule and tracker: 404, as if missing.
	if status, out := api(t, p.URL, rival, "GET", "/v1/scheduler/"+movingPost+"/impact", nil); status != 404 {
		t.Errorf("another workspace's schedule impact: %d %v, want 404", status, out)
	}
	if status, out := api(t, p.URL, rival, "GET", "/v1/visibility/trackers/"+moving+"/impact", nil); status != 404 {
		t.Errorf("another workspace's tracker impact: %d %v, want 404", status, out)
	}

	// Ten days pass for the baseline, eight for the posts.
	// The answers age with their runs (an answer is reused for an identical
	// question for minutes only).
	db.exec(`UPDATE visibility_answers SET asked_at = asked_at - $1, created_at = created_at - $1
		WHERE report_id IN (SELECT id FROM visibility_reports WHERE tracker_id IN ($2, $3))`, 10*impactDay, moving, still)
	db.exec(`UPDATE visibility_reports SET created_at = created_at - $1 WHERE tracker_id IN ($2, $3)`, 10*impactDay, moving, still)
	db.exec(`UPDATE schedules SET published_at = published_at - $1 WHERE id IN ($2, $3)`, 8*impactDay, movingPost, stillPost)

	// The engine now names the brand, and cites the post, on the moving
	// tracker's targeted prompts only.
	engineMu.Lock()
	for _, q := range changed {
		answers[q] = "The usual choice is Plausible (" + wp.link + "-1/), then Matomo."
	}
	engineMu.Unlock()
	runs(moving, 6)
	runs(still, 6)

	effect := func(postID string) map[string]any {
		t.Helper()
		status, out := api(t, p.URL, p.Key, "GET", "/v1/scheduler/"+postID+"/impact", nil)
		im, _ := out["impact"].(map[string]any)
		if status != 200 || im["state"] != "ready" {
			t.Fatalf("impact of %s: %d %v, want ready", postID, status, out)
		}
		if im["controlPrompts"] != float64(len(controls)) || len(im["targets"].([]any)) != 3 {
			t.Errorf("impact of %s: %v controls, %d targets; want %d and 3", postID, im["controlPrompts"], len(im["targets"].([]any)), len(controls))
		}
		for _, e := range im["effects"].([]any) {
			if e := e.(map[string]any); e["figure"] == "visibility" {
				return map[string]any{"effect": e, "page": im["page"]}
			}
		}
		t.Fatalf("impact of %s has no visibility effect: %v", postID, im)
		return nil
	}
	got := effect(movingPost)
	e := got["effect"].(map[string]any)
	if e["value"] != float64(100) || e["significant"] != true || e["interval"] == nil {
		t.Errorf("the engine started naming the brand on the targets: effect %v, want +100 and significant", e)
	}
	page := got["page"].(map[string]any)
	if c := page["citations"].(map[string]any); c["before"] != float64(0) || c["after"] != float64(9) {
		t.Errorf("answers citing the post: %v, want 0 before and 9 after (3 prompts × 3 runs)", c)
	}
	got = effect(stillPost)
	if e := got["effect"].(map[string]any); e["value"] != float64(0) || e["significant"] != false {
		t.Errorf("the engine did not change: effect %v, want 0 and not significant", e)
	}

	// The tracker's list has the post, with the same effect.
	status, out = api(t, p.URL, p.Key, "GET", "/v1/visibility/trackers/"+moving+"/impact", nil)
	if posts, _ := out["posts"].([]any); status != 200 || len(posts) != 1 || posts[0].(map[string]any)["scheduleId"] != movingPost {
		t.Errorf("tracker impact list: %d %v", status, out)
	}
}
