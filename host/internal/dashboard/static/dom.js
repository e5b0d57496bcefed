// Small DOM helpers. Text from the API is always set as text (never as
// HTML), so a post title or a crawled page cannot inject markup.

// h builds an element: h('a', {href: '#'}, 'text', child, ...).
// Attributes starting with "on" are event listeners.
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, String(v));
  }
  append(e, children);
  return e;
}

function append(e, children) {
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// errorBox is a visible, announced error message.
export function errorBox(err) {
  const status = err && err.status ? ` (HTTP ${err.status})` : '';
  return h('p', { class: 'error', role: 'alert' }, (err && err.message ? err.message : String(err)) + status);
}

export function fmtNum(n) { return Number(n || 0).toLocaleString('en-US'); }
export function fmtPct(x) { return `${(Number(x || 0) * 100).toFixed(1)}%`; }
export function fmtDuration(ms) {
  const s = Math.round(Number(ms || 0) / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}
export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

// table renders rows with a caption; cols are [header, row => cell].
export function table(caption, cols, rows, empty) {
  if (!rows || rows.length === 0) return h('p', { class: 'muted' }, empty);
  return h('div', { class: 'table-wrap' },
    h('table', {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, cols.map(([name]) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, cols.map(([name, f]) => h('td', { 'data-label': name }, f(r))))))));
}

// stat is a labelled number card.
export function stat(label, value, id) {
  return h('div', { class: 'stat', id }, h('span', { class: 'stat-label' }, label), h('span', { class: 'stat-value' }, value));
}

// palette is the colours of chart series, distinguishable in light mode.
export const palette = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563'];
