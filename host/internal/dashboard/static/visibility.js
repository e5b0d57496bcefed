// AI visibility: GET /v1/ai/generate/seo-site-report?evidence=true and
// GET /v1/ai/generate/seo-site-report/history.
import { get } from './api.js';
import { h, errorBox, fmtTime, stat, table } from './dom.js';
import { lineChart } from './chart.js';

export const title = 'AI visibility';
const state = { days: 90 };

const score = (x) => (x == null ? '—' : Number(x).toFixed(1));

export async function render(root) {
  let report;
  try {
    report = await get('/v1/ai/generate/seo-site-report?evidence=true');
  } catch (err) {
    if (err.status === 404) {
      root.replaceChildren(h('h1', {}, title), h('p', { class: 'muted' }, 'Visibility reports are not enabled on this server.'));
      return;
    }
    throw err;
  }
  if (report.isEmpty) {
    root.replaceChildren(h('h1', {}, title), h('p', { class: 'muted', id: 'no-report' },
      'No visibility report yet. Create one with POST /v1/ai/generate/seo-site-report (or ask the agent).'));
    return;
  }
  const sc = report.scores || {};
  const history = h('section', { class: 'card' }, h('p', { class: 'muted' }, 'Loading history…'));
  root.replaceChildren(
    h('h1', {}, title),
    h('p', { class: 'muted' }, `${report.input ? report.input.websiteurl : ''} · ${fmtTime(report.createdAt)} · ${report.state || ''}`),
    h('div', { class: 'stats' },
      stat('AI visibility', score(sc.aiVisibility && sc.aiVisibility.score), 'stat-visibility'),
      stat('Share of voice', score(sc.shareOfVoice && sc.shareOfVoice.score)),
      stat('Entity understanding', score(sc.entityUnderstanding && sc.entityUnderstanding.score))),
    h('p', {}, sc.aiVisibility && sc.aiVisibility.interpretation ? `Visibility is ${sc.aiVisibility.interpretation}.` : ''),
    history,
    brandsCard(report),
    enginesCard(report),
    recommendationsCard(report.recommendations || []),
    evidenceCard(report.answers || []));
  try {
    const { points = [] } = await get(`/v1/ai/generate/seo-site-report/history?days=${state.days}`);
    const names = Object.fromEntries(((report.report && report.report.geo && report.report.geo.brands) || []).map((b) => [b.slug, b.name]));
    history.replaceChildren(historyChart(points, names));
  } catch (err) {
    history.replaceChildren(errorBox(err));
  }
}

// historyChart draws the brand's visibility and each competitor's
// (comp_<slug>) over time.
function historyChart(points, names) {
  if (points.length === 0) return h('p', { class: 'muted' }, 'No completed report in the last 90 days.');
  const comps = [...new Set(points.flatMap((p) => Object.keys(p).filter((k) => k.startsWith('comp_'))))].sort();
  const series = [{ label: 'You', values: points.map((p) => p.overall ?? null) }]
    .concat(comps.map((k) => ({ label: names[k.slice(5)] || k.slice(5).replace(/_/g, ' '), values: points.map((p) => p[k] ?? null) })));
  return lineChart({ id: 'visibility-chart', title: 'Visibility over time, against competitors', xs: points.map((p) => p.timestamp), series, yLabel: 'score', valueFmt: score });
}

function brandsCard(report) {
  const brands = (report.report && report.report.geo && report.report.geo.brands) || [];
  return h('section', { class: 'card' }, h('h2', {}, 'Brands'),
    table('Brands named by the engines', [
      ['Brand', (b) => (b.self ? h('strong', {}, `${b.name} (you)`) : b.name)],
      ['Visibility', (b) => score(b.visibility)],
      ['Share of voice', (b) => score(b.shareOfVoice)],
      ['Mentions', (b) => b.mentions],
      ['Avg. position', (b) => (b.averagePosition ? Number(b.averagePosition).toFixed(1) : '—')],
    ], brands, 'No brand data.'));
}

function enginesCard(report) {
  const engines = (report.report && report.report.geo && report.report.geo.engines) || [];
  return h('section', { class: 'card' }, h('h2', {}, 'Engines'),
    table('Answers per engine', [
      ['Engine', (e) => e.engine], ['Answered', (e) => `${e.answered} of ${e.planned}`],
      ['Problem', (e) => (e.error ? h('span', { class: 'error-text' }, e.error) : '')],
    ], engines, 'No engine ran.'));
}

function recommendationsCard(recs) {
  return h('section', { class: 'card' }, h('h2', {}, 'Recommendations'),
    recs.length ? h('ul', {}, recs.map((r) => h('li', {}, typeof r === 'string' ? r : [h('strong', {}, r.title || r.kind || ''), ' ', r.detail || r.text || r.description || '']))) : h('p', { class: 'muted' }, 'None.'));
}

function evidenceCard(answers) {
  return h('section', { class: 'card', id: 'evidence' }, h('h2', {}, `Evidence (${answers.length} answers)`),
    answers.length ? answers.map((a) => h('details', { class: 'answer' },
      h('summary', {}, `${a.engine}: “${a.prompt}”`, a.cached ? ' (cached)' : '', a.error ? ' — failed' : ''),
      a.error ? h('p', { class: 'error-text' }, a.error) : h('pre', {}, a.text || ''),
      (a.mentions || []).length ? h('p', { class: 'muted' }, 'Named: ', a.mentions.map((m) => `${m.brand || m.name} (#${m.position})`).join(', ')) : null,
      (a.citations || []).length ? h('ul', {}, a.citations.map((c) => h('li', {}, typeof c === 'string' ? c : c.url || JSON.stringify(c)))) : null))
      : h('p', { class: 'muted' }, 'No stored answers.'));
}
