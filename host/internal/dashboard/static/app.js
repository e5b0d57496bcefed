// The dashboard shell: sign-in, navigation between pages (#/traffic,
// #/schedules, #/voices, #/visibility) and the error shown when the API
// refuses the key.
import { apiKey, setAPIKey, clearAPIKey, call, whenUnauthorized } from './api.js';
import { errorBox, h } from './dom.js';
import * as traffic from './traffic.js';
import * as schedules from './schedules.js';
import * as voices from './voices.js';
import * as visibility from './visibility.js';

const pages = { traffic, schedules, voices, visibility };
const $ = (id) => document.getElementById(id);

function showSignIn(message) {
  $('nav').hidden = true;
  $('signout').hidden = true;
  $('page').replaceChildren();
  $('signin').hidden = false;
  const e = $('signin-error');
  e.hidden = !message;
  e.textContent = message || '';
  $('apikey').focus();
}

function signOut(message) {
  clearAPIKey();
  showSignIn(message);
}

// A 401 on any page means the key is no longer good: back to sign-in,
// saying so, rather than a page of errors.
whenUnauthorized((err) => signOut(`Herald refused the API key: ${err.message}. Sign in with a valid key.`));

// verify checks a key against an api-key route every workspace can read.
async function verify(key) {
  await call('GET', '/v1/ai-traffic/sites', undefined, key);
}

async function route() {
  if (!apiKey()) return showSignIn();
  const name = (location.hash.match(/^#\/(\w+)/) || [])[1];
  const page = pages[name] ? name : 'traffic';
  $('signin').hidden = true;
  $('nav').hidden = false;
  $('signout').hidden = false;
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const root = h('div', { class: 'page', id: `page-${page}`, 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'));
  $('page').replaceChildren(root);
  document.title = `${pages[page].title} · Herald`;
  try {
    await pages[page].render(root);
  } catch (err) {
    if (err.status !== 401) root.replaceChildren(h('h1', {}, pages[page].title), errorBox(err));
  } finally {
    root.setAttribute('aria-busy', 'false');
  }
}

$('signin-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const key = $('apikey').value.trim();
  const e = $('signin-error');
  e.hidden = true;
  try {
    await verify(key);
  } catch (err) {
    e.textContent = err.status === 401
      ? `Herald refused this API key: ${err.message}. Check that you copied the whole key (hk_…).`
      : `Could not sign in: ${err.message}`;
    e.hidden = false;
    return;
  }
  $('apikey').value = '';
  setAPIKey(key);
  if (!location.hash) location.hash = '#/traffic';
  else route();
});

$('signout').addEventListener('click', () => signOut());
window.addEventListener('hashchange', route);

// A key kept from earlier in this tab is checked before any page shows.
(async () => {
  if (apiKey()) {
    try {
      await verify(apiKey());
    } catch (err) {
      if (err.status !== 401) return showSignIn(`Could not reach Herald: ${err.message}`);
      return; // whenUnauthorized already showed the sign-in with the reason
    }
  }
  route();
})();
