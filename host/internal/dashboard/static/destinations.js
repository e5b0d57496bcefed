// Destinations and saved webhooks: a form per destination built from the
// credentials its plugin declares, saved with the API's connection test;
// webhooks created (secret shown once), tested and deleted.
// Routes: GET /v1/destinations, PUT and DELETE
// /v1/destinations/{name}/connection, GET and POST /v1/webhooks,
// POST /v1/webhooks/{id}/test, DELETE /v1/webhooks/{id}(?force=true);
// POST /v1/destinations/{name}/oauth/start for a destination this host
// connects with OAuth (LinkedIn), whose connection shows its expiry.
import { get, put, post, del } from './api.js';
import { h, fill, errorBox, fmtTime, table, field, copyButton } from './dom.js';

export const title = 'Destinations';

export async function render(root) {
  const [{ destinations = [] }, hooks] = await Promise.all([
    get('/v1/destinations'),
    get('/v1/webhooks').catch((err) => ({ error: err })),
  ]);
  const others = destinations.filter((d) => d.name !== 'webhook');
  fill(root, 
    h('h1', {}, title),
    h('p', { class: 'muted' }, 'Connect the places Herald publishes to. Credentials are stored encrypted and never shown again.'),
    others.map((d) => destinationCard(root, d)),
    webhooksCard(root, hooks));
}

function checkLine(d) {
  const c = d.lastCheck;
  if (!d.connected) return h('p', { class: 'muted' }, 'Not connected.');
  const when = c && c.checkedAt ? ` on ${fmtTime(c.checkedAt)}` : '';
  const parts = [`Connected${d.connectedAt ? ' since ' + fmtTime(d.connectedAt) : ''}.`];
  if (c) {
    const what = { ok: `Last check${when}: accepted`, failed: `Last check${when}: refused`, skipped: 'Saved without a check', unsupported: 'This destination cannot be checked' }[c.result] || `Last check: ${c.result}`;
    parts.push(`${what}${c.account ? ` (account: ${c.account})` : ''}${c.message ? ` — ${c.message}` : ''}.`);
  }
  if (d.expiresAt) {
    const days = Math.floor((new Date(d.expiresAt) - Date.now()) / 86400000);
    parts.push(days < 0 ? `The token expired on ${fmtTime(d.expiresAt)}: connect again.`
      : `The token expires on ${fmtTime(d.expiresAt)}${d.refreshable ? ' (Herald refreshes it before then)' : days <= 7 ? ': connect again soon' : ''}.`);
  }
  const late = d.expiresAt && !d.refreshable && new Date(d.expiresAt) - Date.now() < 7 * 86400000;
  return h('p', { class: (c && c.result === 'failed') || late ? 'error-text' : 'muted', 'data-last-check': c ? c.result : '' }, parts.join(' '));
}

// destinationCard is the connection form of one destination: one input per
// declared credential, secrets masked, descriptions as help text.
function destinationCard(root, d) {
  const id = (f) => `cred-${d.name}-${f.name}`;
  const inputs = (d.credentials || []).map((f) => ({
    f,
    input: h('input', { id: id(f), name: f.name, type: f.secret ? 'password' : (/url/i.test(f.name) ? 'url' : 'text'),
      required: f.required, autocomplete: f.secret ? 'new-password' : 'off', spellcheck: 'false',
      placeholder: d.connected && (d.connectedFields || []).includes(f.name) ? 'stored (enter to replace)' : '' }),
  }));
  const status = h('div', { id: `dest-status-${d.name}`, 'aria-live': 'polite' });
  const heading = h('h2', { id: `dest-h-${d.name}` }, d.displayName || d.name, ' ',
    h('span', { class: `badge ${d.connected ? 'status-published' : 'status-cancelled'}` }, d.connected ? 'connected' : 'not connected'));
  const form = h('form', { class: 'stack', id: `dest-form-${d.name}`, onsubmit: async (e) => {
    e.preventDefault();
    fill(status, h('p', { class: 'muted' }, `Checking the credentials with ${d.displayName || d.name}…`));
    const btn = form.querySelector('button[type=submit]');
    btn.disabled = true;
    const credentials = {};
    for (const { f, input } of inputs) if (input.value !== '') credentials[f.name] = input.value;
    try {
      const r = await put(`/v1/destinations/${encodeURIComponent(d.name)}/connection`, { credentials });
      await render(root);
      const fresh = document.getElementById(`dest-status-${d.name}`);
      const check = (r.destination && r.destination.lastCheck) || {};
      if (fresh) fill(fresh, h('p', { class: 'ok' }, `${r.message || 'Connected'}${check.account ? ` as ${check.account}` : ''}.`));
    } catch (err) {
      fill(status, h('p', { class: 'error', role: 'alert' }, `Not saved: ${d.displayName || d.name} answered: ${err.message}`));
      btn.disabled = false;
    }
  } },
  inputs.map(({ f, input }) => field(`${f.label || f.name}${f.required ? '' : ' (optional)'}`, input, f.description)),
  h('button', { type: 'submit' }, d.connected ? 'Replace and check' : 'Connect and check'));
  const disconnect = d.connected ? h('button', { type: 'button', class: 'secondary', id: `dest-disconnect-${d.name}`, onclick: async () => {
    try {
      await del(`/v1/destinations/${encodeURIComponent(d.name)}/connection`);
      await render(root);
      const fresh = document.getElementById(`dest-status-${d.name}`);
      if (fresh) fill(fresh, h('p', { class: 'ok' }, 'Disconnected.'));
    } catch (err) { fill(status, errorBox(err)); }
  } }, 'Disconnect') : null;
  const oauth = d.oauth ? h('p', {}, h('button', { type: 'button', id: `dest-oauth-${d.name}`, onclick: async () => {
    try {
      const r = await post(`/v1/destinations/${encodeURIComponent(d.name)}/oauth/start`, {});
      window.open(r.authorizationUrl, '_blank', 'noopener');
      fill(status, h('p', { class: 'muted' }, `Finish in the ${d.displayName || d.name} window, then reload this page.`));
    } catch (err) { fill(status, errorBox(err)); }
  } }, `${d.connected ? 'Reconnect' : 'Connect'} with ${d.displayName || d.name}`), h('span', { class: 'muted' }, ' or paste a token below.')) : null;
  return h('section', { class: 'card', id: `dest-${d.name}`, 'aria-labelledby': `dest-h-${d.name}` }, heading,
    d.error ? h('p', { class: 'error-text' }, d.error) : null,
    checkLine(d), oauth,
    !(d.credentials || []).length ? h('p', { class: 'muted' }, 'This destination needs no credentials.')
      : d.connected ? [h('div', { class: 'row' }, disconnect), h('details', {}, h('summary', {}, 'Replace the credentials'), form)] : form,
    status);
}

function webhooksCard(root, hooks) {
  const status = h('div', { id: 'webhook-status', 'aria-live': 'polite' });
  const list = hooks.error ? errorBox(hooks.error) : table('Saved webhooks', [
    ['Name', (w) => w.name],
    ['Endpoint', (w) => h('code', {}, w.url)],
    ['Created', (w) => fmtTime(w.createdAt)],
    ['', (w) => h('div', { class: 'row' },
      h('button', { type: 'button', class: 'secondary', 'data-test-webhook': w.id, 'aria-label': `Send a test delivery to ${w.name}`, onclick: (e) => testHook(e.target, w, status) }, 'Test'),
      h('button', { type: 'button', class: 'danger', 'data-delete-webhook': w.id, 'aria-label': `Delete ${w.name}`, onclick: () => deleteHook(root, w, status, false) }, 'Delete'))],
  ], hooks.webhooks || [], 'No saved webhook yet.');
  const url = h('input', { id: 'webhook-url', type: 'url', required: true, placeholder: 'https://hooks.example.com/herald' });
  const name = h('input', { id: 'webhook-name', maxlength: 200 });
  const form = h('form', { class: 'stack', id: 'webhook-form', onsubmit: async (e) => {
    e.preventDefault();
    try {
      const r = await post('/v1/webhooks', { url: url.value.trim(), name: name.value.trim() });
      await render(root);
      showSecret(r);
    } catch (err) { fill(status, errorBox(err)); }
  } },
  field('Endpoint URL', url, 'Herald POSTs each post here, signed per Standard Webhooks.'),
  field('Name (optional)', name),
  h('button', { type: 'submit' }, 'Save webhook'));
  return h('section', { class: 'card', id: 'webhooks', 'aria-labelledby': 'webhooks-h' }, h('h2', { id: 'webhooks-h' }, 'Webhooks'),
    list, status, h('h3', {}, 'Add a webhook'), form);
}

// showSecret shows the signing secret of a new webhook, once.
function showSecret(r) {
  const box = document.getElementById('webhook-status');
  if (!box) return;
  const code = h('code', { id: 'webhook-secret' }, r.secret);
  fill(box, h('div', { class: 'ok', role: 'alert' },
    h('p', {}, `Saved “${r.webhook.name}”. Its signing secret is shown only now: copy it into your receiver.`),
    h('pre', {}, code), copyButton('Copy secret', r.secret, code)));
}

async function testHook(btn, w, status) {
  btn.disabled = true;
  fill(status, h('p', { class: 'muted' }, `Sending a test delivery to ${w.name}…`));
  try {
    const r = await post(`/v1/webhooks/${encodeURIComponent(w.id)}/test`);
    fill(status, h('p', { class: 'ok', id: 'webhook-test-result' }, `${r.message || 'Delivered'} (delivery ${r.deliveryId}).`));
  } catch (err) {
    fill(status, h('p', { class: 'error', role: 'alert', id: 'webhook-test-result' }, `The test delivery to ${w.name} failed: ${err.message}`));
  } finally {
    btn.disabled = false;
  }
}

// deleteHook deletes a webhook; a 409 lists the pending posts that use it
// and offers to delete anyway, failing them.
async function deleteHook(root, w, status, force) {
  try {
    await del(`/v1/webhooks/${encodeURIComponent(w.id)}${force ? '?force=true' : ''}`);
    await render(root);
    const box = document.getElementById('webhook-status');
    if (box) fill(box, h('p', { class: 'ok' }, `Deleted “${w.name}”.`));
  } catch (err) {
    if (err.status !== 409) {
      fill(status, errorBox(err));
      return;
    }
    const posts = (err.body && err.body.schedules) || [];
    const forceBtn = h('button', { type: 'button', class: 'danger', id: 'webhook-force-delete', onclick: () => deleteHook(root, w, status, true) },
      `Delete anyway and fail ${posts.length} post(s)`);
    fill(status, h('div', { class: 'error', role: 'alert', id: 'webhook-in-use' },
      h('p', {}, err.message),
      h('ul', {}, posts.map((p) => h('li', {}, h('code', {}, p.id), ` — due ${p.whenToExport ? fmtTime(p.whenToExport) : 'not set'}`))),
      h('p', {}, h('a', { href: '#/schedules' }, 'Cancel them in Scheduled posts'), ' or ', forceBtn)));
    forceBtn.focus();
  }
}
