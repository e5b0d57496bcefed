// AI traffic: GET /v1/ai-traffic/sites and GET /v1/ai-traffic/stats; the
// Google Analytics panel is ga.js.
import { get, post } from './api.js';
import { h, fill, errorBox, fmtNum, fmtPct, fmtDuration, stat, table, palette } from './dom.js';
import { lineChart, bars } from './chart.js';
import { gaCard } from './ga.js';

export const title = 'AI traffic';
const DAYS = [7, 30, 90, 365];
const state = { siteKey: '', days: 30 };

// One colour per line, shared by the chart and the source bars so that
// the legend and the bars agree: the AI total in the first colour, each
// source in the next ones (in the order the API ranks them), all visits in
// grey.
const TOTAL_COLOR = palette[0];
const ALL_COLOR = '#6b7280';
const sourceColor = (i) => palette[1 + (i % (palette.length - 2))];

export async function render(root) {
  const { sites = [] } = await get('/v1/ai-traffic/sites');
  const heading = h('h1', {}, title);
  if (sites.length === 0) {
    fill(root, heading, addSiteForm(root, 'No site is tracked yet. Add your website to get the snippet.'));
    return;
  }
  if (!sites.some((s) => s.siteKey === state.siteKey)) state.siteKey = sites[0].siteKey;
  const site = sites.find((s) => s.siteKey === state.siteKey);

  const siteSel = h('select', { id: 'site', onchange: (e) => { state.siteKey = e.target.value; render(root); } },
    sites.map((s) => h('option', { value: s.siteKey, selected: s.siteKey === state.siteKey }, s.name && s.name !== s.domain ? `${s.name} (${s.domain})` : s.domain)));
  const daysSel = h('select', { id: 'days', onchange: (e) => { state.days = Number(e.target.value); render(root); } },
    DAYS.map((d) => h('option', { value: d, selected: d === state.days }, `Last ${d} days`)));
  const controls = h('form', { class: 'controls', onsubmit: (e) => e.preventDefault() },
    h('label', {}, 'Site ', siteSel), h('label', {}, 'Period ', daysSel));

  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  fill(root, heading, controls, body);
  let s;
  try {
    s = await get(`/v1/ai-traffic/stats?siteKey=${encodeURIComponent(state.siteKey)}&days=${state.days}`);
  } catch (err) {
    fill(body, errorBox(err));
    return;
  }
  const t = s.totals || {};
  const series = s.series || [];
  fill(body, 
    h('p', { class: 'muted', id: 'traffic-source' }, `${s.domain} · ${s.from} to ${s.to} (UTC) · from ${s.source === 'google_analytics' ? 'Google Analytics' : 'the tracking script'}`),
    h('div', { class: 'stats' },
      stat('AI visits', fmtNum(t.aiVisits), 'stat-ai-visits'),
      stat('Share of all visits', fmtPct(t.aiShare)),
      stat('AI pageviews', fmtNum(t.aiPageviews)),
      stat('Crawler hits', fmtNum(t.crawlerHits))),
    dailyChart(series, s.sources || []),
    h('section', { class: 'card', 'aria-labelledby': 'sources-h' }, h('h2', { id: 'sources-h' }, 'AI sources'),
      (s.sources || []).length
        ? bars('AI visits by source', s.sources.map((x, i) => ({ label: x.name || x.source, value: x.visits, color: sourceColor(i), text: `${fmtNum(x.visits)} · ${fmtPct(x.share)}` })))
        : h('p', { class: 'muted' }, 'No AI visits in this period.'),
      table('Sources', [['Source', (x) => x.name || x.source], ['Visits', (x) => fmtNum(x.visits)], ['Engaged', (x) => fmtNum(x.engagedVisits)], ['Avg. time', (x) => fmtDuration(x.avgDurationMs)]], s.sources, '')),
    h('section', { class: 'card', 'aria-labelledby': 'pages-h' }, h('h2', { id: 'pages-h' }, 'Top AI pages'),
      table('Pages AI visitors viewed', [['Page', (p) => h('code', {}, p.path)], ['AI visits', (p) => fmtNum(p.aiVisits)], ['AI pageviews', (p) => fmtNum(p.aiPageviews)], ['Avg. time', (p) => fmtDuration(p.avgDurationMs)]],
        s.topPages, 'No AI visitor viewed a page in this period.')),
    h('section', { class: 'card', 'aria-labelledby': 'crawlers-h' }, h('h2', { id: 'crawlers-h' }, 'AI crawler hits'),
      table('Crawler hits by bot', [['Bot', (c) => c.bot], ['Operator', (c) => c.operator], ['Hits', (c) => fmtNum(c.hits)]],
        s.crawlers, 'No AI crawler visited in this period.')),
    gaCard(site, s, state.days, () => render(root)),
    snippetCard(site),
    h('details', { class: 'card' }, h('summary', {}, 'Track another site'), addSiteForm(root)));
}

// dailyChart draws AI visits per day, one line per source when the
// series carries per-source counts, else the AI total; all visits are
// drawn for comparison.
function dailyChart(series, sources) {
  const xs = series.map((d) => d.date);
  const lines = [{ label: 'All AI visits', color: TOTAL_COLOR, values: series.map((d) => d.aiVisits || 0) }];
  if (series.length && series.some((d) => Array.isArray(d.sources))) {
    sources.forEach((src, i) => {
      lines.push({ label: src.name || src.source, color: sourceColor(i), values: series.map((d) => ((d.sources || []).find((x) => x.source === src.source) || {}).visits || 0) });
    });
  }
  lines.push({ label: 'All visits', color: ALL_COLOR, dash: [6, 4], values: series.map((d) => d.visits || 0) });
  return h('section', { class: 'card' }, lineChart({ id: 'traffic-chart', title: 'Daily AI visits', xs, series: lines, yLabel: 'visits', valueFmt: fmtNum }));
}

function snippetCard(site) {
  const code = h('code', { id: 'snippet' }, site.snippet);
  const status = h('span', { class: 'muted', role: 'status' });
  const copy = h('button', { type: 'button', onclick: async () => {
    try {
      await navigator.clipboard.writeText(site.snippet);
      status.textContent = 'Copied.';
    } catch {
      getSelection().selectAllChildren(code);
      status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  } }, 'Copy snippet');
  return h('section', { class: 'card', 'aria-labelledby': 'snippet-h' },
    h('h2', { id: 'snippet-h' }, 'Tracking snippet'),
    h('p', {}, `Put this in the <head> of every page of ${site.domain}:`),
    h('pre', {}, code), h('p', {}, copy, ' ', status));
}

function addSiteForm(root, intro) {
  const err = h('div');
  const domain = h('input', { id: 'new-domain', name: 'domain', required: true, placeholder: 'example.com', autocomplete: 'url' });
  return h('form', { class: 'stack', onsubmit: async (e) => {
    e.preventDefault();
    fill(err, );
    try {
      const site = await post('/v1/ai-traffic/sites', { domain: domain.value.trim() });
      state.siteKey = site.siteKey;
      render(root);
    } catch (x) { fill(err, errorBox(x)); }
  } }, intro && h('p', {}, intro), h('label', { for: 'new-domain' }, 'Website domain'), domain, err, h('button', { type: 'submit' }, 'Add site'));
}
