// One visibility report as GET /v1/ai/generate/seo-site-report?evidence=true
// (or a one-off) answers it: scores with their interpretation, per-engine
// bars, brands, recommendations, evidence with the mentions marked in the
// answer text. Fields the API adds later are ignored; missing ones show —.
import { h, fmtTime, stat, table, palette, rating } from './dom.js';
import { bars, lineChart } from './chart.js';

export const score = (x) => (x == null ? '—' : Number(x).toFixed(1));

// What each score measures (docs/METRICS.md), said once under the cards.
const MEANING = {
  aiVisibility: 'How often and how early the engines name you when buyers ask (0–100).',
  shareOfVoice: 'Your share of all brand mentions in the answers, against the competitors.',
  entityUnderstanding: 'How well the engines know the facts your site states (not part of AI visibility).',
};

function brandsOf(report) {
  return (report.report && report.report.geo && report.report.geo.brands) || [];
}

// brandColors gives you the first colour and each competitor the next
// ones, by slug, so the history chart, bars and marks agree.
export function brandColors(report) {
  const colors = {};
  let i = 1;
  for (const b of brandsOf(report)) colors[b.slug] = b.self ? palette[0] : palette[i++ % palette.length];
  return colors;
}

function scoreCard(label, s, id) {
  const card = stat(label, score(s && s.score), id);
  if (s && s.interpretation) {
    card.append(h('span', { class: `verdict rating-${rating(s.score)}` }, s.interpretation));
  }
  return card;
}

// summary is the top of a report: cards and what they mean.
export function summary(report) {
  const sc = report.scores || {};
  const sov = sc.shareOfVoice || {};
  return h('div', {},
    h('div', { class: 'stats' },
      scoreCard('AI visibility', sc.aiVisibility, 'stat-visibility'),
      scoreCard('Share of voice', sc.shareOfVoice, 'stat-sov'),
      scoreCard('Entity understanding', sc.entityUnderstanding, 'stat-understanding')),
    h('ul', { class: 'meaning muted' },
      h('li', {}, h('strong', {}, 'AI visibility: '), MEANING.aiVisibility),
      h('li', {}, h('strong', {}, 'Share of voice: '), MEANING.shareOfVoice,
        sov.totalMentions != null ? ` You have ${sov.selfMentions ?? 0} of ${sov.totalMentions} mentions.` : ''),
      h('li', {}, h('strong', {}, 'Entity understanding: '), MEANING.entityUnderstanding)));
}

// enginesCard: visibility per engine as bars (0–100), and each engine's
// answered/planned count with its last problem.
export function enginesCard(report) {
  const providers = (report.scores && report.scores.aiVisibility && report.scores.aiVisibility.providers) || {};
  const engines = (report.report && report.report.geo && report.report.geo.engines) || [];
  const rows = Object.entries(providers).map(([engine, v], i) => ({
    label: engine, value: v == null ? 0 : Number(v), max: 100, color: palette[(i + 3) % palette.length],
    text: v == null ? 'no answer' : score(v),
  }));
  return h('section', { class: 'card', id: 'engines', 'aria-labelledby': 'engines-h' }, h('h2', { id: 'engines-h' }, 'Visibility per engine'),
    rows.length ? bars('AI visibility per engine, out of 100', rows) : h('p', { class: 'muted' }, 'No engine answered.'),
    table('Answers per engine', [
      ['Engine', (e) => e.engine], ['Answered', (e) => `${e.answered} of ${e.planned}`],
      ['Problem', (e) => (e.error ? h('span', { class: 'error-text' }, e.error) : '')],
    ], engines, ''));
}

export function brandsCard(report) {
  const colors = brandColors(report);
  return h('section', { class: 'card', id: 'brands', 'aria-labelledby': 'brands-h' }, h('h2', { id: 'brands-h' }, 'You and your competitors'),
    table('Brands named by the engines', [
      ['Brand', (b) => h('span', { class: 'swatch-label' }, swatch(colors[b.slug]), b.self ? h('strong', {}, `${b.name} (you)`) : b.name)],
      ['Visibility', (b) => score(b.visibility)],
      ['Share of voice', (b) => score(b.shareOfVoice)],
      ['Mentions', (b) => b.mentions ?? 0],
      ['Avg. position', (b) => (b.averagePosition ? Number(b.averagePosition).toFixed(1) : '—')],
      ['Position among all brands', (b) => score(b.positionAmongAll)],
    ], brandsOf(report), 'No brand data.'));
}

// competitorString is how a discovered brand becomes a competitor input:
// "Name (domain)" when the judge gave a domain.
export const competitorString = (d) => (d.domain ? `${d.name} (${d.domain})` : d.name);

// discoveredCard lists the brands the answers name that nobody tracks,
// most frequent first, with the judge's note when there is no discovery.
// onTrack(competitor), when given, adds one as a competitor in one click.
export function discoveredCard(report, onTrack) {
  const geo = (report.report && report.report.geo) || {};
  const list = geo.discoveredBrands || [];
  const note = geo.discovery && geo.discovery.note;
  const cols = [
    ['Brand', (d) => (d.domain ? `${d.name} (${d.domain})` : d.name)],
    ['Answers naming it', (d) => d.answers ?? 0],
    ['Share of answers', (d) => `${score(d.mentionRate)}%`],
    ['Avg. position among all', (d) => score(d.avgPosition)],
  ];
  if (onTrack) {
    cols.push(['', (d) => h('button', { type: 'button', class: 'secondary', 'aria-label': `Track ${d.name} as a competitor`, onclick: () => onTrack(competitorString(d)) }, 'Track as competitor')]);
  }
  return h('section', { class: 'card', id: 'discovered', 'aria-labelledby': 'discovered-h' }, h('h2', { id: 'discovered-h' }, 'Brands the engines name that you do not track'),
    note ? h('p', { class: 'muted', id: 'discovery-note' }, note) : null,
    table('Discovered brands, most frequent first', cols, list, note ? '' : 'The answers name no other brand.'));
}

function swatch(color) {
  const s = h('span', { class: 'swatch', 'aria-hidden': 'true' });
  if (color) s.style.background = color;
  return s;
}

export function recommendationsCard(recs) {
  const item = (r) => {
    if (typeof r === 'string') return h('li', {}, r);
    const ev = Array.isArray(r.evidence) ? r.evidence : [];
    return h('li', { class: 'rec' },
      r.priority ? h('span', { class: `badge priority-${r.priority}` }, r.priority) : null, ' ',
      h('strong', {}, r.title || r.kind || ''), r.detail ? h('p', {}, r.detail) : null,
      ev.length ? h('details', {}, h('summary', {}, `Evidence (${ev.length})`),
        h('ul', {}, ev.map((e) => h('li', {}, typeof e === 'string' ? e : Object.entries(e).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(' · '))))) : null);
  };
  return h('section', { class: 'card', id: 'recommendations', 'aria-labelledby': 'recs-h' }, h('h2', { id: 'recs-h' }, 'Recommendations'),
    recs.length ? h('ol', { class: 'recs' }, recs.map(item)) : h('p', { class: 'muted' }, 'None.'));
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// marked returns the answer text as nodes, each brand name or alias the
// answer mentions wrapped in <mark> (yours and competitors' told apart by
// class and a title, not by colour alone). The API gives mentions by brand,
// not by offset, so the names are found in the text here.
export function marked(text, mentions, brands) {
  const bySlug = Object.fromEntries(brands.map((b) => [b.slug, b]));
  const names = [];
  for (const m of mentions || []) {
    const b = bySlug[m.brand] || {};
    for (const n of [m.name, b.name, ...(b.aliases || []), ...(b.domains || [])]) {
      if (n && n.length > 1) names.push({ n, self: Boolean(m.self || b.self), brand: m.name || b.name || m.brand });
    }
  }
  if (!names.length || !text) return [text || ''];
  names.sort((a, b) => b.n.length - a.n.length); // longest first: "Globex Corp" before "Globex"
  const re = new RegExp(names.map((x) => escapeRe(x.n)).join('|'), 'gi');
  const out = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    const who = names.find((x) => x.n.toLowerCase() === m[0].toLowerCase());
    out.push(text.slice(last, m.index));
    out.push(h('mark', { class: who.self ? 'm-self' : 'm-comp', title: who.self ? `${who.brand} (you)` : who.brand }, m[0]));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

export function evidenceCard(report) {
  const answers = report.answers || [];
  const brands = brandsOf(report);
  const row = (a, i) => h('details', { class: 'answer', open: i < 2 },
    h('summary', {}, h('strong', {}, a.engine), ` — “${a.prompt}”`, a.cached ? ' (cached)' : '', a.error ? ' — failed' : '',
      (a.mentions || []).some((m) => m.self) ? h('span', { class: 'badge rating-good' }, 'names you') : h('span', { class: 'badge rating-bad' }, 'does not name you')),
    a.error ? h('p', { class: 'error-text' }, a.error) : h('blockquote', { class: 'answer-text' }, marked(a.text || '', a.mentions, brands)),
    (a.mentions || []).length ? h('p', { class: 'muted' }, 'Named, in order: ',
      [...a.mentions].sort((x, y) => (x.position || 0) - (y.position || 0)).map((m) => `${m.name || m.brand} (#${m.position})${m.cited ? ' cited' : ''}`).join(', ')) : null,
    (a.citations || []).length ? h('ul', { class: 'citations' }, a.citations.map((c) => {
      const url = typeof c === 'string' ? c : c.url;
      return h('li', {}, /^https?:\/\//.test(url || '') ? h('a', { href: url, rel: 'noopener noreferrer', target: '_blank' }, (c && c.title) || url) : String(url || ''));
    })) : null,
    a.model ? h('p', { class: 'muted small' }, `Model: ${a.model}`) : null);
  return h('section', { class: 'card', id: 'evidence', 'aria-labelledby': 'evidence-h' },
    h('h2', { id: 'evidence-h' }, `Evidence (${answers.length} answers)`),
    answers.length ? [h('p', { class: 'muted' }, 'Names are marked: ', h('mark', { class: 'm-self' }, 'you'), ' and ', h('mark', { class: 'm-comp' }, 'competitors'), '.'),
      answers.map(row)] : h('p', { class: 'muted' }, 'No stored answers.'));
}

// historyChart draws your visibility and each competitor's (comp_<slug>)
// over time, in the brands' colours.
export function historyChart(points, report) {
  if (points.length === 0) return h('p', { class: 'muted' }, 'No completed report in the last 90 days.');
  const brands = brandsOf(report);
  const names = Object.fromEntries(brands.map((b) => [b.slug, b.name]));
  const colors = brandColors(report);
  const comps = [...new Set(points.flatMap((p) => Object.keys(p).filter((k) => k.startsWith('comp_'))))].sort();
  const series = [{ label: 'You', color: palette[0], values: points.map((p) => p.overall ?? null) }]
    .concat(comps.map((k, i) => ({ label: names[k.slice(5)] || k.slice(5).replace(/_/g, ' '), color: colors[k.slice(5)] || palette[(i + 1) % palette.length], values: points.map((p) => p[k] ?? null) })));
  return lineChart({ id: 'visibility-chart', title: 'Visibility over time, against competitors', xs: points.map((p) => p.timestamp || p.time), series, yLabel: 'score', valueFmt: score });
}

// header says which site and when.
export function header(report) {
  const input = report.input || {};
  return h('p', { class: 'muted' }, `${input.websiteurl || ''} · ${fmtTime(report.createdAt)}${report.state && report.state !== 'completed' ? ' · ' + report.state : ''}`);
}
