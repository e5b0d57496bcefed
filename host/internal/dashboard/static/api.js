// The REST API as any client calls it: JSON bodies, the api-key header.
// The key lives in sessionStorage, so it is gone when the tab closes.

const KEY = 'herald.apiKey';

export function apiKey() { return sessionStorage.getItem(KEY) || ''; }
export function setAPIKey(k) { sessionStorage.setItem(KEY, k); }
export function clearAPIKey() { sessionStorage.removeItem(KEY); }

// APIError carries the HTTP status, the API's message, its body and the
// response headers (Retry-After of a 429).
export class APIError extends Error {
  constructor(status, message, body, headers) {
    super(message);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }

  // retryAfter is the Retry-After header in seconds, or 0.
  get retryAfter() {
    const v = this.headers && this.headers.get('Retry-After');
    const n = Number(v);
    return Number.isFinite(n) && n > 0 ? Math.ceil(n) : 0;
  }
}

let onUnauthorized = () => {};
// whenUnauthorized sets what happens when the API refuses the key (401).
export function whenUnauthorized(f) { onUnauthorized = f; }

async function send(method, path, body, key, accept) {
  const headers = { 'api-key': key, 'Accept': accept };
  const init = { method, headers, cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  try {
    return await fetch(path, init);
  } catch (e) {
    throw new APIError(0, `Herald could not be reached (${e.message}).`);
  }
}

async function failure(res) {
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  const msg = (data && typeof data.message === 'string' && data.message) || `${res.status} ${res.statusText}`.trim();
  const err = new APIError(res.status, msg, data, res.headers);
  if (res.status === 401) onUnauthorized(err);
  return err;
}

// call sends one request and returns the parsed JSON body, or throws an
// APIError whose message is the API's own (or says why there is none).
export async function call(method, path, body, key = apiKey()) {
  const res = await send(method, path, body, key, 'application/json');
  if (!res.ok) throw await failure(res);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (data === null) throw new APIError(res.status, `${method} ${path} did not answer JSON.`);
  return data;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body ?? {});
export const put = (path, body) => call('PUT', path, body ?? {});
export const del = (path) => call('DELETE', path);

// pollJob polls GET /v1/ai/generate/job/{id} until the job is completed
// or failed, calling onProgress with each answer; it resolves with the
// completed job and throws an Error with the failure reason otherwise.
// signal (an AbortSignal) stops it.
export async function pollJob(jobId, onProgress = () => {}, { interval = 400, signal } = {}) {
  for (;;) {
    if (signal && signal.aborted) throw new Error('stopped');
    const job = await get(`/v1/ai/generate/job/${encodeURIComponent(jobId)}`);
    onProgress(job);
    if (job.state === 'completed') return job;
    if (job.state === 'failed') throw new APIError(0, job.failedReason || 'the job failed', job);
    await new Promise((r) => setTimeout(r, interval));
  }
}

// stream POSTs body and reads the answer as Server-Sent Events, calling
// onEvent(name, data) for each; data is parsed JSON. A refusal before the
// stream starts throws an APIError as call does.
export async function stream(path, body, onEvent) {
  const res = await send('POST', path, body, apiKey(), 'text/event-stream');
  if (!res.ok) throw await failure(res);
  if (!(res.headers.get('Content-Type') || '').startsWith('text/event-stream')) {
    // A server that answered JSON: one "done" event.
    onEvent('json', await res.json());
    return;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buf += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const raw = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let name = 'message';
      const data = [];
      for (const line of raw.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      let parsed = null;
      try { parsed = JSON.parse(data.join('\n')); } catch { parsed = data.join('\n'); }
      onEvent(name, parsed);
    }
    if (done) return;
  }
}
