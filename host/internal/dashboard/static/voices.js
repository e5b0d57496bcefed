// Brand voices: GET /v1/ai/brand-voice/, GET /v1/ai/brand-voice/{id},
// POST /v1/ai/generate/brand-voice/text and .../website.
import { get, post } from './api.js';
import { h, errorBox, fmtNum, fmtTime, table } from './dom.js';

export const title = 'Brand voices';

export async function render(root, selected) {
  const { data = [] } = await get('/v1/ai/brand-voice/');
  const view = h('section', { class: 'card', id: 'voice-view', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Choose a voice to read its profile.'));
  root.replaceChildren(
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
  view.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  try {
    const { data: v } = await get(`/v1/ai/brand-voice/${encodeURIComponent(id)}`);
    view.replaceChildren(
      h('h2', { tabindex: '-1' }, v.name),
      h('p', { class: 'muted' }, `${v.type}${v.url ? ' · ' + v.url : ''} · updated ${fmtTime(v.updatedAt)}${v.fetchInterval && v.fetchInterval !== 'never' ? ' · refreshed ' + v.fetchInterval : ''}`),
      v.lastFetch && !v.lastFetch.ok ? h('p', { class: 'error' }, `Last refresh failed: ${v.lastFetch.error}`) : '',
      h('pre', { class: 'voice-content' }, v.content));
    view.querySelector('h2').focus();
  } catch (err) {
    view.replaceChildren(errorBox(err));
  }
}

function createForms(root) {
  const mode = h('select', { id: 'voice-mode' }, h('option', { value: 'text' }, 'From text'), h('option', { value: 'website' }, 'From a website'));
  const name = h('input', { id: 'voice-name', maxlength: 200 });
  const content = h('textarea', { id: 'voice-content', rows: 6 });
  const url = h('input', { id: 'voice-url', type: 'url', placeholder: 'https://example.com' });
  const textRow = h('div', { class: 'field' }, h('label', { for: 'voice-content' }, 'Text in your brand’s voice'), content);
  const urlRow = h('div', { class: 'field' }, h('label', { for: 'voice-url' }, 'Website (https)'), url);
  const sync = () => { textRow.hidden = mode.value !== 'text'; urlRow.hidden = mode.value !== 'website'; };
  mode.addEventListener('change', sync);
  sync();
  const err = h('div');
  const form = h('form', { class: 'stack', id: 'voice-form', onsubmit: async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    try {
      const r = mode.value === 'text'
        ? await post('/v1/ai/generate/brand-voice/text', { content: content.value, name: name.value })
        : await post('/v1/ai/generate/brand-voice/website', { websiteurl: url.value, name: name.value });
      await render(root, r.data && r.data.id);
    } catch (x) {
      err.replaceChildren(errorBox(x));
      submit.disabled = false;
    }
  } },
  h('div', { class: 'field' }, h('label', { for: 'voice-mode' }, 'Source'), mode),
  h('div', { class: 'field' }, h('label', { for: 'voice-name' }, 'Name (optional)'), name),
  textRow, urlRow, err,
  h('button', { type: 'submit' }, 'Create voice'));
  return form;
}
