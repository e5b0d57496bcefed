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
  for (const c of children.flat(Infinity)) {
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

// palette is the colours of chart series, distinguishable in light mode
// and at least 3:1 against white (graphics contrast, WCAG 1.4.11).
export const palette = ['#2563eb', '#dc2626', '#15803d', '#9333ea', '#c2410c', '#0e7490', '#a16207', '#db2777', '#4b5563'];

// field is a labelled control with optional help text tied to it through
// aria-describedby.
export function field(label, control, help) {
  const id = control.id;
  const out = h('div', { class: 'field' }, h('label', { for: id }, label), control);
  if (help) {
    const hid = `${id}-help`;
    control.setAttribute('aria-describedby', hid);
    out.append(h('p', { class: 'help', id: hid }, help));
  }
  return out;
}

// copyButton copies text to the clipboard, or selects target when the
// clipboard is not available, and says which in a status line.
export function copyButton(label, text, target) {
  const status = h('span', { class: 'muted', role: 'status' });
  const btn = h('button', { type: 'button', class: 'secondary', onclick: async () => {
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = ' Copied.';
    } catch {
      if (target) getSelection().selectAllChildren(target);
      status.textContent = ' Selected: press Ctrl+C (⌘C) to copy.';
    }
  } }, label);
  return h('span', {}, btn, status);
}

// debounce calls f once calls have paused for ms.
export function debounce(f, ms) {
  let t;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => f(...args), ms);
  };
}

// progress is a labelled progress bar with a status line; set(pct, text)
// updates both.
export function progress(label) {
  const bar = h('progress', { max: 100, value: 0, 'aria-label': label });
  const line = h('span', { class: 'muted', role: 'status' }, 'Queued…');
  const box = h('div', { class: 'progress' }, bar, line);
  box.set = (pct, text) => {
    bar.value = Math.max(0, Math.min(100, Number(pct) || 0));
    line.textContent = text;
  };
  return box;
}

// jobText says where a polled job is.
export function jobText(job) {
  const p = Number(job.progress) || 0;
  switch (job.state) {
    case 'waiting': case 'delayed': return 'Queued, waiting for a worker…';
    case 'active': return `Running… ${p}%`;
    case 'completed': return 'Done.';
    case 'failed': return `Failed: ${job.failedReason || 'unknown reason'}`;
    default: return `${job.state || 'unknown'} ${p}%`;
  }
}

// rating colours a 0–100 score like a traffic light (Yoast's thresholds:
// good from 70, ok from 40); the word goes with the colour.
export function rating(score) {
  if (score == null) return 'none';
  return score >= 70 ? 'good' : score >= 40 ? 'ok' : 'bad';
}

// fill replaces el's children; like h, it flattens arrays and skips null,
// undefined and false (replaceChildren would print them).
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// webhookOptions are a webhook picker's options: with several saved
// webhooks none is chosen for the user (a post to the wrong endpoint
// cannot be taken back), with one it is chosen, with none the picker says
// so. The empty value means no webhook chosen.
export function webhookOptions(hooks) {
  const opts = hooks.map((w) => h('option', { value: w.id }, `${w.name || w.url} (${w.url})`));
  if (hooks.length === 0) return [h('option', { value: '' }, 'No saved webhook: save one on the Destinations page')];
  if (hooks.length === 1) return opts;
  return [h('option', { value: '' }, 'Choose a webhook…'), ...opts];
}
