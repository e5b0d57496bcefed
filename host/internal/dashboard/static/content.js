// Content: an editor that scores as you type (assessments grouped and
// coloured like traffic lights), improvement (simple, or with validation)
// with before/after scores and a diff, a blog post with images as a queued
// job, and the result sent to the post form.
// Routes: POST /v1/ai/generate/calculate-seo-score,
// .../improve-content-simple, .../improve-content-with-validation,
// .../process-blog-post-with-images, GET /v1/ai/generate/job/{id}; for a
// text opened from a tracker's gap, POST /v1/visibility/trackers/{id}/drafts
// (with GET /v1/ai/brand-voice/ and GET /v1/destinations for its pickers).
import { get, post, pollJob } from './api.js';
import { h, fill, errorBox, field, debounce, progress, jobText, rating, stat, table, webhookOptions } from './dom.js';
import { diffView } from './diff.js';

export const title = 'Content';
const GEN = '/v1/ai/generate';
// The draft is kept in this tab while moving between pages.
const DRAFT = 'herald.contentDraft';
// POST_DRAFT hands a text to the post form (schedules.js reads it once).
export const POST_DRAFT = 'herald.postDraft';
// GAP_TARGETS is the tracker and prompts of a text opened from a gap
// (impact.js writes it; the post form sends them with the post).
const GAP_TARGETS = 'herald.gapTargets';

const LIGHT = { good: 'Good', ok: 'Could be better', bad: 'Problem' };

function loadDraft() {
  try { return JSON.parse(sessionStorage.getItem(DRAFT)) || {}; } catch { return {}; }
}

export async function render(root) {
  const d = loadDraft();
  const titleIn = h('input', { id: 'content-title', maxlength: 500, value: d.title || '' });
  const key = h('input', { id: 'content-keyphrase', maxlength: 200, value: d.keyphrase || '' });
  // The API reads the format from the text itself; the choice is kept
  // with the draft and sent with it to the post form.
  const format = h('select', { id: 'content-format' },
    [['plain', 'Plain text'], ['markdown', 'Markdown'], ['html', 'HTML']].map(([v, l]) => h('option', { value: v, selected: v === (d.format || 'markdown') }, l)));
  const text = h('textarea', { id: 'content-text', rows: 14, spellcheck: 'true' }, d.content || '');
  const scores = h('section', { class: 'card', id: 'seo-score', 'aria-labelledby': 'score-h' }, h('h2', { id: 'score-h' }, 'Score'),
    h('p', { class: 'muted' }, 'Write or paste a text: it is scored as you type.'));
  const ed = { titleIn, key, format, text };
  const values = () => ({ title: titleIn.value.trim(), keyphrase: key.value.trim(), format: format.value, content: text.value });
  let seq = 0;
  const rescore = debounce(async () => {
    const v = values();
    sessionStorage.setItem(DRAFT, JSON.stringify(v));
    if (!v.content.trim()) return;
    const mine = ++seq;
    scores.setAttribute('aria-busy', 'true');
    try {
      const r = await scoreOf(v);
      if (mine === seq) fill(scores, h('h2', { id: 'score-h' }, 'Score'), scoreView(r));
    } catch (err) {
      if (mine === seq) fill(scores, h('h2', { id: 'score-h' }, 'Score'), errorBox(err));
    } finally {
      if (mine === seq) scores.setAttribute('aria-busy', 'false');
    }
  }, 400);
  for (const el of [titleIn, key, text]) el.addEventListener('input', rescore);
  format.addEventListener('change', rescore);

  fill(root, 
    h('h1', {}, title),
    h('div', { class: 'two-col' },
      h('section', { class: 'card', 'aria-labelledby': 'editor-h' }, h('h2', { id: 'editor-h' }, 'Editor'),
        h('form', { class: 'stack', id: 'content-form', onsubmit: (e) => e.preventDefault() },
          field('Title', titleIn),
          field('Focus keyphrase', key, 'The words you want this text found for.'),
          field('Format', format, 'Scoring reads the format from the text itself.'),
          field('Text', text),
          h('div', { class: 'row' }, h('button', { type: 'button', class: 'secondary', id: 'content-to-post', onclick: () => sendToPost(values().title, values().content) }, 'Send to the post form')))),
      scores),
    gapDraftCard(ed, rescore),
    improveCard(ed, values, rescore),
    blogCard(values));
  if (text.value.trim()) rescore();
}

function scoreOf(v) {
  return post(`${GEN}/calculate-seo-score`, { content: v.content, title: v.title, keywords: v.keyphrase ? [v.keyphrase] : [] }).then((r) => r.data || {});
}

function light(score, label, id) {
  const r = rating(score);
  const card = stat(label, score == null ? '—' : String(score), id);
  card.classList.add(`rating-${r}`);
  card.append(h('span', { class: 'verdict' }, h('span', { class: `dot dot-${r}`, 'aria-hidden': 'true' }), LIGHT[r] || ''));
  return card;
}

// scoreView is the overall, SEO and readability scores and the
// assessments, problems first, grouped by category.
export function scoreView(r, prefix = '') {
  const order = { bad: 0, ok: 1, good: 2 };
  const group = (cat, label) => {
    const items = (r.assessments || []).filter((a) => a.category === cat).sort((a, b) => (order[a.rating] ?? 3) - (order[b.rating] ?? 3));
    return h('section', { class: 'assessments', 'aria-labelledby': `${prefix}as-${cat}-h` }, h('h3', { id: `${prefix}as-${cat}-h` }, `${label} (${items.length})`),
      items.length ? h('ul', { id: `${prefix}assessments-${cat}` }, items.map((a) => h('li', { class: `assessment rating-${a.rating}`, 'data-id': a.id },
        h('span', { class: `dot dot-${a.rating}`, 'aria-hidden': 'true' }), h('span', { class: 'sr-only' }, `${LIGHT[a.rating] || a.rating}: `), a.text))) : h('p', { class: 'muted' }, 'None.'));
  };
  const stats = r.stats || {};
  return h('div', {},
    h('div', { class: 'stats', 'aria-live': 'polite' },
      light(r.score, 'Overall', `${prefix}score-overall`),
      light(r.seo && r.seo.score, 'SEO', `${prefix}score-seo`),
      light(r.readability && r.readability.score, 'Readability', `${prefix}score-readability`)),
    h('p', { class: 'muted' }, `${stats.words ?? 0} words · ${stats.sentences ?? 0} sentences · ${stats.headings ?? 0} headings · ${stats.links ?? 0} links`,
      r.seo && r.seo.keyphrase ? ` · keyphrase “${r.seo.keyphrase}” ${r.seo.keyphraseCount ?? 0}×` : ''),
    group('seo', 'SEO'), group('readability', 'Readability'));
}

function sendToPost(title, content, extra = {}) {
  sessionStorage.setItem(POST_DRAFT, JSON.stringify({ title, text: content, ...extra }));
  location.hash = '#/schedules';
}

function gapTargets() {
  try { return JSON.parse(sessionStorage.getItem(GAP_TARGETS)); } catch { return null; }
}

// gapDraftCard, for a text opened from a tracker's gap, runs the draft
// route: a post written in the chosen voice, scored and improved until it
// reaches the asked score (at most 3 rounds, one AI credit each). Nothing
// is scheduled: the proposal goes to the post form, where the user checks
// it and schedules it.
function gapDraftCard(ed, rescore) {
  const gap = gapTargets();
  if (!gap || !gap.trackerId) return null;
  const voice = h('select', { id: 'gap-voice', required: true }, h('option', { value: '' }, 'Loading voices…'));
  const dest = h('select', { id: 'gap-export', required: true }, h('option', { value: '' }, 'Loading destinations…'));
  const minScore = h('input', { id: 'gap-min-score', type: 'number', min: 0, max: 100, value: 70 });
  const rounds = h('input', { id: 'gap-rounds', type: 'number', min: 1, max: 3, value: 3 });
  const when = h('input', { id: 'gap-when', type: 'datetime-local' });
  const hook = h('select', { id: 'gap-webhook' }, h('option', { value: '' }, 'Loading webhooks…'));
  const hookRow = field('Webhook', hook);
  hookRow.hidden = true;
  dest.addEventListener('change', () => { hookRow.hidden = dest.value !== 'webhook'; });
  const out = h('div', { id: 'gap-draft-result', 'aria-live': 'polite' });
  Promise.all([get('/v1/ai/brand-voice/'), get('/v1/destinations'), get('/v1/webhooks').catch(() => ({ webhooks: [] }))]).then(([v, d, w]) => {
    const voices = v.data || [];
    fill(voice, voices.length ? voices.map((x) => h('option', { value: x.id }, x.name || x.id)) : h('option', { value: '' }, 'No brand voice yet: create one on the Voices page'));
    fill(dest, (d.destinations || []).map((x) => h('option', { value: x.name }, `${x.displayName || x.name}${x.name === 'webhook' || x.connected ? '' : ' (not connected)'}`)));
    fill(hook, webhookOptions(w.webhooks || []));
    hookRow.hidden = dest.value !== 'webhook';
  }).catch((err) => fill(out, errorBox(err)));
  const btn = h('button', { type: 'button', id: 'gap-draft-run', onclick: async () => {
    const body = { voiceId: voice.value, keyphrase: ed.key.value.trim(), minScore: Number(minScore.value), maxRounds: Number(rounds.value), exportTo: dest.value };
    if (when.value) body.publishAt = new Date(when.value).toISOString();
    if (dest.value === 'webhook') {
      // Refused here, before the request: a draft costs AI credits.
      if (!hook.value) {
        fill(out, h('p', { class: 'error', role: 'alert' }, 'Choose the webhook the post goes to.'));
        hook.focus();
        return;
      }
      body.webhookId = hook.value;
    }
    btn.disabled = true;
    fill(out, h('p', { class: 'muted' }, 'Writing, scoring and improving the draft…'));
    try {
      const { draft } = await post(`/v1/visibility/trackers/${encodeURIComponent(gap.trackerId)}/drafts`, body);
      ed.titleIn.value = draft.title;
      ed.text.value = draft.content;
      ed.format.value = 'markdown';
      rescore();
      const pr = draft.proposal || {};
      fill(out,
        h('p', { class: draft.met ? 'ok' : 'error' }, draft.met
          ? `The draft reached ${draft.minScore} in ${draft.rounds.length} round(s) (${draft.credits} AI credit(s)); the editor holds it.`
          : `The draft did not reach ${draft.minScore} in ${draft.rounds.length} round(s) (${draft.credits} AI credit(s)); the editor holds the last version.`),
        draft.stopped ? h('p', { class: 'muted', role: 'status' }, `Stopped early: ${draft.stopped}.`) : null,
        table('Score of each round', [
          ['Round', (r) => String(r.round)],
          ['Overall', (r) => String(r.score)],
          ['SEO', (r) => String(r.seoScore)],
          ['Readability', (r) => String(r.readabilityScore)],
          ['Checks not yet good', (r) => String((r.failing || []).length)],
        ], draft.rounds || [], 'No round.'),
        h('p', { class: 'muted' }, 'Nothing is scheduled yet. Send it to the post form, check it and schedule it there.'),
        h('div', { class: 'row' }, h('button', { type: 'button', id: 'gap-to-post', onclick: () => sendToPost(ed.titleIn.value.trim(), ed.text.value,
          { exportTo: pr.exportTo, webhookId: pr.webhookId, whenToExport: pr.whenToExport, status: pr.status }) }, 'Send to the post form')));
    } catch (err) {
      fill(out, errorBox(err));
    } finally {
      btn.disabled = false;
    }
  } }, 'Write the draft');
  return h('section', { class: 'card', id: 'gap-draft', 'aria-labelledby': 'gap-draft-h' }, h('h2', { id: 'gap-draft-h' }, 'Write for this gap'),
    h('p', { class: 'muted' }, `Opened from a tracker's gap: the post targets ${(gap.targetPrompts || []).length} prompt(s). A draft is written in the voice you choose, scored for the focus keyphrase and improved until it reaches the score (at most 3 rounds, one AI credit each).`),
    field('Brand voice', voice), field('Destination', dest), hookRow, field('Minimum score', minScore), field('Rounds at most', rounds),
    field('Publish at (your time zone)', when, 'Empty: a draft without a time.'),
    h('div', { class: 'row' }, btn), out);
}

function beforeAfter(before, after) {
  const cell = (label, b, a, id) => h('div', { class: 'stat', id },
    h('span', { class: 'stat-label' }, label),
    h('span', { class: 'stat-value' }, `${b ?? '—'} → ${a ?? '—'}`),
    h('span', { class: `verdict rating-${rating(a)}` }, a == null || b == null ? '' : a > b ? `up ${a - b}` : a < b ? `down ${b - a}` : 'unchanged'));
  return h('div', { class: 'stats', id: 'improve-scores' },
    cell('Overall', before.score, after.score, 'improve-overall'),
    cell('SEO', before.seo && before.seo.score, after.seo && after.seo.score),
    cell('Readability', before.readability && before.readability.score, after.readability && after.readability.score));
}

function improveCard(ed, values, rescore) {
  const instr = h('textarea', { id: 'improve-prompt', rows: 2 }, 'Make it clearer and easier to read; keep the keyphrase.');
  const out = h('div', { id: 'improve-result', 'aria-live': 'polite' });
  const simple = h('button', { type: 'button', id: 'improve-simple' }, 'Improve');
  const validated = h('button', { type: 'button', id: 'improve-validated', class: 'secondary' }, 'Improve with validation');
  const run = async (withValidation) => {
    const v = values();
    if (!v.content.trim()) {
      fill(out, h('p', { class: 'error', role: 'alert' }, 'Write a text in the editor first.'));
      ed.text.focus();
      return;
    }
    simple.disabled = validated.disabled = true;
    fill(out, h('p', { class: 'muted' }, withValidation ? 'Improving and checking the result…' : 'Improving…'));
    try {
      let after, before, improved, checks = null;
      if (withValidation) {
        const { data } = await post(`${GEN}/improve-content-with-validation`, { content: v.content, title: v.title, keywords: v.keyphrase ? [v.keyphrase] : [], improvePrompt: instr.value });
        ({ before, after } = data);
        improved = data.content;
        checks = data.validation;
      } else {
        const { data } = await post(`${GEN}/improve-content-simple`, { content: v.content, improvePrompt: instr.value });
        improved = data.content;
        [before, after] = await Promise.all([scoreOf(v), scoreOf({ ...v, content: improved })]);
      }
      const accept = h('button', { type: 'button', id: 'improve-accept', onclick: () => {
        ed.text.value = improved;
        rescore();
        fill(out, h('p', { class: 'ok' }, 'The editor now holds the improved text.'));
        ed.text.focus();
      } }, 'Use this version');
      fill(out, 
        h('h3', {}, 'Before → after'), beforeAfter(before || {}, after || {}),
        checks ? h('div', { id: 'improve-validation' }, h('p', { class: checks.passed ? 'ok' : 'error' }, checks.passed ? 'Validation passed.' : 'Validation failed: review before using it.'),
          h('ul', {}, (checks.checks || []).map((c) => h('li', { class: c.passed ? 'rating-good' : 'rating-bad' }, `${c.passed ? '✓' : '✗'} ${c.id}${c.detail ? ': ' + c.detail : ''}`)))) : null,
        diffView(v.content, improved, 'improve-diff'),
        h('div', { class: 'row' }, accept, h('button', { type: 'button', class: 'secondary', onclick: () => sendToPost(v.title, improved) }, 'Send the improved text to the post form')));
    } catch (err) {
      fill(out, errorBox(err));
    } finally {
      simple.disabled = validated.disabled = false;
    }
  };
  simple.addEventListener('click', () => run(false));
  validated.addEventListener('click', () => run(true));
  return h('section', { class: 'card', id: 'improve', 'aria-labelledby': 'improve-h' }, h('h2', { id: 'improve-h' }, 'Improve'),
    field('What to change', instr), h('div', { class: 'row' }, simple, validated), out);
}

// blogCard queues a blog post with images and follows the job.
function blogCard(values) {
  const out = h('div', { id: 'blog-result', 'aria-live': 'polite' });
  const images = h('input', { id: 'blog-images', type: 'checkbox', checked: true });
  const btn = h('button', { type: 'button', id: 'blog-run', onclick: async () => {
    const v = values();
    if (!v.title || !v.content.trim()) {
      fill(out, h('p', { class: 'error', role: 'alert' }, 'A blog post needs a title and a text.'));
      return;
    }
    btn.disabled = true;
    const bar = progress('Blog post progress');
    fill(out, bar);
    try {
      const { jobId } = await post(`${GEN}/process-blog-post-with-images`, { title: v.title, content: v.content, keywords: v.keyphrase ? [v.keyphrase] : [], generateImages: images.checked });
      const job = await pollJob(jobId, (j) => {
        const r = j.result || {};
        bar.set(j.progress, j.state === 'active' && r.imagesTotal ? `Image ${r.imagesDone ?? 0} of ${r.imagesTotal} made… ${j.progress}%` : jobText(j));
      });
      fill(out, blogResult(job.result || {}));
    } catch (err) {
      fill(out, errorBox(err));
    } finally {
      btn.disabled = false;
    }
  } }, 'Make a blog post with images');
  return h('section', { class: 'card', id: 'blog', 'aria-labelledby': 'blog-h' }, h('h2', { id: 'blog-h' }, 'Blog post with images'),
    h('p', { class: 'muted' }, 'Places generated images in the editor’s text (one AI credit per image), as a queued job.'),
    h('div', { class: 'check' }, images, h('label', { for: 'blog-images' }, 'Generate images')), btn, out);
}

function blogResult(r) {
  const imgs = r.images || [];
  return h('div', { class: 'stack' },
    h('p', { class: 'ok' }, `Blog post ready: ${imgs.length} image(s).`),
    imgs.length ? h('ul', { class: 'thumbs' }, imgs.map((im) => h('li', {}, h('img', { src: im.url, alt: im.alt || '' }), h('span', { class: 'muted small' }, im.position || '')))) : null,
    r.seo ? h('div', {}, h('h3', {}, 'Score of the post'), scoreView(r.seo, 'blog-')) : null,
    h('details', {}, h('summary', {}, 'The post’s text'), h('pre', { id: 'blog-content' }, r.content || '')),
    h('div', { class: 'row' }, h('button', { type: 'button', id: 'blog-to-post', onclick: () => {
      sessionStorage.setItem(POST_DRAFT, JSON.stringify({ title: r.title, text: r.content, imageUrl: imgs[0] && imgs[0].url, imageAlt: imgs[0] && imgs[0].alt }));
      location.hash = '#/schedules';
    } }, 'Send to the post form')));
}
