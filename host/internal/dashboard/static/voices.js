// Brand voices: GET /v1/ai/brand-voice/, GET and PUT
// /v1/ai/brand-voice/{id}, POST /v1/ai/generate/brand-voice/text,
// .../website and .../file (queued, followed through the job route).
import { get, post, put, pollJob } from './api.js';
import { h, fill, errorBox, fmtNum, fmtTime, table, progress, jobText, field } from './dom.js';

const INTERVALS = ['never', 'daily', 'weekly', 'monthly'];

export const title = 'Brand voices';

export async function render(root, selected) {
  const { data = [] } = await get('/v1/ai/brand-voice/');
  const view = h('section', { class: 'card', id: 'voice-view', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Choose a voice to read its profile.'));
  fill(root, 
    h('h1', {}, title),
    h('section', { class: 'card', 'aria-labelledby': 'voices-h' }, h('h2', { id: 'voices-h' }, `Voices (${data.length})`),
      table('Brand voices, newest first', [
        ['Name', (v) => h('button', { type: 'button', class: 'link', onclick: () => show(view, v.id) }, v.name)],
        ['Source', (v) => (v.url ? [v.type, ' · ', h('span', { class: 'muted' }, v.url)] : v.type)],
        ['Length', (v) => `${fmtNum(v.contentLength)} chars`],
        ['Updated', (v) => fmtTime(v.updatedAt)],
      ], data, 'No brand voice yet: create one below.')),
    view,
    h('section', { class: 'card', 'aria-labelledby': 'newvoice-h' }, h('h2', { id: 'newvoice-h' }, 'New brand voice'), createForms(root)));
  if (selected) show(view, selected);
}

async function show(view, id) {
  fill(view, h('p', { class: 'muted' }, 'Loading…'));
  try {
    const { data: v } = await get(`/v1/ai/brand-voice/${encodeURIComponent(id)}`);
    fill(view, 
      h('h2', { tabindex: '-1' }, v.name),
      h('p', { class: 'muted' }, `${v.type}${v.url ? ' · ' + v.url : ''} · updated ${fmtTime(v.updatedAt)}`),
      v.type === 'website' ? fetchControls(view, v) : null,
      h('pre', { class: 'voice-content' }, v.content));
    view.querySelector('h2').focus();
  } catch (err) {
    fill(view, errorBox(err));
  }
}

// fetchControls show the last fetch of a website voice and change how
// often it is fetched again.
function fetchControls(view, v) {
  const lf = v.lastFetch;
  const last = !lf ? h('p', { class: 'muted', id: 'voice-last-fetch' }, 'Not fetched yet.')
    : lf.ok ? h('p', { class: 'ok', id: 'voice-last-fetch' }, `Last fetch ${fmtTime(lf.at)}: worked.`)
      : h('p', { class: 'error', id: 'voice-last-fetch' }, `Last fetch ${fmtTime(lf.at)} failed: ${lf.error || 'unknown reason'}`);
  const sel = h('select', { id: 'voice-interval-edit' }, INTERVALS.map((i) => h('option', { value: i, selected: i === (v.fetchInterval || 'never') }, i)));
  const status = h('span', { role: 'status', class: 'muted' });
  sel.addEventListener('change', async () => {
    try {
      await put(`/v1/ai/brand-voice/${encodeURIComponent(v.id)}`, { fetchInterval: sel.value });
      status.textContent = ` Saved: fetched ${sel.value === 'never' ? 'never again' : sel.value}.`;
    } catch (err) { status.textContent = ` Not saved: ${err.message}`; }
  });
  return h('div', { class: 'stack' }, last, h('div', { class: 'field inline-field' }, h('label', { for: 'voice-interval-edit' }, 'Fetch the site again'), sel, status));
}

function createForms(root) {
  const mode = h('select', { id: 'voice-mode' }, h('option', { value: 'text' }, 'From text'), h('option', { value: 'website' }, 'From a website'), h('option', { value: 'file' }, 'From a file URL'));
  const name = h('input', { id: 'voice-name', maxlength: 200 });
  const content = h('textarea', { id: 'voice-content', rows: 6 });
  const url = h('input', { id: 'voice-url', type: 'url', placeholder: 'https://example.com' });
  const textRow = h('div', { class: 'field' }, h('label', { for: 'voice-content' }, 'Text in your brand’s voice'), content);
  const urlRow = h('div', { class: 'field' }, h('label', { for: 'voice-url' }, 'Website (https)'), url);
  const interval = h('select', { id: 'voice-interval' }, INTERVALS.map((i) => h('option', { value: i }, i)));
  const intervalRow = field('Fetch the site again', interval, 'Keeps the voice in step with the site.');
  const file = h('input', { id: 'voice-file', type: 'url', placeholder: 'https://example.com/voice.md' });
  const fileRow = field('File URL (.md, .txt, .html or .json)', file);
  const sync = () => {
    textRow.hidden = mode.value !== 'text';
    urlRow.hidden = intervalRow.hidden = mode.value !== 'website';
    fileRow.hidden = mode.value !== 'file';
  };
  mode.addEventListener('change', sync);
  sync();
  const err = h('div');
  const form = h('form', { class: 'stack', id: 'voice-form', onsubmit: async (e) => {
    e.preventDefault();
    fill(err, );
    const submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    try {
      let id;
      if (mode.value === 'text') {
        const r = await post('/v1/ai/generate/brand-voice/text', { content: content.value, name: name.value });
        id = r.data && r.data.id;
      } else {
        const r = mode.value === 'website'
          ? await post('/v1/ai/generate/brand-voice/website', { websiteurl: url.value.trim(), name: name.value, fetchInterval: interval.value, useWorker: true })
          : await post('/v1/ai/generate/brand-voice/file', { file: file.value.trim(), name: name.value, useWorker: true });
        id = r.data && r.data.id;
        if (r.jobId) {
          const bar = progress('Brand voice progress');
          fill(err, bar);
          const job = await pollJob(r.jobId, (j) => bar.set(j.progress, jobText(j)));
          id = job.result && (job.result.id || (job.result.data && job.result.data.id));
        }
      }
      await render(root, id);
    } catch (x) {
      fill(err, errorBox(x));
      submit.disabled = false;
    }
  } },
  h('div', { class: 'field' }, h('label', { for: 'voice-mode' }, 'Source'), mode),
  h('div', { class: 'field' }, h('label', { for: 'voice-name' }, 'Name (optional)'), name),
  textRow, urlRow, intervalRow, fileRow, err,
  h('button', { type: 'submit' }, 'Create voice'));
  return form;
}
