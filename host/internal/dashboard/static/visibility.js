// AI visibility: run a report (website → suggested competitors and
// prompts → run → job progress), the latest report with its evidence and
// history, refresh under the plan's rules, one-off reports.
// Routes: POST /v1/ai/generate/seo-site-report/prefill, POST and GET
// /v1/ai/generate/seo-site-report, .../history, .../one-off(/{id}),
// GET /v1/ai/generate/job/{id}.
import { get, post, pollJob } from './api.js';
import { h, fill, errorBox, fmtTime, table, progress, jobText, field } from './dom.js';
import * as rep from './report.js';

export const title = 'AI visibility';
const REPORT = '/v1/ai/generate/seo-site-report';

export async function render(root) {
  let report;
  try {
    report = await get(`${REPORT}?evidence=true`);
  } catch (err) {
    if (err.status === 404) {
      fill(root, h('h1', {}, title), h('p', { class: 'muted' }, 'Visibility reports are not enabled on this server.'));
      return;
    }
    throw err;
  }
  const oneOffs = h('section', { class: 'card', id: 'oneoffs', 'aria-labelledby': 'oneoffs-h' }, h('h2', { id: 'oneoffs-h' }, 'One-off reports'), h('p', { class: 'muted' }, 'Loading…'));
  const runner = runCard(root, report);
  if (report.isEmpty) {
    fill(root, h('h1', {}, title),
      h('p', { class: 'muted', id: 'no-report' }, 'No visibility report yet: enter your website below to run the first one.'),
      runner, oneOffs);
  } else {
    const history = h('section', { class: 'card' }, h('p', { class: 'muted' }, 'Loading history…'));
    fill(root, 
      h('h1', {}, title),
      rep.header(report),
      rep.summary(report),
      refreshCard(root, report),
      history,
      rep.enginesCard(report),
      rep.brandsCard(report),
      rep.discoveredCard(report, (competitor) => trackDiscovered(root, runner, report, competitor)),
      rep.recommendationsCard(report.recommendations || []),
      rep.evidenceCard(report),
      runner,
      oneOffs);
    get(`${REPORT}/history?days=90`)
      .then(({ points = [] }) => fill(history, rep.historyChart(points, report)))
      .catch((err) => fill(history, errorBox(err)));
  }
  loadOneOffs(oneOffs);
}

// trackDiscovered opens the new-report editor with the latest report's
// website, competitors plus the discovered brand, and prompts: one click
// adds it; running the report stays the user's choice.
function trackDiscovered(root, runner, report, competitor) {
  const input = report.input || {};
  const competitors = [...(input.competitors || []).map((c) => (typeof c === 'string' ? c : c.name)), competitor];
  const editor = runner.querySelector('#report-editor');
  if (runner.tagName === 'DETAILS') runner.open = true;
  showEditor(root, editor, input.websiteurl || '', { prefill: { competitors, prompts: input.prompts || [] }, message: `${competitor} added to your competitors: run the report to track it.` });
  runner.scrollIntoView();
}

// runJob polls a report job into box and resolves with the finished job.
async function runJob(box, jobId) {
  const bar = progress('Report progress');
  fill(box, bar);
  return pollJob(jobId, (job) => bar.set(job.progress, jobText(job)));
}

// refreshCard re-runs the latest report's inputs, showing the plan's
// allowance (used in the last 24 h of the limit) and, after a 429, the
// Retry-After as a countdown.
function refreshCard(root, report) {
  const meta = report.refreshMeta || {};
  const limit = meta.limitPer24h;
  const used = meta.usedLast24h;
  const rule = limit == null ? `Refreshed ${meta.count ?? 0} times.`
    : limit === 0 ? 'Your plan does not include refreshes.'
      : `${Math.max(0, limit - (used || 0))} of ${limit} refreshes left in the last 24 hours (refreshed ${meta.count ?? 0} times in all).`;
  const status = h('div', { id: 'refresh-status', 'aria-live': 'polite' });
  // The button stays enabled at the limit: the API decides, and its 429
  // says when the next refresh is possible.
  const btn = h('button', { type: 'button', id: 'refresh-report' }, 'Refresh now');
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    fill(status, );
    try {
      const { jobId } = await post(REPORT, { refresh: true });
      await runJob(status, jobId);
      await render(root);
    } catch (err) {
      fill(status, errorBox(err));
      if (err.status === 429 && err.retryAfter) countdown(status, btn, err.retryAfter);
      else btn.disabled = false;
    }
  });
  return h('section', { class: 'card', id: 'refresh', 'aria-labelledby': 'refresh-h' }, h('h2', { id: 'refresh-h' }, 'Refresh'),
    h('p', { id: 'refresh-rule' }, `Re-run the same website, competitors and prompts. ${rule}`), btn, status);
}

function fmtWait(s) {
  const hrs = Math.floor(s / 3600);
  const min = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return [hrs && `${hrs} h`, (hrs || min) && `${min} min`, `${sec} s`].filter(Boolean).join(' ');
}

// countdown shows the time until the next refresh and enables btn then;
// the visible text changes each second, the announced one only at start.
function countdown(box, btn, seconds) {
  const end = Date.now() + seconds * 1000;
  const line = h('p', { id: 'retry-countdown', class: 'muted' });
  box.append(line);
  const tick = () => {
    const left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
    line.textContent = left > 0 ? `Next refresh possible in ${fmtWait(left)}.` : 'You can refresh again.';
    if (left > 0 && line.isConnected) setTimeout(tick, 1000);
    else btn.disabled = false;
  };
  tick();
}

// listEditor is an editable list of inputs (competitors or prompts) with
// add and remove buttons; max caps it (the plan's prompt limit).
export function listEditor(name, label, values, max) {
  const list = h('ol', { class: 'list-editor', id: `${name}-list` });
  const count = h('p', { class: 'muted', id: `${name}-count`, 'aria-live': 'polite' });
  const add = h('button', { type: 'button', class: 'secondary', id: `${name}-add` }, `Add ${label.toLowerCase()}`);
  const sync = () => {
    const n = list.children.length;
    count.textContent = max ? `${n} of at most ${max} ${name} (your plan’s limit).` : `${n} ${name}.`;
    add.disabled = Boolean(max && n >= max);
  };
  const row = (v) => {
    const i = list.children.length;
    const input = h('input', { id: `${name}-${i}`, name, value: v, 'aria-label': `${label} ${i + 1}`, maxlength: 500 });
    const li = h('li', {}, input, h('button', { type: 'button', class: 'secondary', 'aria-label': `Remove ${label.toLowerCase()} ${i + 1}`, onclick: () => { li.remove(); sync(); add.focus(); } }, 'Remove'));
    list.append(li);
    sync();
    return input;
  };
  add.addEventListener('click', () => row('').focus());
  (values || []).forEach(row);
  sync();
  const box = h('fieldset', { class: 'stack' }, h('legend', {}, `${label}s`), count, list, add);
  box.values = () => [...list.querySelectorAll('input')].map((x) => x.value.trim()).filter(Boolean);
  return box;
}

// runCard: website → prefill → edit → run → progress → the report.
function runCard(root, report) {
  const input = report.input || {};
  const site = h('input', { id: 'vis-website', type: 'url', required: true, placeholder: 'https://example.com', value: input.websiteurl || '', autocomplete: 'url' });
  const err = h('div', { id: 'prefill-error' });
  const editor = h('div', { id: 'report-editor' });
  const form = h('form', { class: 'stack', id: 'prefill-form', onsubmit: async (e) => {
    e.preventDefault();
    fill(err, );
    const btn = form.querySelector('button[type=submit]');
    btn.disabled = true;
    try {
      const r = await post(`${REPORT}/prefill`, { websiteurl: site.value.trim() });
      showEditor(root, editor, site.value.trim(), r);
    } catch (x) {
      fill(err, errorBox(x));
    } finally {
      btn.disabled = false;
    }
  } },
  field('Your website (https)', site, 'Herald reads it and suggests competitors and the questions your buyers ask.'),
  err, h('button', { type: 'submit' }, 'Suggest competitors and prompts'));
  const body = [h('p', {}, 'Ask the answer engines what your buyers ask, and see who they name.'), form, editor];
  return report.isEmpty
    ? h('section', { class: 'card', id: 'new-report', 'aria-labelledby': 'new-report-h' }, h('h2', { id: 'new-report-h' }, 'Run a report'), body)
    : h('details', { class: 'card', id: 'new-report' }, h('summary', {}, h('h2', { class: 'inline' }, 'Run a new report')), body);
}

function showEditor(root, editor, websiteurl, r) {
  const pre = r.prefill || {};
  const comps = listEditor('competitors', 'Competitor', pre.competitors || [], 0);
  const prompts = listEditor('prompts', 'Prompt', pre.prompts || [], r.promptLimit || 0);
  const oneOff = h('input', { type: 'checkbox', id: 'vis-oneoff' });
  const status = h('div', { id: 'report-progress', 'aria-live': 'polite' });
  const run = h('button', { type: 'submit', id: 'run-report' }, 'Run the report');
  const form = h('form', { class: 'stack', id: 'run-form', onsubmit: async (e) => {
    e.preventDefault();
    run.disabled = true;
    fill(status, );
    try {
      const body = { websiteurl, competitors: comps.values(), prompts: prompts.values() };
      if (oneOff.checked) body.oneOff = true;
      const { jobId } = await post(REPORT, body);
      const job = await runJob(status, jobId);
      if (oneOff.checked) {
        const id = job.result && job.result.reportId;
        fill(status, h('p', { class: 'ok' }, 'One-off report ready.'));
        await loadOneOffs(document.getElementById('oneoffs'));
        if (id) await showOneOff(document.getElementById('oneoff-view') || status, id);
        run.disabled = false;
      } else {
        await render(root);
        const ev = document.getElementById('evidence');
        if (ev) ev.scrollIntoView();
      }
    } catch (x) {
      fill(status, errorBox(x));
      run.disabled = false;
    }
  } },
  h('p', { class: 'muted' }, r.message || ''),
  comps, prompts,
  h('div', { class: 'check' }, oneOff, h('label', { for: 'vis-oneoff' }, 'One-off (any site; not added to your history)')),
  run, status);
  fill(editor, form);
  const first = form.querySelector('input');
  if (first) first.focus();
}

async function loadOneOffs(box) {
  if (!box) return;
  const view = h('div', { id: 'oneoff-view', 'aria-live': 'polite' });
  try {
    const { reports = [] } = await get(`${REPORT}/one-off`);
    fill(box, h('h2', { id: 'oneoffs-h' }, 'One-off reports'),
      table('One-off reports, newest first', [
        ['Website', (r) => r.websiteurl],
        ['When', (r) => fmtTime(r.createdAt)],
        ['State', (r) => h('span', { class: `badge status-${r.state}` }, r.state)],
        ['AI visibility', (r) => rep.score(r.scores && r.scores.aiVisibility)],
        ['', (r) => h('button', { type: 'button', class: 'secondary', 'aria-label': `View the one-off report of ${r.websiteurl}`, onclick: () => showOneOff(view, r.id) }, 'View')],
      ], reports, 'No one-off report. Tick “One-off” when running a report to check any site without adding it to your history.'),
      view);
  } catch (err) {
    fill(box, h('h2', { id: 'oneoffs-h' }, 'One-off reports'), errorBox(err));
  }
}

async function showOneOff(view, id) {
  fill(view, h('p', { class: 'muted' }, 'Loading…'));
  try {
    const r = await get(`${REPORT}/one-off/${encodeURIComponent(id)}?evidence=true`);
    const heading = h('h3', { tabindex: '-1' }, `One-off: ${(r.input && r.input.websiteurl) || id}`);
    fill(view, heading, rep.header(r), rep.summary(r), rep.enginesCard(r), rep.brandsCard(r), rep.discoveredCard(r), rep.evidenceCard(r));
    heading.focus();
  } catch (err) {
    fill(view, errorBox(err));
  }
}
