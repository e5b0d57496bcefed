// A word-level diff (longest common subsequence) for showing what an
// improvement changed: kept words as text, removed ones in <del>, added
// ones in <ins>. Whitespace is kept with the word before it.
import { h } from './dom.js';

const tokens = (s) => s.match(/\s+|[^\s]+/g) || [];

// MAX_CELLS bounds the table (words before × words after); longer texts
// are shown as "all removed, all added" rather than freezing the tab.
const MAX_CELLS = 4_000_000;

export function diffWords(before, after) {
  const a = tokens(before);
  const b = tokens(after);
  if (a.length * b.length > MAX_CELLS) return [{ op: 'del', text: before }, { op: 'ins', text: after }];
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const L = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      L[i * w + j] = a[i] === b[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
    }
  }
  const out = [];
  const push = (op, text) => {
    const last = out[out.length - 1];
    if (last && last.op === op) last.text += text;
    else out.push({ op, text });
  };
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { push('eq', a[i]); i++; j++; } else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) { push('del', a[i++]); } else { push('ins', b[j++]); }
  }
  while (i < n) push('del', a[i++]);
  while (j < m) push('ins', b[j++]);
  return out;
}

// diffView renders the diff with a legend; counts say how much changed.
export function diffView(before, after, id) {
  const parts = diffWords(before, after);
  const words = (op) => parts.filter((p) => p.op === op).reduce((n, p) => n + (p.text.match(/\S+/g) || []).length, 0);
  return h('figure', { class: 'diff', id },
    h('figcaption', {}, `Changes: ${words('del')} words removed, ${words('ins')} added. `,
      h('del', {}, 'removed'), ' ', h('ins', {}, 'added')),
    h('div', { class: 'diff-text' }, parts.map((p) => (p.op === 'eq' ? p.text : h(p.op, {}, p.text)))));
}
