// The request rules of the OpenAPI document reach the compiler: each
// call marked as an expected error breaks one rule, and tsc fails
// ("Unused directive") the day the document stops declaring it. The calls that follow them are the same calls made right.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHeraldClient, type HeraldClient } from "../src/index.js";

// Never called: these functions exist for the compiler.
export function rulesTheCompilerEnforces(herald: HeraldClient) {
  // Generate text: model and text are required.
  // @ts-expect-error text is required
  herald.POST("/v1/ai/generate/text", { body: { model: "gpt-4o" } });
  // @ts-expect-error model is required
  herald.POST("/v1/ai/generate/text", { body: { text: "hello" } });
  herald.POST("/v1/ai/generate/text", { body: { model: "gpt-4o", text: "hello" } });

  // Images: text is required; model, size, quality and purpose take only the listed values.
  // @ts-expect-error text is required
  herald.POST("/v1/ai/generate/image", { body: { size: "auto" } });
  // @ts-expect-error size must be one of 1024x1024, 1536x1024, 1024x1536, auto
  herald.POST("/v1/ai/generate/image", { body: { text: "a lighthouse", size: "640x480" } });
  // @ts-expect-error quality must be one of low, medium, high, auto
  herald.POST("/v1/ai/generate/image", { body: { text: "a lighthouse", quality: "best" } });
  // @ts-expect-error model must be one of the gpt-image models
  herald.POST("/v1/ai/generate/image", { body: { text: "a lighthouse", model: "dall-e-2" } });
  // @ts-expect-error purpose must be one of linkedin, blog, square, portrait, custom
  herald.POST("/v1/ai/generate/image", { body: { text: "a lighthouse", purpose: "poster" } });
  herald.POST("/v1/ai/generate/image", { body: { text: "a lighthouse", size: "1536x1024", quality: "high", purpose: "blog", model: "gpt-image-1" } });

  // Brand voices: content, websiteurl and file are required; scope is team or personal.
  // @ts-expect-error content is required
  herald.POST("/v1/ai/generate/brand-voice/text", { body: {} });
  // @ts-expect-error scope must be team or personal
  herald.POST("/v1/ai/generate/brand-voice/text", { body: { content: "We write plainly.", scope: "everyone" } });
  // @ts-expect-error websiteurl is required
  herald.POST("/v1/ai/generate/brand-voice/website", { body: { name: "Site" } });
  // @ts-expect-error file is required
  herald.POST("/v1/ai/generate/brand-voice/file", { body: { name: "File" } });
  herald.POST("/v1/ai/generate/brand-voice/text", { body: { content: "We write plainly.", scope: "personal" } });

  // Visibility: prefill needs websiteurl; the latest report sorts desc or asc.
  // @ts-expect-error websiteurl is required
  herald.POST("/v1/ai/generate/seo-site-report/prefill", { body: { prompts: ["p"] } });
  // @ts-expect-error sort must be desc or asc
  herald.GET("/v1/ai/generate/seo-site-report", { params: { query: { sort: "newest" } } });
  herald.GET("/v1/ai/generate/seo-site-report", { params: { query: { sort: "asc" } } });

  // SEO score: content is required.
  // @ts-expect-error content is required
  herald.POST("/v1/ai/generate/calculate-seo-score", { body: { title: "Widgets" } });

  // Scheduler: exportTo is required; status is pending or draft.
  // @ts-expect-error exportTo is required
  herald.POST("/v1/scheduler/create", { body: { title: "Hello" } });
  // @ts-expect-error status must be pending or draft
  herald.POST("/v1/scheduler/create", { body: { exportTo: "webhook", status: "published" } });
  herald.POST("/v1/scheduler/create", { body: { exportTo: "webhook", status: "draft", title: "Hello" } });

  // AI traffic: a site needs its domain, a beacon its siteKey.
  // @ts-expect-error domain is required
  herald.POST("/v1/ai-traffic/sites", { body: { name: "Example" } });
  // @ts-expect-error siteKey is required
  herald.POST("/v1/ai-traffic/collect", { body: { path: "/" } });
  herald.POST("/v1/ai-traffic/collect", { body: { siteKey: "ks_x", path: "/" } });

  // Agent sessions: sessionId is required.
  // @ts-expect-error sessionId is required
  herald.POST("/v1/ai/chat/session", { body: {} });
  herald.POST("/v1/ai/chat/session", { body: { sessionId: "s-1" } });
}

// Against a running Herald (HERALD_URL, HERALD_KEY): the client's calls
// and the server's answers, one rule broken and one kept.
const url = process.env.HERALD_URL;
const key = process.env.HERALD_KEY;

test("a voice round trip against a running Herald", { skip: !url || !key }, async () => {
  const herald = createHeraldClient({ baseUrl: url!, apiKey: key! });
  const created = await herald.POST("/v1/ai/generate/brand-voice/text", {
    body: { name: "Typed", content: "We write short, warm sentences." },
  });
  assert.equal(created.response.status, 201);
  const id = created.data?.data?.id;
  assert.ok(id);
  const got = await herald.GET("/v1/ai/brand-voice/{id}", { params: { path: { id } } });
  assert.equal(got.response.status, 200);
  assert.equal(got.data?.data?.name, "Typed");
});

test("a value the document refuses is a 400 naming the field", { skip: !url || !key }, async () => {
  const herald = createHeraldClient({ baseUrl: url!, apiKey: key! });
  // The compiler refuses this call; a cast sends it anyway, as a client
  // without types would.
  const res = await herald.POST("/v1/ai/generate/image", { body: { text: "x", size: "640x480" as "auto" } });
  assert.equal(res.response.status, 400);
  assert.match((res.error as { message: string }).message, /^size must be one of/);
});
