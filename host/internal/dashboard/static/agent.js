// The agent: a chat whose replies stream in (Server-Sent Events), the
// tools it uses shown as they run, proposals (a post to schedule…) as
// cards the user confirms or discards, thumbs on replies, and the list of
// conversations with paging.
// Routes: POST /v1/ai/generate/chat (Accept: text/event-stream; confirm),
// GET /v1/ai/chat/sessions, GET /v1/ai/chat/session/{id}, DELETE
// /v1/ai/chat/session/{id}, POST /v1/ai/chat/feedback.
import { get, post, del, stream } from './api.js';
import { h, fill, errorBox, fmtTime, field } from './dom.js';

export const title = 'Agent';
const MODEL = 'herald.agentModel';
const PAGE = 10; // sessions per page (the API's)
const state = { sessionId: null, skip: 0, older: 0, exhausted: false };

export async function render(root) {
  const list = h('section', { class: 'card', id: 'sessions', 'aria-labelledby': 'sessions-h' });
  const log = h('div', { id: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
  const earlier = h('button', { type: 'button', class: 'link', id: 'chat-earlier', hidden: true }, 'Show earlier messages');
  const model = h('input', { id: 'chat-model', value: localStorage.getItem(MODEL) || 'gpt-4o', autocomplete: 'off', spellcheck: 'false' });
  const input = h('textarea', { id: 'chat-input', rows: 3, required: true, placeholder: 'Ask about your traffic, visibility or posts…' });
  const send = h('button', { type: 'submit', id: 'chat-send' }, 'Send');
  const status = h('div', { id: 'chat-status', role: 'status' });
  const chat = { root, list, log, earlier, input, send, status, model };
  const form = h('form', { class: 'stack', id: 'chat-form', onsubmit: (e) => { e.preventDefault(); ask(chat); } },
    field('Message', input, 'Enter sends; Shift+Enter starts a new line.'),
    h('details', {}, h('summary', {}, 'Model'), field('Model route', model, 'A model route your server configures (the error names them if this one is not).')),
    h('div', { class: 'row' }, send), status);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  earlier.addEventListener('click', () => loadOlder(chat));
  fill(root, h('h1', {}, title),
    h('div', { class: 'agent-layout' }, list,
      h('section', { class: 'card chat', 'aria-labelledby': 'chat-h' }, h('h2', { id: 'chat-h' }, 'Conversation'), earlier, log, form)));
  await loadSessions(chat);
  if (state.sessionId) await openSession(chat, state.sessionId);
  else fill(log, h('p', { class: 'muted', id: 'chat-empty' }, 'Start a conversation: ask a question below.'));
}

async function loadSessions(chat) {
  const { list } = chat;
  let r;
  try {
    r = await get(`/v1/ai/chat/sessions?skip=${state.skip}`);
  } catch (err) {
    fill(list, h('h2', { id: 'sessions-h' }, 'Conversations'), errorBox(err));
    return;
  }
  const items = r.chatHistory || [];
  const total = r.total ?? items.length;
  const go = (skip) => async () => { state.skip = skip; await loadSessions(chat); };
  fill(list, 
    h('h2', { id: 'sessions-h' }, 'Conversations'),
    h('button', { type: 'button', class: 'secondary', id: 'new-chat', onclick: () => {
      state.sessionId = null;
      fill(chat.log, h('p', { class: 'muted' }, 'New conversation.'));
      chat.earlier.hidden = true;
      markCurrent(list);
      chat.input.focus();
    } }, 'New conversation'),
    items.length ? h('ul', { class: 'sessions' }, items.map((s) => h('li', {},
      h('button', { type: 'button', class: 'session', 'data-session': s.sessionId, onclick: () => openSession(chat, s.sessionId) },
        h('span', { class: 'session-title' }, s.title || '(untitled)'),
        h('span', { class: 'muted small' }, `${fmtTime(s.updatedAt || s.createdAt)} · ${s.messageCount ?? 0} blocks`)),
      h('button', { type: 'button', class: 'link small', 'aria-label': `Delete the conversation “${s.title || s.sessionId}”`, onclick: async () => {
        try {
          await del(`/v1/ai/chat/session/${encodeURIComponent(s.sessionId)}`);
          if (state.sessionId === s.sessionId) {
            state.sessionId = null;
            fill(chat.log, h('p', { class: 'muted' }, 'Conversation deleted.'));
          }
          await loadSessions(chat);
        } catch (err) { fill(chat.status, errorBox(err)); }
      } }, 'Delete'))))
      : h('p', { class: 'muted' }, 'No conversation yet.'),
    total > PAGE ? h('p', { class: 'row pager' },
      h('button', { type: 'button', class: 'secondary', disabled: state.skip === 0, onclick: go(Math.max(0, state.skip - PAGE)) }, 'Newer'),
      h('span', { class: 'muted' }, `${state.skip + 1}–${Math.min(total, state.skip + PAGE)} of ${total}`),
      h('button', { type: 'button', class: 'secondary', disabled: state.skip + PAGE >= total, onclick: go(state.skip + PAGE) }, 'Older')) : null);
  markCurrent(list);
}

function markCurrent(list) {
  for (const b of list.querySelectorAll('button.session')) {
    if (b.dataset.session === state.sessionId) b.setAttribute('aria-current', 'true');
    else b.removeAttribute('aria-current');
  }
}

// openSession shows a session's latest blocks (the API pages them newest
// first, a few at a time); earlier ones load on request.
async function openSession(chat, id) {
  state.sessionId = id;
  state.older = 0;
  state.exhausted = false;
  markCurrent(chat.list);
  fill(chat.log, );
  for (let i = 0; i < 4 && !state.exhausted; i++) await loadOlder(chat);
  scrollEnd(chat);
}

async function loadOlder(chat) {
  try {
    const r = await get(`/v1/ai/chat/session/${encodeURIComponent(state.sessionId)}?skip=${state.older}`);
    const blocks = (r.blocks || []).slice().reverse();
    state.older += blocks.length;
    if (blocks.length < 3) state.exhausted = true;
    chat.log.prepend(...blocks.map((b) => blockView(chat, b)).filter(Boolean));
    chat.earlier.hidden = state.exhausted;
  } catch (err) {
    fill(chat.status, errorBox(err));
  }
}

// scrollEnd keeps the newest message in view.
const scrollEnd = (chat) => { chat.log.scrollTop = chat.log.scrollHeight; };

const contentText = (c) => (typeof c === 'string' ? c : c == null ? '' : JSON.stringify(c));

// blockView renders one stored or streamed block.
function blockView(chat, b) {
  switch (b.type) {
    case 'text':
      return b.role === 'user' ? h('div', { class: 'msg msg-user' }, h('span', { class: 'sr-only' }, 'You: '), contentText(b.content))
        : assistantView(chat, contentText(b.content), b);
    case 'tool_call': {
      const c = b.content || {};
      return h('details', { class: 'tool', 'data-tool': c.name || b.toolName }, h('summary', {}, `Using ${c.name || b.toolName || 'a tool'}…`),
        h('pre', {}, JSON.stringify(c.arguments ?? {}, null, 2)));
    }
    case 'tool_result': {
      const failed = b.content && typeof b.content === 'object' && b.content.error;
      return h('details', { class: `tool ${failed ? 'tool-failed' : ''}` }, h('summary', {}, failed ? `${b.toolName} failed: ${b.content.error}` : `${b.toolName || 'Tool'} answered`),
        h('pre', {}, JSON.stringify(b.content, null, 2)));
    }
    case 'proposal':
      return proposalCard(chat, b);
    default:
      return null; // a kind this page does not know yet
  }
}

function assistantView(chat, text, b) {
  const body = h('div', { class: 'msg-text' }, text);
  const box = h('div', { class: 'msg msg-assistant' }, h('span', { class: 'sr-only' }, 'Agent: '), body);
  box.setText = (t) => { body.textContent = t; };
  if (b && b.id) box.append(thumbs(chat, b));
  return box;
}

// thumbs rate a reply; the pressed one is the stored rating.
function thumbs(chat, b) {
  const current = b.feedback && b.feedback.rating;
  const note = h('span', { class: 'muted small', role: 'status' });
  const mk = (rating, label, glyph) => h('button', { type: 'button', class: 'thumb', 'aria-label': label, 'aria-pressed': String(current === rating), 'data-rating': rating,
    onclick: async (e) => {
      const btn = e.currentTarget;
      try {
        await post('/v1/ai/chat/feedback', { sessionId: state.sessionId, blockId: b.id, rating });
        for (const x of btn.parentElement.querySelectorAll('.thumb')) x.setAttribute('aria-pressed', String(x === btn));
        note.textContent = 'Thanks for the feedback.';
      } catch (err) { note.textContent = `Feedback not saved: ${err.message}`; }
    } }, glyph);
  return h('div', { class: 'thumbs-row' }, mk('up', 'Good reply', '👍'), mk('down', 'Bad reply', '👎'), note);
}

// proposalCard shows what the agent proposes to do; nothing happens until
// Confirm (POST chat with the proposal's confirm token). Discard only
// hides the card's buttons: the API keeps no rejection.
function proposalCard(chat, b) {
  const args = b.args && typeof b.args === 'object' ? b.args : {};
  const status = h('div', { role: 'status' });
  const confirm = h('button', { type: 'button', class: 'confirm' }, 'Confirm');
  const discard = h('button', { type: 'button', class: 'secondary discard' }, 'Discard');
  const card = h('section', { class: 'proposal', tabindex: '-1', 'data-action': b.action || '', 'aria-label': 'Proposal' },
    h('h3', {}, 'Proposal: ', contentText(b.content)),
    Object.keys(args).length ? h('dl', {}, Object.entries(args).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, typeof v === 'object' ? JSON.stringify(v) : String(v))])) : null,
    h('div', { class: 'row' }, confirm, discard), status);
  const done = () => { confirm.disabled = true; discard.disabled = true; };
  confirm.addEventListener('click', async () => {
    done();
    fill(status, h('p', { class: 'muted' }, 'Confirming…'));
    try {
      const r = await post('/v1/ai/generate/chat', { sessionId: state.sessionId, confirm: b.confirmToken });
      const text = (r.data && r.data.text) || r.message || 'Confirmed.';
      card.classList.add('confirmed');
      fill(status, h('p', { class: 'ok' }, text, ' ', b.action === 'schedule_content' ? h('a', { href: '#/schedules' }, 'See scheduled posts') : ''));
    } catch (err) {
      fill(status, errorBox(err));
      if (err.status !== 409) { confirm.disabled = false; discard.disabled = false; }
    }
  });
  discard.addEventListener('click', () => {
    done();
    card.classList.add('discarded');
    fill(status, h('p', { class: 'muted' }, 'Discarded: nothing was done.'));
    chat.input.focus();
  });
  return card;
}

// ask sends the message and renders the streamed turn: text deltas into
// one reply, tool calls and results as they happen, then the final blocks
// (proposals, the reply's id for thumbs).
async function ask(chat) {
  const text = chat.input.value.trim();
  if (!text) return;
  localStorage.setItem(MODEL, chat.model.value.trim());
  const empty = document.getElementById('chat-empty');
  if (empty) empty.remove();
  chat.send.disabled = true;
  fill(chat.status, h('span', { class: 'muted' }, 'The agent is answering…'));
  chat.log.append(h('div', { class: 'msg msg-user' }, h('span', { class: 'sr-only' }, 'You: '), text));
  scrollEnd(chat);
  chat.input.value = '';
  let reply = null;
  let replyText = '';
  const body = { model: chat.model.value.trim(), text };
  if (state.sessionId) body.sessionId = state.sessionId;
  try {
    await stream('/v1/ai/generate/chat', body, (name, ev) => {
      if (ev && ev.sessionId) state.sessionId = ev.sessionId;
      if (name === 'text_delta') {
        chat.log.dataset.deltas = String(Number(chat.log.dataset.deltas || 0) + 1);
        if (!reply) { reply = assistantView(chat, ''); chat.log.append(reply); }
        replyText += ev.textDelta || '';
        reply.setText(replyText);
      } else if (name === 'tool_call' || name === 'tool_result') {
        const v = blockView(chat, ev.toolCall || ev.toolResult || {});
        if (v) chat.log.append(v);
        reply = null;
        replyText = '';
      } else if (name === 'done' || name === 'json') {
        finish(chat, name === 'json' ? ev.data : ev.done);
      } else if (name === 'error') {
        chat.log.append(errorBox(new Error((ev && ev.message) || 'the reply failed')));
      }
      scrollEnd(chat);
    });
    fill(chat.status, );
  } catch (err) {
    fill(chat.status, errorBox(err));
    chat.input.value = text;
  } finally {
    chat.send.disabled = false;
  }
  loadSessions(chat);
}

// finish replaces the streamed reply with the stored final blocks, which
// carry ids (thumbs) and the proposals.
function finish(chat, done) {
  if (!done) return;
  const blocks = done.blocks || [];
  const last = chat.log.lastElementChild;
  if (last && last.classList.contains('msg-assistant')) last.remove();
  for (const b of blocks) {
    if (b.type === 'proposal' || (b.type === 'text' && b.role === 'assistant')) {
      const v = blockView(chat, b);
      if (v) chat.log.append(v);
    }
  }
  // Focus the card, not its Confirm button: the Enter that sent the
  // message may still be down when the reply lands, and must not confirm.
  const card = chat.log.querySelector('.proposal:last-of-type');
  if (card && card.querySelector('.confirm:not([disabled])')) card.focus();
}
