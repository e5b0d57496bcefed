// The dashboard shell: sign-in, navigation between pages and the error
// shown when the API refuses the key.
import { apiKey, setAPIKey, clearAPIKey, call, whenUnauthorized } from './api.js';
import { errorBox, h } from './dom.js';

// pages is the navigation, in menu order: #/<id> shows the page, whose
// module is loaded on first use (so the first load carries one page only)
// and exports title and render(root). A page is added with one line here
// and its module.
const pages = [
  { id: 'traffic', label: 'AI traffic', load: () => import('./traffic.js') },
  { id: 'visibility', label: 'Visibility', load: () => import('./visibility.js') },
  { id: 'trackers', label: 'Trackers', load: () => import('./trackers.js') },
  { id: 'pages', label: 'Pages', load: () => import('./pages.js') },
  { id: 'content', label: 'Content', load: () => import('./content.js') },
  { id: 'agent', label: 'Agent', load: () => import('./agent.js') },
  { id: 'schedules', label: 'Scheduled posts', load: () => import('./schedules.js') },
  { id: 'calendar', label: 'Calendar', load: () => import('./calendar.js') },
  { id: 'destinations', label: 'Destinations', load: () => import('./destinations.js') },
  { id: 'notifications', label: 'Notifications', load: () => import('./notifications.js') },
  { id: 'voices', label: 'Brand voices', load: () => import('./voices.js') },
];
const $ = (id) => document.getElementById(id);

$('nav').replaceChildren(...pages.map((p) => h('a', { href: `#/${p.id}`, 'data-page': p.id }, p.label)));

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

// route shows the page of the hash; moved says the user navigated, so
// focus goes to the new page's heading (screen readers announce it).
async function route(moved) {
  if (!apiKey()) return showSignIn();
  const name = (location.hash.match(/^#\/(\w+)/) || [])[1];
  const entry = pages.find((p) => p.id === name) || pages[0];
  const page = entry.id;
  $('signin').hidden = true;
  $('nav').hidden = false;
  $('signout').hidden = false;
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const root = h('div', { class: 'page', id: `page-${page}`, 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'));
  $('page').replaceChildren(root);
  document.title = `${entry.label} · Herald`;
  try {
    const mod = await entry.load();
    document.title = `${mod.title} · Herald`;
    await mod.render(root);
  } catch (err) {
    if (err.status !== 401) root.replaceChildren(h('h1', {}, entry.label), errorBox(err));
  } finally {
    root.setAttribute('aria-busy', 'false');
  }
  const heading = root.querySelector('h1');
  if (moved === true && heading && root.isConnected) {
    heading.tabIndex = -1;
    heading.focus();
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
window.addEventListener('hashchange', () => route(true));

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
