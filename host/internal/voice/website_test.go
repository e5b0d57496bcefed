package voice_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestWebsiteVoiceIsAModelProfileOfTheSite(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, opts{})
		for _, path := range []string{"/v1/ai/generate/brand-voice/website", "/v1/ai/chat/brand-voice"} {
			r := b.srv.Do(t, "POST", path, b.alice, `{"websiteurl":"https://example.com/","fetchInterval":"daily"}`).Want(t, 201)
			d := r.Data(t)
			if d["name"] != "Acme Tools" || d["type"] != "website" || d["url"] != "https://example.com/" || d["contentLength"].(float64) < 20 || d["id"] == nil {
				t.Fatalf("%s: %s", path, r.Raw)
			}
			one := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+d["id"].(string), b.alice, "").Want(t, 200).Data(t)
			content := one["content"].(string)
			// The model saw the home and about pages' main text, not the navigation.
			if !strings.HasPrefix(content, "## Tone") || !strings.Contains(content, "We make garden tools") || !strings.Contains(content, "small team in Leeds") || strings.Contains(content, "Menu") {
				t.Fatalf("content %q", content)
			}
			lf := one["lastFetch"].(map[string]any)
			if one["fetchInterval"] != "daily" || lf["ok"] != true || lf["error"] != nil || lf["at"] == nil {
				t.Fatalf("voice %v", one)
			}
		}
		if len(b.model.reqs) != 2 || !strings.Contains(b.model.reqs[0].System, "writing-style profile") || b.model.reqs[0].Model != "gpt-4o-mini" {
			t.Fatalf("model requests %+v", b.model.reqs)
		}
		list := b.srv.Do(t, "GET", "/v1/ai/brand-voice", b.alice, "").Want(t, 200).Body["data"].([]any)
		if len(list) != 2 || list[0].(map[string]any)["type"] != "website" || list[0].(map[string]any)["url"] != "https://example.com/" {
			t.Fatalf("list %v", list)
		}
		// Connect face.
		c := b.srv.Do(t, "POST", "/herald.api.v1.BrandVoiceService/CreateBrandVoiceFromWebsite", b.alice, `{"websiteurl":"example.com","name":"Mine","scope":"personal"}`).Want(t, 200)
		id := c.Data(t)["id"].(string)
		if c.Data(t)["name"] != "Mine" {
			t.Fatalf("connect: %s", c.Raw)
		}
		// A personal voice is the creator's only; another workspace sees nothing.
		b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+id, b.bob, "").Want(t, 404)
		b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+id, b.mallory, "").Want(t, 404)
	})
}

func TestWebsiteVoiceWithoutAModelIsMeasured(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), opts{noModel: true})
	id := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com"}`).Want(t, 201).Data(t)["id"].(string)
	content := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").Want(t, 200).Data(t)["content"].(string)
	for _, want := range []string{"Writing-style profile of Acme Tools", "Reading ease (Flesch)", "Average sentence length", "Person: first person plural", "Top terms:", "- We make garden tools that last for years."} {
		if !strings.Contains(content, want) {
			t.Errorf("measured profile lacks %q:\n%s", want, content)
		}
	}
}

func TestWebsiteVoiceRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), opts{privateRefused: true})
	for _, face := range []string{"/v1/ai/generate/brand-voice/website", "/herald.api.v1.BrandVoiceService/CreateBrandVoiceFromWebsite"} {
		b.srv.Do(t, "POST", face, b.alice, `{"websiteurl":"http://example.com/"}`).WantError(t, 400, "websiteurl", "only https://")
		b.srv.Do(t, "POST", face, b.alice, `{"name":"x"}`).WantError(t, 400, "websiteurl is required")
		b.srv.Do(t, "POST", face, b.alice, `{"websiteurl":"https://example.com/","fetchInterval":"hourly"}`).WantError(t, 400, "fetchInterval")
		b.srv.Do(t, "POST", face, b.alice, `{"websiteurl":"https://example.com/","scope":"world"}`).WantError(t, 400, "scope")
		// example.com resolves (in this test) to 127.0.0.1, which the guard refuses.
		b.srv.Do(t, "POST", face, b.alice, `{"websiteurl":"https://example.com/"}`).WantError(t, 400, "websiteurl", "private or local address")
		b.srv.Do(t, "POST", face, "", `{"websiteurl":"https://example.com/"}`).Want(t, 401)
	}
	b.site.set("", true)
	open := setup(t, storetest.SQLite(t), opts{})
	open.site.set("", true)
	open.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", open.alice, `{"websiteurl":"https://example.com/"}`).WantError(t, 400, "websiteurl", "HTTP 500")
	if len(open.model.reqs) != 0 {
		t.Fatal("the model ran for a failed fetch")
	}
}

func TestFileVoices(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), opts{noModel: true})
	cases := []struct{ path, name, has, hasNot string }{
		{"/style.md", "style", "write short sentences", ""},
		{"/notes.txt", "notes", "calm", ""},
		{"/guide.html", "guide", "company", "x()"},
		{"/voice.json", "voice", "avoid jargon", "tone"},
	}
	for _, c := range cases {
		r := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/file", b.alice, `{"file":"https://example.com`+c.path+`"}`).Want(t, 201)
		d := r.Data(t)
		if d["type"] != "file" || d["name"] != c.name || d["url"] != "https://example.com"+c.path {
			t.Fatalf("%s: %s", c.path, r.Raw)
		}
		content := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+d["id"].(string), b.alice, "").Want(t, 200).Data(t)["content"].(string)
		if !strings.Contains(content, c.has) || (c.hasNot != "" && strings.Contains(content, c.hasNot)) {
			t.Errorf("%s: content %q", c.path, content)
		}
	}
	for _, face := range []string{"/v1/ai/generate/brand-voice/file", "/herald.api.v1.BrandVoiceService/CreateBrandVoiceFromFile"} {
		b.srv.Do(t, "POST", face, b.alice, `{"file":"https://example.com/logo.png"}`).WantError(t, 400, "file must be a .md, .txt, .html or .json file")
		b.srv.Do(t, "POST", face, b.alice, `{"file":"https://example.com/wrong.md"}`).WantError(t, 400, "file:", "text/html")
		b.srv.Do(t, "POST", face, b.alice, `{"file":"https://example.com/missing.txt"}`).WantError(t, 400, "file:", "HTTP 404")
		b.srv.Do(t, "POST", face, b.alice, `{"file":"http://example.com/style.md"}`).WantError(t, 400, "file:", "https")
		b.srv.Do(t, "POST", face, b.alice, `{}`).WantError(t, 400, "file is required")
		b.srv.Do(t, "POST", face, "", `{"file":"https://example.com/style.md"}`).Want(t, 401)
	}
}

func TestQueuedWebsiteVoice(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), opts{})
	r := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com/","useWorker":true}`).Want(t, 202)
	if len(r.Body) != 2 || r.Body["jobId"] == nil {
		t.Fatalf("body %s", r.Raw)
	}
	j := b.waitJob(t, b.aliceP.WorkspaceID, r.Body["jobId"].(string))
	if j.State != "completed" || j.Queue != "contentQueue" || !strings.Contains(*j.Result, `"type":"website"`) || !strings.Contains(*j.Result, `"name":"Acme Tools"`) {
		t.Fatalf("job %+v", j)
	}
	// Input errors are answered at once, not in the job.
	b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"http://example.com/","useWorker":true}`).WantError(t, 400, "websiteurl")
}

func TestWebsiteVoicesRefreshOnTheirInterval(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, opts{noModel: true})
		ctx := context.Background()
		daily := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com/","fetchInterval":"daily"}`).Want(t, 201).Data(t)["id"].(string)
		b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com/"}`).Want(t, 201) // never
		before := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+daily, b.alice, "").Want(t, 200).Data(t)

		if ids, err := b.svc.RefreshDue(ctx); err != nil || len(ids) != 0 {
			t.Fatalf("nothing is due yet: %v %v", ids, err)
		}
		b.site.set(page("Acme Tools", "<p>Brand new copy about hedge trimmers that we sell now.</p>"), false)
		b.clock.add(25 * time.Hour)
		ids, err := b.svc.RefreshDue(ctx)
		if err != nil || len(ids) != 1 {
			t.Fatalf("due after a day: %v %v", ids, err)
		}
		if again, _ := b.svc.RefreshDue(ctx); len(again) != 0 {
			t.Fatalf("a claimed voice was claimed twice: %v", again)
		}
		if j := b.waitJob(t, b.aliceP.WorkspaceID, ids[0]); j.State != "completed" || j.Queue != "contentQueue" {
			t.Fatalf("refresh job %+v", j)
		}
		after := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+daily, b.alice, "").Want(t, 200).Data(t)
		if !strings.Contains(after["content"].(string), "hedge trimmers") || after["updatedAt"] == before["updatedAt"] || after["lastFetch"].(map[string]any)["ok"] != true {
			t.Fatalf("refreshed voice %v", after)
		}

		// A failed refresh keeps the content and says why.
		b.site.set("", true)
		b.clock.add(25 * time.Hour)
		ids, _ = b.svc.RefreshDue(ctx)
		if len(ids) != 1 {
			t.Fatalf("due again: %v", ids)
		}
		b.waitJob(t, b.aliceP.WorkspaceID, ids[0])
		failed := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+daily, b.alice, "").Want(t, 200).Data(t)
		lf := failed["lastFetch"].(map[string]any)
		if failed["content"] != after["content"] || lf["ok"] != false || !strings.Contains(lf["error"].(string), "HTTP 500") {
			t.Fatalf("after a failed refresh: %v", failed)
		}
		// Set to never: no longer due.
		b.srv.Do(t, "PUT", "/v1/ai/brand-voice/"+daily, b.alice, `{"fetchInterval":"never"}`).Want(t, 200)
		b.clock.add(60 * 24 * time.Hour)
		if ids, _ := b.svc.RefreshDue(ctx); len(ids) != 0 {
			t.Fatalf("never-refreshed voices were claimed: %v", ids)
		}
	})
}

func TestChangingTheURLRefetches(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), opts{noModel: true})
	id := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com/"}`).Want(t, 201).Data(t)["id"].(string)
	d := b.srv.Do(t, "PUT", "/v1/ai/brand-voice/"+id, b.alice, `{"url":"https://example.com/other"}`).Want(t, 200).Data(t)
	if d["url"] != "https://example.com/other" || !strings.Contains(d["content"].(string), "pruning shears") {
		t.Fatalf("after PUT url: %v", d)
	}
	b.srv.Do(t, "PUT", "/v1/ai/brand-voice/"+id, b.alice, `{"url":"https://example.com/missing","name":"New"}`).WantError(t, 400, "url:", "HTTP 404")
	if got := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").Want(t, 200).Data(t); got["url"] != "https://example.com/other" || got["name"] != "Acme Tools" {
		t.Fatalf("a failed re-fetch changed the voice: %v", got)
	}
	b.srv.Do(t, "PUT", "/v1/ai/brand-voice/"+id, b.mallory, `{"url":"https://example.com/"}`).Want(t, 404)
}

func TestTextVoicesAreProfiledOnlyWhenConfigured(t *testing.T) {
	t.Parallel()
	for _, profile := range []bool{false, true} {
		s := storetest.SQLite(t)
		b := setup(t, s, opts{profileText: profile})
		id := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"We keep it short and kind."}`).Want(t, 201).Data(t)["id"].(string)
		v, err := voicestore.New(s).GetVoice(context.Background(), b.aliceP.WorkspaceID, b.aliceP.UserID, id)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !profile && (v.Content != "We keep it short and kind." || v.SourceText != nil || len(b.model.reqs) != 0):
			t.Fatalf("unprofiled text voice: %+v", v)
		case profile && (!strings.HasPrefix(v.Content, "## Tone") || v.SourceText == nil || *v.SourceText != "We keep it short and kind."):
			t.Fatalf("profiled text voice: %+v", v)
		}
	}
}
