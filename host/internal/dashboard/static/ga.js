// Google Analytics on the traffic page: connect (OAuth, back to this page),
// pick the site's GA4 property, disconnect, and the script's and GA4's
// figures per AI source side by side. Only the public REST API:
// /v1/analytics/google… and /v1/ai-traffic/stats?source=….
import { get, put, del } from './api.js';
import { h, fill, errorBox, fmtNum, table } from './dom.js';

// finishConnect completes Google's redirect to the dashboard (code and
// state in the query) through the callback route, then drops them from
// the address bar.
async function finishConnect() {
  const q = new URLSearchParams(location.search);
  if (!q.get('state') || (!q.get('code') && !q.get('error'))) return null;
  history.replaceState(null, '', location.pathname + '#/traffic');
  const args = new URLSearchParams();
  for (const k of ['code', 'state', 'error']) if (q.get(k)) args.set(k, q.get(k));
  return get(`/v1/analytics/google/callback?${args}`);
}

// gaCard is the Google Analytics panel for site; stats is the page's
// report (its source and sourceReason), days its window; rerender redraws
// the page.
export function gaCard(site, stats, days, rerender) {
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const card = h('section', { class: 'card', id: 'ga-card', 'aria-labelledby': 'ga-h' }, h('h2', { id: 'ga-h' }, 'Google Analytics'), body);
  (async () => {
    let note = null;
    try {
      const done = await finishConnect();
      if (done) note = h('p', { role: 'status' }, done.message);
    } catch (err) { note = errorBox(err); }
    try {
      const conn = await get('/v1/analytics/google');
      fill(body, note, conn.connected ? await connected(conn, site, stats, days, rerender) : notConnected(rerender));
    } catch (err) { fill(body, note, errorBox(err)); }
  })();
  return card;
}

function notConnected(rerender) {
  const err = h('div');
  const connect = h('button', { type: 'button', id: 'ga-connect', onclick: async () => {
    fill(err);
    try {
      const r = await put('/v1/analytics/google', { redirectUri: `${location.origin}/dashboard/` });
      location.assign(r.authorizationUrl);
    } catch (x) { fill(err, errorBox(x)); }
  } }, 'Connect Google Analytics');
  const key = h('textarea', { id: 'ga-sa-key', rows: 4, placeholder: '{"type": "service_account", …}' });
  const sa = h('details', {}, h('summary', {}, 'Connect with a service-account key (operators)'),
    h('form', { class: 'stack', onsubmit: async (e) => {
      e.preventDefault();
      fill(err);
      try {
        await put('/v1/analytics/google', { serviceAccountKey: key.value });
        key.value = '';
        rerender();
      } catch (x) { fill(err, errorBox(x)); }
    } }, h('label', { for: 'ga-sa-key' }, 'JSON key'), key, h('button', { type: 'submit', id: 'ga-sa-connect' }, 'Connect')));
  return h('div', {}, h('p', {}, 'Connect GA4 to read AI-referred sessions from Google Analytics, and compare them with the script.'), connect, sa, err);
}

async function connected(conn, site, stats, days, rerender) {
  const err = h('div');
  const mapped = (conn.sites || []).find((s) => s.siteKey === site.siteKey);
  const select = h('select', { id: 'ga-property' }, h('option', { value: '' }, 'No property (script only)'));
  try {
    const { properties = [] } = await get('/v1/analytics/google/properties');
    for (const p of properties) {
      select.append(h('option', { value: p.propertyId, selected: mapped && mapped.propertyId === p.propertyId }, `${p.displayName} (${p.accountDisplayName}, ${p.propertyId})`));
    }
  } catch (x) { fill(err, errorBox(x)); }
  const save = h('button', { type: 'button', id: 'ga-save', onclick: async () => {
    fill(err);
    try { await put(`/v1/analytics/google/sites/${encodeURIComponent(site.siteKey)}`, { propertyId: select.value }); rerender(); } catch (x) { fill(err, errorBox(x)); }
  } }, 'Use this property');
  const disconnect = h('button', { type: 'button', id: 'ga-disconnect', class: 'secondary', onclick: async () => {
    fill(err);
    try { await del('/v1/analytics/google'); rerender(); } catch (x) { fill(err, errorBox(x)); }
  } }, 'Disconnect');
  const parts = [h('p', {}, conn.message), h('p', { class: 'muted', id: 'ga-reason' }, `These stats: ${stats.source} — ${stats.sourceReason || ''}`),
    h('label', { for: 'ga-property' }, `GA4 property of ${site.domain} `), select, ' ', save, ' ', disconnect, err];
  if (mapped) parts.push(await sideBySide(site, days));
  return h('div', {}, ...parts);
}

// sideBySide asks both sources for the same window and lists, per AI
// source, the script's visits, GA4's sessions and the difference.
async function sideBySide(site, days) {
  const q = `siteKey=${encodeURIComponent(site.siteKey)}&days=${days}`;
  const [script, ga] = await Promise.all([get(`/v1/ai-traffic/stats?${q}&source=script`), get(`/v1/ai-traffic/stats?${q}&source=google_analytics`)]);
  if (ga.source !== 'google_analytics') return h('p', { class: 'muted', id: 'ga-compare' }, `GA4 could not answer: ${ga.sourceReason}`);
  const rows = new Map();
  for (const [key, r] of [['script', script], ['ga', ga]]) {
    for (const s of r.sources || []) {
      const row = rows.get(s.source) || { name: s.name || s.source, script: 0, ga: 0 };
      row[key] = s.visits;
      rows.set(s.source, row);
    }
  }
  const list = [...rows.values()].sort((a, b) => (b.script + b.ga) - (a.script + a.ga));
  list.push({ name: 'All AI', script: script.totals.aiVisits, ga: ga.totals.aiVisits });
  const diff = (r) => {
    const d = r.ga - r.script;
    return `${d > 0 ? '+' : ''}${fmtNum(d)}${r.script ? ` (${d > 0 ? '+' : ''}${((d / r.script) * 100).toFixed(0)}%)` : ''}`;
  };
  return h('div', { id: 'ga-compare' },
    table(`Script and GA4, last ${days} days`, [['AI source', (r) => r.name], ['Script visits', (r) => fmtNum(r.script)], ['GA4 sessions', (r) => fmtNum(r.ga)], ['Difference', diff]], list, 'No AI visits in either source.'),
    h('p', { class: 'muted' }, 'They differ by design: consent banners and ad blockers hide visits from GA4, pages without the script are missing from it, and GA4 may sample.'));
}
