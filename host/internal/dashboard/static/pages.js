// Pages: per page of the site, the engines that cite it, the AI crawlers
// that fetched it (verified by the operator's addresses, or only claimed
// by user agent) and the AI visits that landed on it, with the derived
// lists. Routes: GET /v1/ai-traffic/sites, GET /v1/ai-traffic/pages.
import { get } from './api.js';
import { h, fill, fmtNum, table } from './dom.js';

export const title = 'Pages: cited, crawled, visited';

export async function render(root) {
  const { sites = [] } = await get('/v1/ai-traffic/sites');
  if (sites.length === 0) {
    fill(root, h('h1', {}, title), h('p', { class: 'muted' }, 'No tracked site yet: add one on the AI traffic page.'));
    return;
  }
  const out = h('div', { id: 'pages-view', 'aria-live': 'polite' });
  const pick = h('select', { id: 'pages-site', 'aria-label': 'Site' }, sites.map((s) => h('option', { value: s.siteKey }, s.domain)));
  const days = h('select', { id: 'pages-days', 'aria-label': 'Window' }, [7, 30, 90].map((d) => h('option', { value: d, selected: d === 30 }, `${d} days`)));
  const load = async () => show(out, await get(`/v1/ai-traffic/pages?siteKey=${encodeURIComponent(pick.value)}&days=${days.value}`));
  pick.addEventListener('change', load);
  days.addEventListener('change', load);
  fill(root, h('h1', {}, title),
    h('p', {}, 'Crawler hits come from your server logs (POST /v1/ai-traffic/logs); a hit is verified when its address is the operator\'s.'),
    h('div', { class: 'row' }, pick, days), out);
  await load();
}

const answers = (p) => h('span', {}, ...p.citedIn.flatMap((c) => [
  `${c.engine} (${c.answers}) `,
  ...c.reportIds.map((id) => h('a', { href: `#/visibility/${encodeURIComponent(id)}`, title: `report ${id}` }, '↗ ')),
]));

function show(out, r) {
  fill(out,
    h('section', { class: 'card', 'aria-labelledby': 'pg-h' }, h('h2', { id: 'pg-h' }, 'Pages'),
      table('Pages', [
        ['Page', (p) => h('a', { href: p.url, rel: 'noopener noreferrer', target: '_blank' }, p.path)],
        ['Cited in', (p) => (p.citedIn.length ? answers(p) : '—')],
        ['Crawled (verified / claimed)', (p) => p.crawled.map((c) => `${c.operator} ${fmtNum(c.verified)} / ${fmtNum(c.claimed)}`).join(', ') || '—'],
        ['AI visits', (p) => p.aiVisits.map((v) => `${v.source} ${fmtNum(v.visits)}`).join(', ') || '—'],
      ], r.pages, 'No page cited, crawled or visited in this window.')),
    h('section', { class: 'card', 'aria-labelledby': 'cnc-h' }, h('h2', { id: 'cnc-h' }, 'Crawled, not cited'),
      table('Crawled, not cited', [['Page', (g) => g.path], ['Operator', (g) => g.operator], ['Verified hits', (g) => fmtNum(g.verified)]],
        r.crawledNotCited, 'None.')),
    h('section', { class: 'card', 'aria-labelledby': 'cnr-h' }, h('h2', { id: 'cnr-h' }, 'Cited, not crawled'),
      table('Cited, not crawled', [['Page', (g) => g.path], ['Engine', (g) => g.engine], ['Operator', (g) => g.operator || '—'],
        ['Answers', (g) => fmtNum(g.answers)], ['Claimed hits', (g) => fmtNum(g.claimed)]], r.citedNotCrawled, 'None.')),
    h('section', { class: 'card', 'aria-labelledby': 'cav-h' }, h('h2', { id: 'cav-h' }, 'Cited and visited'),
      table('Cited and visited', [['Page', (g) => g.path], ['Engines', (g) => g.engines.join(', ')], ['AI visits', (g) => fmtNum(g.aiVisits)]],
        r.citedAndVisited, 'None.')));
}
