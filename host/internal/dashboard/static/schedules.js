// Scheduled posts: GET /v1/scheduler, DELETE /v1/scheduler/{id},
// POST /v1/scheduler/create (exportTo a list when several destinations are
// chosen), POST /v1/scheduler/preview beside the editor, with
// GET /v1/destinations and GET /v1/webhooks for the destination picker.
import { get, post, del } from './api.js';
import { h, fill, errorBox, fmtTime, table, webhookOptions } from './dom.js';

export const title = 'Scheduled posts';
const state = { skip: 0 };

export async function render(root) {
  const [list, dests, hooks] = await Promise.all([
    get(`/v1/scheduler?skip=${state.skip}`),
    get('/v1/destinations'),
    get('/v1/webhooks').catch(() => ({ webhooks: [] })),
  ]);
  const notice = h('div', { id: 'schedule-notice', role: 'status' });
  fill(root, 
    h('h1', {}, title),
    notice,
    h('section', { class: 'card', 'aria-labelledby': 'list-h' }, h('h2', { id: 'list-h' }, `Posts (${list.total ?? 0})`),
      scheduleTable(root, list.schedulers || [], notice), pager(root, list.total || 0)),
    h('section', { class: 'card', 'aria-labelledby': 'create-h' }, h('h2', { id: 'create-h' }, 'Schedule a post'),
      createForm(root, dests.destinations || [], hooks.webhooks || [])));
}

function statusBadge(s) { return h('span', { class: `badge status-${s}` }, s); }

function scheduleTable(root, rows, notice) {
  return table('Scheduled posts, newest first', [
    ['Title', (s) => (s.contentToExport && (s.contentToExport.title || s.contentToExport.text)) || h('span', { class: 'muted' }, '(untitled)')],
    ['Destination', (s) => s.exportTo],
    ['When', (s) => (s.whenToExport ? fmtTime(s.whenToExport) : h('span', { class: 'muted' }, 'not set'))],
    ['Status', (s) => statusBadge(s.status)],
    ['Details', (s) => [
      s.lastError && h('span', { class: 'error-text' }, s.lastError),
      s.contentToExport && s.contentToExport.imageUrl && h('a', { href: s.contentToExport.imageUrl, rel: 'noopener noreferrer', target: '_blank' }, 'image'),
      s.externalUrl && h('a', { href: s.externalUrl, rel: 'noopener noreferrer', target: '_blank' }, 'published post'),
      s.attempts ? h('span', { class: 'muted' }, ` ${s.attempts} attempt(s)`) : null,
    ]],
    ['', (s) => (['pending', 'draft', 'failed'].includes(s.status)
      ? h('button', { type: 'button', class: 'secondary', 'data-cancel': s.id,
        'aria-label': `${s.status === 'pending' ? 'Cancel' : 'Remove'} ${(s.contentToExport && s.contentToExport.title) || 'post'}`,
        onclick: async (e) => {
          e.target.disabled = true;
          try {
            const r = await del(`/v1/scheduler/${encodeURIComponent(s.id)}`);
            await render(root);
            fill(document.getElementById('schedule-notice'), h('p', { class: 'ok' }, `Post ${r.status}.`));
          } catch (err) {
            e.target.disabled = false;
            fill(notice, errorBox(err));
          }
        } }, s.status === 'pending' ? 'Cancel' : 'Remove')
      : '')],
  ], rows, 'No posts yet.');
}

function pager(root, total) {
  if (total <= 20) return null;
  const go = (skip) => () => { state.skip = skip; render(root); };
  return h('p', { class: 'controls' },
    h('button', { type: 'button', class: 'secondary', disabled: state.skip === 0, onclick: go(Math.max(0, state.skip - 20)) }, 'Newer'),
    ` ${state.skip + 1}–${Math.min(total, state.skip + 20)} of ${total} `,
    h('button', { type: 'button', class: 'secondary', disabled: state.skip + 20 >= total, onclick: go(state.skip + 20) }, 'Older'));
}

// readImage returns the chosen file as a data: URL, which the API takes
// as imageBase64 and checks by its bytes.
function readImage(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result);
    r.onerror = () => reject(new Error(`could not read ${file.name}`));
    r.readAsDataURL(file);
  });
}

function createForm(root, dests, hooks) {
  const dest = h('select', { id: 'exportTo', name: 'exportTo', required: true, multiple: true, size: Math.min(6, Math.max(2, dests.length)) },
    dests.map((d) => h('option', { value: d.name }, `${d.displayName || d.name}${d.name === 'webhook' || d.connected ? '' : ' (not connected)'}`)));
  const hook = h('select', { id: 'webhookId', name: 'webhookId' }, webhookOptions(hooks));
  const hookRow = h('div', { class: 'field' }, h('label', { for: 'webhookId' }, 'Webhook'), hook);
  const chosen = () => [...dest.selectedOptions].map((o) => o.value);
  const syncHook = () => { hookRow.hidden = !chosen().includes('webhook'); };
  dest.addEventListener('change', syncHook);
  const titleIn = h('input', { id: 'title', name: 'title', required: true, maxlength: 500 });
  const text = h('textarea', { id: 'text', name: 'text', rows: 5 });
  const when = h('input', { id: 'when', name: 'when', type: 'datetime-local' });
  const draft = h('input', { id: 'draft', name: 'draft', type: 'checkbox' });
  const image = h('input', { id: 'image', name: 'image', type: 'file', accept: 'image/png,image/jpeg,image/gif,image/webp' });
  const alt = h('input', { id: 'imageAlt', name: 'imageAlt', maxlength: 1000 });
  const preview = h('img', { class: 'preview', alt: '', hidden: true });
  image.addEventListener('change', () => {
    const f = image.files[0];
    if (preview.src) URL.revokeObjectURL(preview.src);
    preview.hidden = !f;
    if (f) preview.src = URL.createObjectURL(f);
  });
  // A text sent from the Content page fills the form once.
  let handoff = null;
  try { handoff = JSON.parse(sessionStorage.getItem('herald.postDraft')); } catch { handoff = null; }
  sessionStorage.removeItem('herald.postDraft');
  const fromContent = h('p', { class: 'ok', id: 'post-draft-note', hidden: !handoff }, 'Filled from the Content page: check it, choose where and when, then schedule.');
  if (handoff) {
    titleIn.value = handoff.title || '';
    text.value = handoff.text || '';
  }
  // A text written for a tracker's gap carries the gap's prompts as the
  // post's targets, so its impact is measured once it is published.
  let gap = null;
  try { gap = JSON.parse(sessionStorage.getItem('herald.gapTargets')); } catch { gap = null; }
  const targeted = gap && gap.trackerId && (gap.targetPrompts || []).length ? gap : null;
  const measure = h('input', { id: 'measure-impact', name: 'measureImpact', type: 'checkbox', checked: !!targeted });
  const gapRow = h('div', { class: 'check', id: 'post-targets', hidden: !targeted }, measure,
    h('label', { for: 'measure-impact' }, targeted ? `Written for a tracker's gap: measure its impact on ${targeted.targetPrompts.length} target prompt(s)` : ''));
  if (handoff && handoff.exportTo) {
    for (const o of dest.options) o.selected = o.value === handoff.exportTo;
    if (handoff.webhookId) hook.value = handoff.webhookId;
  }
  // A proposal without a time is a draft.
  if (handoff && handoff.status === 'draft') draft.checked = true;
  if (handoff && handoff.whenToExport) {
    const d = new Date(handoff.whenToExport);
    if (!Number.isNaN(d.getTime())) when.value = new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  }
  const draftImage = handoff && /^https?:\/\//.test(handoff.imageUrl || '') ? handoff.imageUrl : '';
  if (draftImage) {
    preview.src = draftImage;
    preview.hidden = false;
    alt.value = handoff.imageAlt || '';
  }
  const err = h('div', { id: 'create-error' });
  const form = h('form', { id: 'create-form', class: 'stack', onsubmit: async (e) => {
    e.preventDefault();
    fill(err, );
    const picked = chosen();
    // The text as both text and content, as the preview sends it: each
    // destination reads its own (LinkedIn text; WordPress, Webflow and
    // Notion content).
    const body = { exportTo: picked.length > 1 ? picked : picked[0], title: titleIn.value, text: text.value, content: text.value };
    if (picked.includes('webhook')) {
      if (!hook.value) {
        fill(err, h('p', { class: 'error', role: 'alert' }, 'Choose the webhook the post goes to.'));
        hook.focus();
        return;
      }
      body.webhookId = hook.value;
    }
    if (draft.checked) body.status = 'draft';
    if (when.value) body.whenToExport = new Date(when.value).toISOString();
    if (targeted && measure.checked) {
      body.trackerId = targeted.trackerId;
      body.targetPrompts = targeted.targetPrompts;
    }
    const f = image.files[0];
    const submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    try {
      if (f) {
        body.imageBase64 = await readImage(f);
        body.imageFileName = f.name;
        if (alt.value) body.imageAlt = alt.value;
      } else if (draftImage) {
        body.imageUrl = draftImage;
        if (alt.value) body.imageAlt = alt.value;
      }
      const r = await post('/v1/scheduler/create', body);
      if (body.trackerId) sessionStorage.removeItem('herald.gapTargets');
      state.skip = 0;
      await render(root);
      fill(document.getElementById('schedule-notice'), h('p', { class: 'ok' }, `${r.message}: “${body.title}”.`));
    } catch (x) {
      fill(err, errorBox(x));
      submit.disabled = false;
    }
  } },
  fromContent,
  h('div', { class: 'field' }, h('label', { for: 'exportTo' }, 'Destination'), dest,
    h('p', { class: 'help' }, 'Not connected yet? ', h('a', { href: '#/destinations' }, 'Connect a destination or save a webhook'), '.')),
  hookRow,
  h('div', { class: 'field' }, h('label', { for: 'title' }, 'Title'), titleIn),
  h('div', { class: 'field' }, h('label', { for: 'text' }, 'Text'), text),
  h('div', { class: 'field' }, h('label', { for: 'when' }, 'Publish at (your time zone)'), when),
  h('div', { class: 'check' }, draft, h('label', { for: 'draft' }, 'Save as a draft (no time needed)')),
  h('div', { class: 'field' }, h('label', { for: 'image' }, 'Image (PNG, JPEG, GIF or WebP)'), image, preview),
  h('div', { class: 'field' }, h('label', { for: 'imageAlt' }, 'Image alt text'), alt),
  gapRow,
  err,
  h('p', { class: 'controls' }, h('button', { type: 'submit' }, 'Schedule'), ' ',
    h('button', { type: 'button', class: 'secondary', id: 'preview-button', onclick: async () => {
      const destinations = chosen().map((name) => (name === 'webhook' ? { exportTo: name, webhookId: hook.value } : { exportTo: name }));
      try {
        const r = await post('/v1/scheduler/preview', { destinations, title: titleIn.value, text: text.value, content: text.value,
          imageUrl: draftImage || undefined, whenToExport: when.value ? new Date(when.value).toISOString() : undefined });
        fill(previewPane, h('h3', {}, r.ok ? 'Every destination would accept it' : 'Some destinations would refuse it'),
          (r.destinations || []).map((d) => h('div', { class: 'preview-destination' }, h('h4', {}, d.exportTo),
            h('pre', { class: 'preview-text' }, d.rendered || ''),
            (d.problems || []).length ? h('ul', { class: 'error-text' }, d.problems.map((p) => h('li', {}, `${p.key}: ${p.message}`))) : h('p', { class: 'ok' }, 'Accepted.'))));
      } catch (x) { fill(previewPane, errorBox(x)); }
    } }, 'Preview')));
  const previewPane = h('aside', { id: 'preview-pane', class: 'preview-pane', 'aria-live': 'polite' });
  syncHook();
  return h('div', { class: 'editor-with-preview' }, form, previewPane);
}
