// The REST API as any client calls it: JSON bodies, the api-key header.
// The key lives in sessionStorage, so it is gone when the tab closes.

const KEY = 'herald.apiKey';

export function apiKey() { return sessionStorage.getItem(KEY) || ''; }
export function setAPIKey(k) { sessionStorage.setItem(KEY, k); }
export function clearAPIKey() { sessionStorage.removeItem(KEY); }

// APIError carries the HTTP status and the API's message.
export class APIError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

let onUnauthorized = () => {};
// whenUnauthorized sets what happens when the API refuses the key (401).
export function whenUnauthorized(f) { onUnauthorized = f; }

// call sends one request and returns the parsed JSON body, or throws an
// APIError whose message is the API's own (or says why there is none).
export async function call(method, path, body, key = apiKey()) {
  const headers = { 'api-key': key, 'Accept': 'application/json' };
  const init = { method, headers, cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new APIError(0, `Herald could not be reached (${e.message}).`);
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    const msg = (data && typeof data.message === 'string' && data.message) || `${res.status} ${res.statusText}`.trim();
    const err = new APIError(res.status, msg, data);
    if (res.status === 401) onUnauthorized(err);
    throw err;
  }
  if (data === null) throw new APIError(res.status, `${method} ${path} did not answer JSON.`);
  return data;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body ?? {});
export const del = (path) => call('DELETE', path);
