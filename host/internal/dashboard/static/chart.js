// Line charts with the vendored uPlot (global uPlot, loaded before the
// modules). Each chart comes with its numbers as a table for screen
// readers and for reading exact values.
import { h, palette } from './dom.js';

// lineChart returns a figure holding a uPlot chart of days (YYYY-MM-DD or
// ISO times) against named series ([{label, values, color}]); a series
// without a color takes the palette's by position. The legend shows each
// series in its own colour, so that other charts of the same things (bars)
// can pass the same colours and agree with it. A series may carry low and
// high (its 95% interval per point, drawn as a band in its colour) and
// marks (a value at each point whose change since the previous run is
// significant, drawn as a large point; only those are marked as changes).
export function lineChart({ id, title, xs, series, yLabel, valueFmt = (v) => v }) {
  const fig = h('figure', { class: 'chart', id });
  const box = h('div', { class: 'chart-box', role: 'img', 'aria-label': `${title}: chart; the same numbers are in the table below` });
  fig.append(h('figcaption', {}, title), box);
  const times = xs.map((x) => Date.parse(x.length === 10 ? `${x}T00:00:00Z` : x) / 1000);
  const opts = {
    width: 600,
    height: 260,
    // Counts and scores start at zero, so a small change does not look
    // like a cliff.
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    // Points are days or reports: tick at whole days, never at hours.
    axes: [{ space: 70, incrs: [86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 365 * 86400],
      values: (u, ticks) => ticks.map((t) => new Date(t * 1000).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })) },
    { label: yLabel, size: 50 }],
    legend: { live: false },
    series: [{}].concat(series.map((s, i) => ({
      label: s.label,
      stroke: s.color || palette[i % palette.length],
      width: 2,
      dash: s.dash,
      fill: series.length === 1 ? (s.color || palette[0]) + '22' : undefined,
      points: { show: xs.length <= 60 },
      value: (u, v) => (v == null ? '—' : valueFmt(v)),
    }))),
  };
  const data = [times].concat(series.map((s) => s.values));
  // Bands and marks are extra uPlot series after the lines, kept out of
  // the legend and of the table (which lists the figures themselves).
  const extra = [];
  opts.bands = [];
  series.forEach((s, i) => {
    const c = s.color || palette[i % palette.length];
    if (s.low && s.high) {
      const hi = data.length;
      data.push(s.high, s.low);
      extra.push(hi, hi + 1);
      opts.series.push({ label: `${s.label} 95% high`, stroke: c + '00', width: 0, points: { show: false } },
        { label: `${s.label} 95% low`, stroke: c + '00', width: 0, points: { show: false } });
      opts.bands.push({ series: [hi, hi + 1], fill: c + '26' });
    }
    if (s.marks && s.marks.some((v) => v != null)) {
      extra.push(data.length);
      data.push(s.marks);
      opts.series.push({ label: `${s.label}: significant change`, stroke: c, width: 0, paths: () => null,
        points: { show: true, size: 11, width: 2, fill: '#fff' } });
    }
  });
  // uPlot needs the box in the document to measure it.
  requestAnimationFrame(() => {
    opts.width = Math.max(260, box.clientWidth);
    const plot = new uPlot(opts, data, box);
    const rows = plot.root.querySelectorAll('.u-legend .u-series');
    extra.forEach((k) => { if (rows[k]) rows[k].style.display = 'none'; });
    fig.dataset.rendered = 'true';
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(260, box.clientWidth), height: opts.height }));
    ro.observe(box);
  });
  if (series.some((s) => s.low)) {
    fig.append(h('p', { class: 'muted chart-note' }, 'Shaded: the 95% interval of each line. Ringed points: a significant change since the previous run; any other movement is within the noise.'));
  }
  fig.append(h('details', {},
    h('summary', {}, 'Numbers as a table'),
    h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Date'), series.map((s) => h('th', { scope: 'col' }, s.label)))),
      h('tbody', {}, xs.map((x, i) => h('tr', {}, h('th', { scope: 'row' }, x.slice(0, 10)),
        series.map((s) => h('td', {}, s.values[i] == null ? '—' : valueFmt(s.values[i]))))))))));
  return fig;
}

// bars renders labelled horizontal bars ([{label, value, text, color}],
// share of the largest) without a
// chart library: widths are set through the CSSOM, which the strict CSP
// allows (it forbids style attributes in markup).
export function bars(caption, rows) {
  const max = Math.max(1, ...rows.map((r) => r.max || r.value));
  return h('ul', { class: 'bars', 'aria-label': caption }, rows.map((r, i) => {
    const fill = h('span', { class: 'bar-fill' });
    fill.style.width = `${(100 * r.value) / max}%`;
    fill.style.background = r.color || palette[i % palette.length];
    return h('li', {}, h('span', { class: 'bar-label' }, r.label), h('span', { class: 'bar' }, fill), h('span', { class: 'bar-value' }, r.text));
  }));
}
