// Notifications: event subscriptions that send the workspace's events to a
// Slack incoming webhook or a Standard Webhooks endpoint. Add one (pick the
// events; the signing secret is shown once), send a test event, see the
// delivery log, redeliver, delete.
// Routes: GET and POST /v1/events/subscriptions, DELETE
// /v1/events/subscriptions/{id}, POST .../{id}/test, GET .../{id}/deliveries,
// POST .../{id}/deliveries/{deliveryId}/redeliver, GET /v1/events.
import { get, post, del } from './api.js';
import { h, fill, errorBox, fmtTime, table, field, copyButton } from './dom.js';

export const title = 'Notifications';

export async function render(root) {
  const [{ subscriptions = [], eventTypes = [] }, { events = [] }] = await Promise.all([
    get('/v1/events/subscriptions'),
    get('/v1/events?limit=20').catch(() => ({ events: [] })),
  ]);
  fill(root,
    h('h1', {}, title),
    h('p', { class: 'muted' }, 'Herald tells a Slack channel or your own endpoint when reports finish, posts publish or fail, connections break and credits run low.'),
    addCard(root, eventTypes),
    subscriptions.map((s) => subscriptionCard(root, s)),
    h('section', { class: 'card', 'aria-labelledby': 'events-recent-h' },
      h('h2', { id: 'events-recent-h' }, 'Recent events'),
      table('Recent events', [
        ['When', (e) => fmtTime(e.createdAt)],
        ['Event', (e) => e.type],
        ['Open', (e) => (e.link ? h('a', { href: e.link }, 'view') : '')],
      ], events, 'No events yet.')));
}

function addCard(root, eventTypes) {
  const url = h('input', { id: 'events-url', type: 'url', required: true, spellcheck: 'false', placeholder: 'https://hooks.slack.com/services/…' });
  const format = h('select', { id: 'events-format' },
    h('option', { value: 'slack' }, 'Slack incoming webhook'),
    h('option', { value: 'standard' }, 'Webhook (Standard Webhooks, signed)'));
  const boxes = eventTypes.map((t) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', name: 'event', value: t, checked: true }), ' ', t));
  const status = h('div', { id: 'events-add-status', 'aria-live': 'polite' });
  const form = h('form', { class: 'stack', id: 'events-add', onsubmit: async (e) => {
    e.preventDefault();
    const events = boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
    try {
      const r = await post('/v1/events/subscriptions', { url: url.value, events, format: format.value });
      await render(root);
      const fresh = document.getElementById('events-add-status');
      if (fresh && r.secret) {
        const code = h('code', { id: 'events-secret' }, r.secret);
        fill(fresh, h('p', { class: 'ok' }, 'Subscribed. Signing secret (shown only now): ', code, ' ', copyButton('Copy', r.secret, code)));
      } else if (fresh) fill(fresh, h('p', { class: 'ok' }, 'Subscribed.'));
    } catch (err) { fill(status, errorBox(err)); }
  } },
  field('URL', url, 'A Slack incoming-webhook URL or your endpoint; it must be a public address.'),
  field('Format', format),
  h('fieldset', {}, h('legend', {}, 'Events'), boxes),
  h('button', { type: 'submit' }, 'Subscribe'));
  return h('section', { class: 'card', 'aria-labelledby': 'events-add-h' }, h('h2', { id: 'events-add-h' }, 'Add a notification'), form, status);
}

function subscriptionCard(root, s) {
  const status = h('div', { 'aria-live': 'polite' });
  const log = h('div', {});
  const id = encodeURIComponent(s.id);
  const showLog = async () => {
    try {
      const { deliveries = [] } = await get(`/v1/events/subscriptions/${id}/deliveries`);
      fill(log, table('Deliveries', [
        ['Event', (d) => d.eventType],
        ['Status', (d) => d.status],
        ['Response', (d) => (d.responseCode == null ? '—' : String(d.responseCode))],
        ['Attempts', (d) => String(d.attempts)],
        ['Next attempt', (d) => (d.nextAttemptAt ? fmtTime(d.nextAttemptAt) : '—')],
        ['', (d) => h('button', { type: 'button', class: 'secondary', onclick: async () => {
          try { await post(`/v1/events/subscriptions/${id}/deliveries/${encodeURIComponent(d.id)}/redeliver`, {}); await showLog(); } catch (err) { fill(status, errorBox(err)); }
        } }, 'Redeliver')],
      ], deliveries, 'No deliveries yet.'));
    } catch (err) { fill(log, errorBox(err)); }
  };
  return h('section', { class: 'card', id: `events-sub-${s.id}` },
    h('h2', {}, s.url, ' ', h('span', { class: `badge ${s.state === 'active' ? 'status-published' : 'status-failed'}` }, s.state)),
    h('p', { class: 'muted' }, `${s.format === 'slack' ? 'Slack' : 'Standard Webhooks'} · ${s.events.join(', ')}`),
    s.pausedReason ? h('p', { class: 'error-text' }, `Paused: ${s.pausedReason}. Redeliver a delivery to resume.`) : null,
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: async () => {
        try {
          const r = await post(`/v1/events/subscriptions/${id}/test`, {});
          fill(status, h('p', { class: r.delivered ? 'ok' : 'error' }, r.delivered ? `Test event accepted (${r.responseCode}).` : `Not accepted: ${r.error}`));
        } catch (err) { fill(status, errorBox(err)); }
      } }, 'Send a test event'),
      h('button', { type: 'button', class: 'secondary', onclick: showLog }, 'Deliveries'),
      h('button', { type: 'button', class: 'secondary', onclick: async () => {
        try { await del(`/v1/events/subscriptions/${id}`); await render(root); } catch (err) { fill(status, errorBox(err)); }
      } }, 'Delete')),
    status, log);
}
