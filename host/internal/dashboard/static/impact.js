// The impact of the posts written for a tracker's prompts, and "Write for
// this gap": per published post its effect on the targeted prompts (the
// change there minus the change on the tracker's other prompts) with its
// 95% interval, whether it is significant, and its page's citations,
// verified crawls and AI visits before and after; the gap of the last run
// turned into a brief and opened in the content editor, where the draft
// route can write it (content.js).
// Routes: GET /v1/visibility/trackers/{id}/impact,
// POST /v1/visibility/trackers/{id}/brief.
import { get, post } from './api.js';
import { h, fill, errorBox, fmtTime, table } from './dom.js';

const API = '/v1/visibility/trackers';
// The content editor's draft (content.js reads it when it opens).
const DRAFT = 'herald.contentDraft';
// The targets of the post written from a brief (kept for the post form).
export const GAP_TARGETS = 'herald.gapTargets';

const num = (v) => (v == null ? '—' : `${v > 0 ? '+' : ''}${Number(v).toFixed(1)}`);
const ba = (c) => (c ? `${c.before} → ${c.after}` : '—');

function effectText(p) {
  if (p.state === 'pending') return `pending: readable on ${fmtTime(p.readableAt)}`;
  if (p.state !== 'ready') return p.state;
  const e = (p.effects || []).find((x) => x.figure === 'visibility');
  if (!e || e.value == null) return (e && e.note) || 'no effect';
  const iv = e.interval ? ` (interval ${num(e.interval.low)} to ${num(e.interval.high)})` : '';
  return `${num(e.value)} points${iv}${e.significant ? ', significant' : ', not significant'}`;
}

// impactCard is the tracker's Impact section.
export function impactCard(t) {
  const box = h('section', { class: 'card', id: 'tracker-impact', 'aria-labelledby': 'impact-h' },
    h('h2', { id: 'impact-h' }, 'Impact of published posts'), h('p', { class: 'muted' }, 'Loading…'));
  const id = encodeURIComponent(t.id);
  const status = h('div', { id: 'gap-status', 'aria-live': 'polite' });
  const write = h('button', { type: 'button', id: 'write-gap', onclick: () => writeForGap(t, status) }, 'Write for this gap');
  get(`${API}/${id}/impact`).then(({ posts = [] }) => {
    fill(box, h('h2', { id: 'impact-h' }, 'Impact of published posts'),
      h('p', { class: 'muted' }, 'Each post is compared on the prompts it targets against the tracker\'s other prompts, over the 14 days before publishing and the days since. This comparison does not prove the post caused the change; only a significant effect is called a change.'),
      table('Posts and their effect', [
        ['Post', (p) => (p.page && p.page.url) || p.scheduleId],
        ['Published', (p) => fmtTime(p.publishedAt)],
        ['Visibility effect', (p) => effectText(p)],
        ['Answers citing it', (p) => ba(p.page && p.page.citations)],
        ['Verified crawls', (p) => ba(p.page && p.page.verifiedCrawls)],
        ['AI visits', (p) => ba(p.page && p.page.aiVisits)],
      ], posts, 'No post targets this tracker\'s prompts yet.'),
      h('div', { class: 'actions' }, write), status);
  }).catch((err) => fill(box, h('h2', { id: 'impact-h' }, 'Impact of published posts'), errorBox(err), h('div', { class: 'actions' }, write), status));
  return box;
}

// The words a buyer's question is asked with, not what it is about.
const ASKING = new Set(('what whats which who where when why how is are was were do does did can could should would will ' +
  'i we you my our me us a an the some any there best top good great most recommended leading cheapest ' +
  'company companies brand brands vendor vendors provider providers makes make offers offer sells sell provides provide ' +
  'choose pick find buy get use need').split(' '));
// Words a keyphrase does not end with.
const LINKING = new Set('for in of to with on at by from and or the a an vs versus'.split(' '));

// keyphraseOf is the focus keyphrase proposed for a gap's question: its
// subject, at most 4 words ("Which company makes the best industrial
// widgets for factories in Europe?" → "industrial widgets for
// factories"), the question asked around it left out. The editor keeps it
// editable.
export function keyphraseOf(question) {
  const words = question.toLowerCase().replace(/[?!.,;:"“”()]/g, ' ').split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < words.length && ASKING.has(words[i].replace(/['’]s$/, ''))) i++;
  let kept = words.slice(i, i + 4);
  while (kept.length && LINKING.has(kept[kept.length - 1])) kept = kept.slice(0, -1);
  if (!kept.length) kept = words.slice(0, 4);
  return kept.join(' ');
}

// writeForGap asks for the brief of the gap and opens it in the content
// editor; the post written from it keeps the gap's prompts as targets.
async function writeForGap(t, status) {
  fill(status, h('p', { class: 'muted' }, 'Reading the gap…'));
  try {
    const { brief } = await post(`${API}/${encodeURIComponent(t.id)}/brief`, {});
    const first = (brief.prompts || [])[0];
    sessionStorage.setItem(DRAFT, JSON.stringify({ title: first ? first.text : '', keyphrase: first ? keyphraseOf(first.text) : '', format: 'markdown', content: brief.outline }));
    sessionStorage.setItem(GAP_TARGETS, JSON.stringify({ trackerId: t.id, targetPrompts: brief.targetPrompts || [] }));
    location.hash = '#/content';
  } catch (err) {
    fill(status, errorBox(err));
  }
}
