// Calendar: GET /v1/scheduler/calendar (posts by day in the browser's time
// zone), a month or a week at a time; a post opens with GET /v1/posts/{id}
// and moves with POST /v1/posts/{id}/move (a day cell takes a dragged post
// at the same time of day, or the panel's date and time field).
import { get, post } from './api.js';
import { h, fill, errorBox, fmtTime } from './dom.js';

export const title = 'Calendar';
const tz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const state = { view: 'month', anchor: startOfDay(new Date()), open: null };

function startOfDay(d) { return new Date(d.getFullYear(), d.getMonth(), d.getDate()); }
function addDays(d, n) { return new Date(d.getFullYear(), d.getMonth(), d.getDate() + n); }
function ymd(d) { return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`; }

// range is the first and last day shown: whole weeks from Monday.
function range() {
  let first = state.view === 'month' ? new Date(state.anchor.getFullYear(), state.anchor.getMonth(), 1) : state.anchor;
  first = addDays(first, -((first.getDay() + 6) % 7));
  let last = state.view === 'month' ? new Date(state.anchor.getFullYear(), state.anchor.getMonth() + 1, 0) : addDays(first, 6);
  last = addDays(last, (7 - last.getDay()) % 7);
  return [first, last];
}

export async function render(root) {
  const [first, last] = range();
  const cal = await get(`/v1/scheduler/calendar?from=${ymd(first)}&to=${ymd(last)}&tz=${encodeURIComponent(tz)}`);
  const byDay = Object.fromEntries((cal.days || []).map((d) => [d.date, d.posts || []]));
  const notice = h('div', { id: 'calendar-notice', role: 'status' });
  const panel = h('section', { class: 'card', id: 'post-panel', 'aria-labelledby': 'post-h', hidden: !state.open });
  const shift = (n) => () => {
    state.anchor = state.view === 'month' ? new Date(state.anchor.getFullYear(), state.anchor.getMonth() + n, 1) : addDays(state.anchor, 7 * n);
    render(root);
  };
  const setView = (v) => () => { state.view = v; render(root); };
  const heading = state.view === 'month'
    ? state.anchor.toLocaleDateString(undefined, { month: 'long', year: 'numeric' })
    : `Week of ${first.toLocaleDateString(undefined, { dateStyle: 'medium' })}`;
  const days = [];
  for (let d = first; d <= last; d = addDays(d, 1)) days.push(d);
  fill(root,
    h('h1', {}, title),
    h('p', { class: 'controls' },
      h('button', { type: 'button', class: 'secondary', onclick: shift(-1) }, 'Previous'), ' ',
      h('strong', { id: 'calendar-range' }, heading), ' ',
      h('button', { type: 'button', class: 'secondary', onclick: shift(1) }, 'Next'), ' ',
      h('button', { type: 'button', class: state.view === 'month' ? '' : 'secondary', 'aria-pressed': String(state.view === 'month'), onclick: setView('month') }, 'Month'), ' ',
      h('button', { type: 'button', class: state.view === 'week' ? '' : 'secondary', 'aria-pressed': String(state.view === 'week'), onclick: setView('week') }, 'Week'),
      h('span', { class: 'muted' }, ` Times in ${tz}.`)),
    notice,
    cal.truncated ? h('p', { class: 'error' }, 'More posts than the calendar shows at once: narrow the range.') : null,
    h('div', { class: `calendar calendar-${state.view}`, role: 'grid', 'aria-label': heading },
      ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].map((n) => h('div', { class: 'calendar-head', role: 'columnheader' }, n)),
      days.map((d) => dayCell(root, d, byDay[ymd(d)] || [], notice))),
    panel);
  if (state.open) openPost(root, state.open, panel, notice);
}

function dayCell(root, d, posts, notice) {
  const other = state.view === 'month' && d.getMonth() !== state.anchor.getMonth();
  const cell = h('div', { class: `calendar-day${other ? ' muted' : ''}`, role: 'gridcell', 'data-date': ymd(d) },
    h('span', { class: 'calendar-date' }, String(d.getDate())),
    posts.map((p) => h('button', { type: 'button', class: `calendar-post status-${p.status}`, draggable: 'true', 'data-post': p.id,
      title: `${p.title || '(untitled)'}: ${p.status}, ${(p.destinations || []).map((x) => x.exportTo).join(', ')}`,
      ondragstart: (e) => e.dataTransfer.setData('text/plain', JSON.stringify({ id: p.id, when: p.whenToExport })),
      onclick: () => { state.open = p.id; render(root); } },
    `${new Date(p.whenToExport).toLocaleTimeString(undefined, { timeStyle: 'short' })} ${p.title || '(untitled)'}`)));
  cell.addEventListener('dragover', (e) => e.preventDefault());
  cell.addEventListener('drop', async (e) => {
    e.preventDefault();
    let moved;
    try { moved = JSON.parse(e.dataTransfer.getData('text/plain')); } catch { return; }
    const was = new Date(moved.when);
    const to = new Date(d.getFullYear(), d.getMonth(), d.getDate(), was.getHours(), was.getMinutes());
    await move(root, moved.id, to, notice);
  });
  return cell;
}

async function move(root, id, to, notice) {
  try {
    const r = await post(`/v1/posts/${encodeURIComponent(id)}/move`, { whenToExport: to.toISOString() });
    await render(root);
    fill(document.getElementById('calendar-notice'), h('p', { class: 'ok' }, `${r.message}: ${fmtTime(to.toISOString())}.`));
  } catch (err) {
    fill(notice, errorBox(err));
  }
}

async function openPost(root, id, panel, notice) {
  let r;
  try {
    r = await get(`/v1/posts/${encodeURIComponent(id)}`);
  } catch (err) {
    state.open = null;
    fill(notice, errorBox(err));
    return;
  }
  const p = r.post;
  const when = h('input', { id: 'move-when', type: 'datetime-local' });
  if (p.whenToExport) {
    const d = new Date(p.whenToExport);
    when.value = `${ymd(d)}T${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  }
  fill(panel,
    h('h2', { id: 'post-h' }, p.title || '(untitled)'),
    h('p', {}, `${p.status}, ${fmtTime(p.whenToExport)}`, p.ruleId ? h('span', { class: 'muted' }, ' (repeats)') : null),
    h('ul', {}, (p.schedules || []).map((s) => h('li', {}, `${s.exportTo}: `, h('span', { class: `badge status-${s.status}` }, s.status),
      s.lastError ? h('span', { class: 'error-text' }, ` ${s.lastError}`) : null,
      s.externalUrl ? [' ', h('a', { href: s.externalUrl, rel: 'noopener noreferrer', target: '_blank' }, 'published post')] : null))),
    h('div', { class: 'field' }, h('label', { for: 'move-when' }, 'Move to (your time zone)'), when),
    h('p', { class: 'controls' },
      h('button', { type: 'button', onclick: () => when.value && move(root, p.id, new Date(when.value), notice) }, 'Move'), ' ',
      h('button', { type: 'button', class: 'secondary', onclick: () => { state.open = null; render(root); } }, 'Close')));
  panel.hidden = false;
}
