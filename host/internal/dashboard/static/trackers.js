// Visibility trackers: a report's setup run daily or weekly. The list
// (pause, resume, run now, delete), create and edit (website → suggested
// competitors and prompts, cadence, engines) and, for the selected
// tracker, its trend: per engine the visibility of the brand and each
// competitor, the sources and source gaps of the latest run, visibility
// beside AI visits when the site is tracked, and a prompt's last answers.
// The impact of the posts written for it and "Write for this gap" are
// impact.js.
// Routes: /v1/visibility/trackers[/{id}], …/{id}/run, …/{id}/trend,
// …/{id}/trend.csv, POST /v1/ai/generate/seo-site-report/prefill,
// GET /v1/ai/generate/seo-site-report (the latest run's sources).
import { get, post, put, del, pollJob } from './api.js';
import { h, fill, errorBox, fmtTime, table, progress, jobText, field, palette } from './dom.js';
import { lineChart } from './chart.js';
import { listEditor } from './visibility.js';
import { impactCard } from './impact.js';

export const title = 'Visibility trackers';
const API = '/v1/visibility/trackers';
const REPORT = '/v1/ai/generate/seo-site-report';
const pct = (v) => (v == null ? '—' : Number(v).toFixed(1));

export async function render(root, selected) {
  let trackers;
  try {
    ({ trackers = [] } = await get(API));
  } catch (err) {
    if (err.status === 404) {
      fill(root, h('h1', {}, title), h('p', { class: 'muted' }, 'Trackers are not enabled on this server.'));
      return;
    }
    throw err;
  }
  const status = h('div', { id: 'trackers-status', 'aria-live': 'polite' });
  const trend = h('section', { class: 'card', id: 'tracker-trend', 'aria-labelledby': 'trend-h' },
    h('h2', { id: 'trend-h' }, 'Trend'), h('p', { class: 'muted' }, trackers.length ? 'Choose a tracker above to see its trend.' : 'No tracker yet.'));
  const ctx = { root, status, trend };
  fill(root, h('h1', {}, title),
    h('p', {}, 'A tracker re-runs a visibility report at the same time every day or week, so you can see the trend.'),
    h('section', { class: 'card', id: 'trackers', 'aria-labelledby': 'trackers-h' }, h('h2', { id: 'trackers-h' }, 'Your trackers'),
      listTable(ctx, trackers), status),
    editCard(ctx, null, trackers.length === 0),
    trend);
  const pick = trackers.find((t) => t.id === selected) || trackers[0];
  if (pick) await showTrend(ctx, pick);
}

function listTable(ctx, trackers) {
  return table('Trackers', [
    ['Website', (t) => t.websiteurl],
    ['Cadence', (t) => `${t.cadence} at ${t.slotTime || '—'} UTC${t.slotWeekday ? ` on ${t.slotWeekday}` : ''}`],
    ['State', (t) => h('span', { class: `badge ${t.active ? 'status-published' : 'status-cancelled'}` }, t.active ? 'active' : 'paused')],
    ['Last run', (t) => (t.lastSkip ? `${fmtTime(t.lastRunAt)} (skipped ${fmtTime(t.lastSkip.at)}: ${t.lastSkip.reason})` : fmtTime(t.lastRunAt))],
    ['Next run', (t) => fmtTime(t.nextRunAt)],
    ['', (t) => h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Show the trend of ${t.websiteurl}`, onclick: () => showTrend(ctx, t, true) }, 'Trend'),
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Run the tracker of ${t.websiteurl} now`, 'data-action': 'run', onclick: (e) => runNow(ctx, t, e.target) }, 'Run now'),
      h('button', { type: 'button', class: 'secondary', 'aria-label': `${t.active ? 'Pause' : 'Resume'} the tracker of ${t.websiteurl}`, 'data-action': 'toggle',
        onclick: () => act(ctx, t.id, () => put(`${API}/${encodeURIComponent(t.id)}`, { active: !t.active })) }, t.active ? 'Pause' : 'Resume'),
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Edit the tracker of ${t.websiteurl}`, onclick: () => {
        const card = editCard(ctx, t, true);
        document.getElementById('tracker-edit').replaceWith(card);
        card.querySelector('input').focus();
      } }, 'Edit'),
      h('button', { type: 'button', class: 'danger', 'aria-label': `Delete the tracker of ${t.websiteurl}`, onclick: () => {
        if (confirm(`Delete the tracker of ${t.websiteurl}? Its runs stay in the history.`)) act(ctx, null, () => del(`${API}/${encodeURIComponent(t.id)}`));
      } }, 'Delete'))],
  ], trackers, 'No tracker yet: create one below.');
}

// act calls the API, then redraws the page on selected, or shows the
// API's refusal.
async function act(ctx, selected, f) {
  fill(ctx.status);
  try {
    await f();
    await render(ctx.root, selected);
  } catch (err) {
    fill(ctx.status, errorBox(err));
  }
}

async function runNow(ctx, t, btn) {
  btn.disabled = true;
  fill(ctx.status);
  try {
    const { jobId } = await post(`${API}/${encodeURIComponent(t.id)}/run`);
    await followJob(ctx, jobId, t.id);
  } catch (err) {
    fill(ctx.status, errorBox(err));
    btn.disabled = false;
  }
}

// followJob shows a run's progress in the status line, then the page
// again with the tracker's trend.
async function followJob(ctx, jobId, id) {
  const bar = progress('Tracker run progress');
  fill(ctx.status, bar);
  await pollJob(jobId, (job) => bar.set(job.progress, jobText(job)));
  await render(ctx.root, id);
  const s = document.getElementById('trackers-status');
  if (s) fill(s, h('p', { class: 'ok' }, 'Run complete.'));
}

const competitorText = (c) => (typeof c === 'string' ? c : c.domain ? `${c.name} (${c.domain})` : c.name);

// editCard creates (t null) or edits a tracker: website → suggestions →
// competitors, prompts, cadence and engines.
function editCard(ctx, t, open) {
  const editing = Boolean(t);
  const site = h('input', { id: 'tracker-website', type: 'url', required: true, placeholder: 'https://example.com', value: t ? t.websiteurl : '', autocomplete: 'url' });
  const err = h('div', { id: 'tracker-prefill-error' });
  const editor = h('div', { id: 'tracker-editor' });
  const suggest = h('button', { type: 'button', class: 'secondary', id: 'tracker-suggest' }, editing ? 'Suggest again' : 'Suggest competitors and prompts');
  suggest.addEventListener('click', async () => {
    if (!site.reportValidity()) return;
    suggest.disabled = true;
    fill(err);
    try {
      const r = await post(`${REPORT}/prefill`, { websiteurl: site.value.trim() });
      const pre = r.prefill || {};
      editorForm(ctx, editor, site, t, pre.competitors || [], pre.prompts || [], r.promptLimit || 0);
    } catch (x) {
      fill(err, errorBox(x));
    } finally {
      suggest.disabled = false;
    }
  });
  if (editing) editorForm(ctx, editor, site, t, (t.competitors || []).map(competitorText), (t.prompts || []).map((p) => p.text), 0);
  const heading = editing ? `Edit the tracker of ${t.websiteurl}` : 'New tracker';
  const body = [field('Website (https)', site, 'Herald reads it and suggests competitors and the questions your buyers ask.'), suggest, err, editor];
  const card = h('details', { class: 'card', id: 'tracker-edit', open }, h('summary', {}, h('h2', { class: 'inline', id: 'tracker-edit-h' }, heading)), body);
  return card;
}

function editorForm(ctx, editor, site, t, competitors, prompts, limit) {
  const comps = listEditor('competitors', 'Competitor', competitors, 0);
  const pr = listEditor('prompts', 'Prompt', prompts, limit);
  const cadence = h('select', { id: 'tracker-cadence' },
    ['daily', 'weekly'].map((c) => h('option', { value: c, selected: (t ? t.cadence : 'daily') === c }, c)));
  const engines = h('input', { id: 'tracker-engines', value: t ? (t.engines || []).join(', ') : '', placeholder: 'gpt-4o, claude' });
  const status = h('div', { id: 'tracker-save-status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', id: 'tracker-save' }, t ? 'Save the tracker' : 'Create the tracker and run it now');
  const form = h('form', { class: 'stack', id: 'tracker-form', onsubmit: async (e) => {
    e.preventDefault();
    save.disabled = true;
    fill(status);
    const body = {
      websiteurl: site.value.trim(), competitors: comps.values(), prompts: pr.values(), cadence: cadence.value,
      engines: engines.value.split(',').map((x) => x.trim()).filter(Boolean),
    };
    try {
      if (t) {
        await put(`${API}/${encodeURIComponent(t.id)}`, body);
        await render(ctx.root, t.id);
      } else {
        const r = await post(API, body);
        if (r.jobId) await followJob(ctx, r.jobId, r.tracker.id);
        else await render(ctx.root, r.tracker.id);
      }
    } catch (x) {
      fill(status, errorBox(x));
      save.disabled = false;
    }
  } }, comps, pr,
  field('Cadence', cadence, 'Runs at this time of day (UTC), every day or every week on this weekday; your plan may allow weekly only.'),
  field('Engines (comma-separated)', engines, 'Empty: the engines configured on this server.'),
  save, status);
  fill(editor, form);
}

// showTrend draws the selected tracker's trend in the trend card.
async function showTrend(ctx, t, focus) {
  const box = ctx.trend;
  const heading = h('h2', { id: 'trend-h', tabindex: '-1' }, `Trend of ${t.websiteurl}`);
  fill(box, heading, h('p', { class: 'muted' }, 'Loading…'));
  if (focus) heading.focus();
  const id = encodeURIComponent(t.id);
  try {
    const [tr, latest] = await Promise.all([get(`${API}/${id}/trend?days=30&answers=3`), get(REPORT).catch(() => null)]);
    const series = tr.series || [];
    const csv = h('a', { href: '#', id: 'trend-csv', class: 'csv-link' }, 'Download the trend as CSV');
    csv.addEventListener('click', (e) => { e.preventDefault(); downloadCSV(t, csv); });
    fill(box, heading,
      h('p', { class: 'muted' }, `${t.cadence} · ${t.active ? 'active' : 'paused'} · ${series.length} day${series.length === 1 ? '' : 's'} with a run in the last ${tr.days} days`),
      csv,
      series.length === 0 ? h('p', { class: 'muted', id: 'trend-empty' }, 'No completed run yet.') : engineCharts(tr),
      sourcesPart(t, latest),
      trafficPart(tr.traffic),
      impactCard(t),
      promptsPart(tr.prompts || []));
  } catch (err) {
    fill(box, heading, errorBox(err));
  }
}

// downloadCSV fetches the CSV with the API key (a plain link cannot send
// the header) and saves it through an object URL.
async function downloadCSV(t, link) {
  try {
    const res = await fetch(`${API}/${encodeURIComponent(t.id)}/trend.csv?days=90`, { headers: { 'api-key': sessionStorage.getItem('herald.apiKey') || '' } });
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    const url = URL.createObjectURL(await res.blob());
    const a = h('a', { href: url, download: `tracker-${t.id}.csv`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  } catch (err) {
    link.after(errorBox(err));
  }
}

// dayRange lists the days from first to last (YYYY-MM-DD), at least a
// week ending on last, so that one run is a point on a readable axis and a
// day without a run is a gap.
function dayRange(first, last) {
  const day = 86400000;
  const end = Date.parse(`${last}T00:00:00Z`);
  const start = Math.min(Date.parse(`${first}T00:00:00Z`), end - 6 * day);
  const out = [];
  for (let t = start; t <= end; t += day) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

// engineCharts: one chart per engine, the brand and each competitor.
function engineCharts(tr) {
  const brands = tr.brands || [];
  const series = tr.series || [];
  const color = (i) => palette[i % palette.length];
  const byDay = Object.fromEntries(series.map((p) => [p.day, p]));
  const xs = dayRange(series[0].day, series[series.length - 1].day);
  return h('div', { class: 'charts', id: 'trend-engines' }, (tr.engines || []).map((eng, n) => lineChart({
    id: `trend-chart-${n}`,
    title: `Visibility on ${eng}, against competitors`,
    xs,
    series: brands.map((b, i) => {
      const fig = (d) => { const p = byDay[d]; return p && p.engines && p.engines[eng] && p.engines[eng][b.slug] ? p.engines[eng][b.slug] : null; };
      const iv = (d) => { const f = fig(d); return f && f.intervals && f.intervals.visibility ? f.intervals.visibility.interval : null; };
      const ch = (d) => { const f = fig(d); return f && f.changes ? f.changes.visibility : null; };
      return { label: b.self ? `${b.name} (you)` : b.name, color: color(i),
        values: xs.map((d) => (fig(d) ? fig(d).visibility : null)),
        low: xs.map((d) => (iv(d) ? iv(d).low : null)),
        high: xs.map((d) => (iv(d) ? iv(d).high : null)),
        // Only a significant change is marked; any other movement is noise.
        marks: xs.map((d) => (ch(d) && ch(d).significant ? fig(d).visibility : null)) };
    }),
    yLabel: 'visibility',
    valueFmt: pct,
  })));
}

// sourcesPart: the sources and gaps of the latest run, when it is the
// workspace's latest report (the API serves only that one).
function sourcesPart(t, latest) {
  const box = h('div', { id: 'trend-sources' }, h('h3', {}, 'Sources of the latest run'));
  if (!t.lastReportId) return box.append(h('p', { class: 'muted' }, 'No run yet.')), box;
  if (!latest || latest.id !== t.lastReportId) {
    return box.append(h('p', { class: 'muted' }, 'A newer report than this tracker’s last run exists; its sources are shown on the Visibility page.')), box;
  }
  const rep = latest.report || {};
  box.append(table('Domains the engines’ answers used', [
    ['Domain', (s) => s.domain],
    ['Kind', (s) => s.kind],
    ['Retrieved (% of answers)', (s) => pct(s.retrieved)],
    ['Citations per answer', (s) => Number(s.citations || 0).toFixed(2)],
    ['Answers', (s) => s.answers ?? 0],
  ], rep.sources || [], 'No answer cited a source.'),
  h('h3', {}, 'Source gaps'),
  table('Sites used where competitors are named and you are not', [
    ['Domain', (g) => g.domain],
    ['Answers', (g) => g.answers],
    ['Competitors named', (g) => (g.competitors || []).join(', ')],
    ['Prompts (engine)', (g) => (g.prompts || []).join('; ')],
  ], rep.sourceGaps || [], 'No gap: no site is cited for competitors without you.'));
  return box;
}

// trafficPart: your visibility per engine (a day without a run carries
// the last run forward) and, on its own axis, the visits from each
// engine's source; two series side by side, not a cause.
function trafficPart(traffic) {
  if (!traffic || !(traffic.days || []).length) return null;
  const days = traffic.days;
  const engines = [...new Set(days.flatMap((d) => Object.keys(d.engines || {})))].sort();
  const cell = (d, eng, k) => (d.engines && d.engines[eng] ? d.engines[eng][k] ?? null : null);
  const source = (eng) => ((days.find((d) => d.engines && d.engines[eng]) || {}).engines || {})[eng]?.source || eng;
  return h('div', { class: 'charts', id: 'trend-traffic' }, h('h3', {}, `Visibility and AI visits (${traffic.domain})`),
    h('p', { class: 'muted' }, 'Two series side by side: visits are not claimed to follow from visibility.'),
    lineChart({
      id: 'traffic-visibility', title: 'Your visibility per engine (the last run carried forward)', xs: days.map((d) => d.day),
      series: engines.map((eng, i) => ({ label: eng, color: palette[i % palette.length], values: days.map((d) => cell(d, eng, 'visibility')) })),
      yLabel: 'visibility', valueFmt: pct,
    }),
    lineChart({
      id: 'traffic-visits', title: 'Visits from each engine’s source', xs: days.map((d) => d.day),
      series: engines.map((eng, i) => ({ label: `${source(eng)} (${eng})`, color: palette[i % palette.length], dash: [6, 4], values: days.map((d) => cell(d, eng, 'visits')) })),
      yLabel: 'visits', valueFmt: (v) => String(v),
    }));
}

// promptsPart: pick a prompt, see each engine's last answers.
function promptsPart(prompts) {
  if (!prompts.length) return null;
  const sel = h('select', { id: 'trend-prompt' }, prompts.map((p, i) => h('option', { value: i }, p.prompt)));
  const out = h('div', { id: 'trend-answers', 'aria-live': 'polite' });
  const show = () => {
    const p = prompts[Number(sel.value)] || prompts[0];
    fill(out, Object.entries(p.engines || {}).map(([eng, answers]) => h('section', { class: 'answers' },
      h('h4', {}, eng),
      answers.length === 0 ? h('p', { class: 'muted' }, 'No answer.') : answers.map((a) => h('article', { class: 'answer' },
        h('p', { class: 'muted' }, fmtTime(a.at), (a.mentions || []).length ? ` · names ${a.mentions.map((m) => m.name || m.brand).join(', ')}` : ' · names no tracked brand'),
        a.error ? h('p', { class: 'error' }, a.error) : h('p', { class: 'answer-text' }, a.text))))));
  };
  sel.addEventListener('change', show);
  show();
  return h('div', { id: 'trend-prompts' }, h('h3', {}, 'Answers to a prompt'), field('Prompt', sel), out);
}
