/* Herald AI traffic script: no cookies, no dependencies. */
(function () {
  var d = document, w = window, l = location, n = navigator, s = d.currentScript;
  var key = s && s.getAttribute("data-site");
  if (!key) return;
  var api = s.getAttribute("data-api") || s.src.replace(/\/t\.js([?#].*)?$/, "/collect");
  var sid, st;
  try { st = w.sessionStorage; sid = st.getItem("_hk_sid"); } catch (e) {}
  if (!sid) {
    sid = Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
    try { st.setItem("_hk_sid", sid); } catch (e) {}
  }
  var ref = d.referrer, path, acc, since, depth, sent;

  function now() { return Date.now(); }
  function vis() { return d.visibilityState === "visible"; }
  function send(o) {
    o.siteKey = key;
    o.sessionId = sid;
    var b = JSON.stringify(o);
    if (w.fetch) {
      return fetch(api, { method: "POST", body: b, keepalive: true, credentials: "omit",
        headers: { "Content-Type": "text/plain" } }).catch(function () {});
    }
    if (n.sendBeacon) n.sendBeacon(api, b);
  }
  function scroll() {
    var e = d.documentElement, b = d.body, h = Math.max(e.scrollHeight, b ? b.scrollHeight : 0), v = w.innerHeight;
    var p = h <= v ? 100 : Math.min(100, Math.round(((w.pageYOffset || e.scrollTop) + v) / h * 100));
    if (p > depth) depth = p;
  }
  function visible() { return acc + (since ? now() - since : 0); }
  function engage() {
    var t = visible();
    if (t === sent[0] && depth === sent[1]) return;
    sent = [t, depth];
    return send({ path: path, sessionDurationMs: t, scrollDepth: depth });
  }
  function pageview() {
    path = l.pathname;
    acc = 0; since = vis() ? now() : 0; depth = 0; sent = [];
    scroll();
    var q = new URLSearchParams(l.search);
    send({ path: path, referrer: ref, title: d.title, userAgent: n.userAgent,
      utmSource: q.get("utm_source") || "", utmMedium: q.get("utm_medium") || "", utmCampaign: q.get("utm_campaign") || "" });
  }
  function nav() {
    if (l.pathname === path) return;
    var p = engage();
    ref = l.origin + path;
    // The previous page's engagement goes first so that it still attaches to
    // that page's pageview on the server.
    if (p && p.then) p.then(pageview, pageview); else pageview();
  }

  var push = history.pushState;
  history.pushState = function () { var r = push.apply(this, arguments); nav(); return r; };
  w.addEventListener("popstate", nav);
  w.addEventListener("scroll", scroll, { passive: true });
  d.addEventListener("visibilitychange", function () {
    if (vis()) { if (!since) since = now(); return; }
    if (since) { acc += now() - since; since = 0; }
    engage();
  });
  w.addEventListener("pagehide", function () {
    if (since) { acc += now() - since; since = 0; }
    engage();
  });
  pageview();
})();
