package voice_test

import (
	"context"
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
			r := b.call(t, "POST", path, b.alice, `{"websiteurl":"https://example.com/","fetchInterval":"daily"}`).want(t, 201)
			d := r.data(t)
			if d["name"] != "Acme Tools" || d["type"] != "website" || d["url"] != "https://example.com/" || d["contentLength"].(float64) < 20 || d["id"] == nil {
				t.Fatalf("%s: %s", path, r.raw)
			}
			one := b.call(t, "GET", "/v1/ai/brand-voice/"+d["id"].(string), b.alice, "").want(t, 200).data(t)
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
		list := b.call(t, "GET", "/v1/ai/brand-voice", b.alice, "").want(t, 200).body["data"].([]any)
		if len(list) != 2 || list[0].(map[string]any)["type"] != "website" || list[0].(map[string]any)["url"] != "https://example.com/" {
			t.Fatalf("list %v", list)
		}
		// Connect face.
		c := b.call(t, "POST", "/herald.api.v1.BrandVoiceService/CreateBrandVoiceFromWebsite", b.alice, `{"websiteurl":"example.com","name":"Mine","scope":"personal"}`).want(t, 200)
		id := c.data(t)["id"].(string)
		if c.data(t)["name"] != "Mine" {
			t.Fatalf("connect: %s", c.raw)
		}
		// A personal voice is the creator's only; another workspace sees nothing.
		b.call(t, "GET", "/v1/ai/brand-voice/"+id, b.bob, "").want(t, 404)
		b.call(t, "GET", "/v1/ai/brand-voice/"+id, b.mallory, "").want(t, 404)
	})
}

func TestWebsiteVoiceWithoutAModelIsMeasured(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), opts{noModel: true})
	id := b.call(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com"}`).want(t, 201).data(t)["id"].(string)
	content := b.call(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").want(t, 200).data(t)["content"].(string)
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
		b.call(t, "POST", face, b.alice, `{"websiteurl":"http://example.com/"}`).want(t, 400, "websiteurl", "only https://")
		b.call(t, "POST", face, b.alice, `{"name":"x"}`).want(t, 400, "websiteurl is required")
		b.call(t, "POST", face, b.alice, `{"websiteurl":"https://example.com/","fetchInterval":"hourly"}`).want(t, 400, "fetchInterval")
		b.call(t, "POST", face, b.alice, `{"websiteurl":"https://example.com/","scope":"world"}`).want(t, 400, "scope")
		// example.com resolves (in this test) to 127.0.0.1, which the guard refuses.
		b.call(t, "POST", face, b.alice, `{"websiteurl":"https://example.com/"}`).want(t, 400, "websiteurl", "private or local address")
		b.call(t, "POST", face, "", `{"websiteurl":"https://example.com/"}`).want(t, 401)
	}
	b.site.set("", true)
	open := setup(t, storetest.SQLite(t), opts{})
	open.site.set("", true)
	open.call(t, "POST", "/v1/ai/generate/brand-voice/website", open.alice, `{"websiteurl":"https://example.com/"}`).want(t, 400, "websiteurl", "HTTP 500")
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
		r := b.call(t, "POST", "/v1/ai/generate/brand-voice/file", b.alice, `{"file":"https://example.com`+c.path+`"}`).want(t, 201)
		d := r.data(t)
		if d["type"] != "file" || d["name"] != c.name || d["url"] != "https://example.com"+c.path {
			t.Fatalf("%s: %s", c.path, r.raw)
		}
		content := b.call(t, "GET", "/v1/ai/brand-voice/"+d["id"].(string), b.alice, "").want(t, 200).data(t)["content"].(string)
		if !strings.Contains(content, c.has) || (c.hasNot != "" && strings.Contains(content, c.hasNot)) {
			t.Errorf("%s: content %q", c.path, content)
		}
	}
	for _, face := range []string{"/v1/ai/generate/brand-voice/file", "/herald.api.v1.BrandVoiceService/CreateBrandVoiceFromFile"} {
		b.call(t, "POST", face, b.alice, `{"file":"https://example.com/logo.png"}`).want(t, 400, "file must be a .md, .txt, .html or .json file")
		b.call(t, "POST", face, b.alice, `{"file":"https://example.com/wrong.md"}`).want(t, 400, "file:", "text/html")
		b.call(t, "POST", face, b.alice, `{"file":"https://example.com/missing.txt"}`).want(t, 400, "file:", "HTTP 404")
		b.call(t, "POST", face, b.alice, `{"file":"http://example.com/style.md"}`).want(t, 400, "file:", "https")
		b.call(t, "POST", face, b.alice, `{}`).want(t, 400, "file is required")
		b.call(t, "POST", face, "", `{"file":"https://example.com/style.md"}`).want(t, 401)
	}
}

func TestQueuedWebsiteVoice(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), opts{})
	r := b.call(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com/","useWorker":true}`).want(t, 202)
	if len(r.body) != 2 || r.body["jobId"] == nil {
		t.Fatalf("body %s", r.raw)
	}
	j := b.waitJob(t, b.aliceP.WorkspaceID, r.body["jobId"].(string))
	if j.State != "completed" || j.Queue != "contentQueue" || !strings.Contains(*j.Result, `"type":"website"`) || !strings.Contains(*j.Result, `"name":"Acme Tools"`) {
		t.Fatalf("job %+v", j)
	}
	// Input errors are answered at once, not in the job.
	b.call(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"http://example.com/","useWorker":true}`).want(t, 400, "websiteurl")
}

func TestWebsiteVoicesRefreshOnTheirInterval(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, opts{noModel: true})
		ctx := context.Background()
		daily := b.call(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com/","fetchInterval":"daily"}`).want(t, 201).data(t)["id"].(string)
		b.call(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com/"}`).want(t, 201) // never
		before := b.call(t, "GET", "/v1/ai/brand-voice/"+daily, b.alice, "").want(t, 200).data(t)

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
		after := b.call(t, "GET", "/v1/ai/brand-voice/"+daily, b.alice, "").want(t, 200).data(t)
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
		failed := b.call(t, "GET", "/v1/ai/brand-voice/"+daily, b.alice, "").want(t, 200).data(t)
		lf := failed["lastFetch"].(map[string]any)
		if failed["content"] != after["content"] || lf["ok"] != false || !strings.Contains(lf["error"].(string), "HTTP 500") {
			t.Fatalf("after a failed refresh: %v", failed)
		}
		// Set to never: no longer due.
		b.call(t, "PUT", "/v1/ai/brand-voice/"+daily, b.alice, `{"fetchInterval":"never"}`).want(t, 200)
		b.clock.add(60 * 24 * time.Hour)
		if ids, _ := b.svc.RefreshDue(ctx); len(ids) != 0 {
			t.Fatalf("never-refreshed voices were claimed: %v", ids)
		}
	})
}

func TestChangingTheURLRefetches(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), opts{noModel: true})
	id := b.call(t, "POST", "/v1/ai/generate/brand-voice/website", b.alice, `{"websiteurl":"https://example.com/"}`).want(t, 201).data(t)["id"].(string)
	d := b.call(t, "PUT", "/v1/ai/brand-voice/"+id, b.alice, `{"url":"https://example.com/other"}`).want(t, 200).data(t)
	if d["url"] != "https://example.com/other" || !strings.Contains(d["content"].(string), "pruning shears") {
		t.Fatalf("after PUT url: %v", d)
	}
	b.call(t, "PUT", "/v1/ai/brand-voice/"+id, b.alice, `{"url":"https://example.com/missing","name":"New"}`).want(t, 400, "url:", "HTTP 404")
	if got := b.call(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").want(t, 200).data(t); got["url"] != "https://example.com/other" || got["name"] != "Acme Tools" {
		t.Fatalf("a failed re-fetch changed the voice: %v", got)
	}
	b.call(t, "PUT", "/v1/ai/brand-voice/"+id, b.mallory, `{"url":"https://example.com/"}`).want(t, 404)
}

func TestTextVoicesAreProfiledOnlyWhenConfigured(t *testing.T) {
	t.Parallel()
	for _, profile := range []bool{false, true} {
		s := storetest.SQLite(t)
		b := setup(t, s, opts{profileText: profile})
		id := b.call(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"We keep it short and kind."}`).want(t, 201).data(t)["id"].(string)
		v, err := s.GetVoice(context.Background(), b.aliceP.WorkspaceID, b.aliceP.UserID, id)
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
