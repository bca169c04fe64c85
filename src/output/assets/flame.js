/*
 * The flame graph viewer, one per <svg class="flame"> (svg_write): frames carry their layout as
 * data-x/data-w (fractions of the root) and data-d (depth); zoom rescales the frames inside the
 * clicked one, widens its ancestors (dimmed) and hides the rest; search colours matching frames
 * and sums the share of the outermost matches.  The standalone SVG also takes Ctrl-F, Escape and
 * the URL fragment (#click=f12, #search=RE); the HTML report drives the returned functions.
 */
"use strict";
function muxFlame(svg, ask) {
  var W = +svg.getAttribute('data-fw'), XP = +svg.getAttribute('data-xpad'), CW = 6.6;
  var q = function (c) { return svg.querySelector('.fg-' + c); };
  var details = q('details'), matched = q('matched');
  var unzoomBtn = q('unzoom'), resetBtn = q('reset-search');
  var frames = Array.prototype.map.call(svg.querySelectorAll('g.f'), function (g) {
    return { g: g, x: +g.getAttribute('data-x'), w: +g.getAttribute('data-w'),
      d: +g.getAttribute('data-d'), name: g.getAttribute('data-n'),
      rect: g.querySelector('rect'), text: g.querySelector('text'),
      title: g.querySelector('title').textContent };
  });
  var byId = {}, listeners = [];
  frames.forEach(function (e) { byId[e.g.id] = e; });
  function changed() { listeners.forEach(function (fn) { fn(); }); }
  function fit(e, x, w) {
    e.rect.setAttribute('x', x.toFixed(2));
    e.rect.setAttribute('width', Math.max(w, 0).toFixed(2));
    e.text.setAttribute('x', (x + 3).toFixed(2));
    var n = Math.floor((w - 6) / CW), s = e.name;
    e.text.textContent = n < 3 ? '' : s.length <= n ? s : s.substring(0, n - 2) + '..';
  }
  function zoom(id) {
    var z = byId[id], eps = 1e-9;
    if (!z) return false;
    frames.forEach(function (e) {
      var inside = e.x >= z.x - eps && e.x + e.w <= z.x + z.w + eps;
      var above = e.x <= z.x + eps && e.x + e.w >= z.x + z.w - eps;
      if (e.d >= z.d && inside) {
        e.g.classList.remove('hide'); e.g.classList.remove('parent');
        fit(e, XP + (e.x - z.x) / z.w * W, e.w / z.w * W);
      } else if (e.d < z.d && above) {
        e.g.classList.remove('hide'); e.g.classList.add('parent');
        fit(e, XP, W);
      } else {
        e.g.classList.add('hide');
      }
    });
    svg.setAttribute('data-zoom', id);
    unzoomBtn.classList.remove('hide');
    changed();
    return true;
  }
  function unzoom() {
    frames.forEach(function (e) {
      e.g.classList.remove('hide'); e.g.classList.remove('parent');
      fit(e, XP + e.x * W, e.w * W);
    });
    svg.removeAttribute('data-zoom');
    unzoomBtn.classList.add('hide');
    changed();
  }
  function resetSearch() {
    frames.forEach(function (e) {
      if (e.fill) { e.rect.setAttribute('fill', e.fill); e.fill = null; }
    });
    matched.textContent = ''; resetBtn.classList.add('hide');
    svg.removeAttribute('data-search'); svg.removeAttribute('data-matched');
    changed();
  }
  function search(term) {
    var re, hits = [], sum = 0, end = -1;
    resetSearch();
    if (!term) return '';
    try { re = new RegExp(term); }
    catch (err) { matched.textContent = 'bad regex'; return 'bad regex'; }
    frames.forEach(function (e) {
      if (e.d > 0 && re.test(e.name)) {
        e.fill = e.rect.getAttribute('fill');
        e.rect.setAttribute('fill', 'rgb(230,0,230)');
        hits.push(e);
      }
    });
    hits.sort(function (a, b) { return a.x - b.x || a.d - b.d; });
    hits.forEach(function (e) {
      if (e.x >= end - 1e-9) { sum += e.w; end = e.x + e.w; }
      else if (e.x + e.w > end) { sum += e.x + e.w - end; end = e.x + e.w; }
    });
    var pct = (100 * sum).toFixed(2);
    matched.textContent = 'Matched: ' + pct + '% (' + hits.length + ' frames)';
    resetBtn.classList.remove('hide');
    svg.setAttribute('data-search', term); svg.setAttribute('data-matched', pct);
    changed();
    return matched.textContent;
  }
  function ask_search() {
    var t = ask ? ask() : prompt('Search frames (regular expression):',
                                 svg.getAttribute('data-search') || '');
    if (t !== null && t !== undefined) search(t);
  }
  frames.forEach(function (e) {
    e.g.addEventListener('click', function () { zoom(e.g.id); });
    e.g.addEventListener('mouseover', function () { details.textContent = e.title; });
    e.g.addEventListener('mouseout', function () { details.textContent = ' '; });
  });
  unzoomBtn.addEventListener('click', unzoom);
  resetBtn.addEventListener('click', resetSearch);
  q('search').addEventListener('click', ask_search);
  return { zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch,
           askSearch: ask_search, onChange: function (fn) { listeners.push(fn); } };
}
/* The standalone SVG document: keys and the URL fragment. */
function muxFlameStandalone() {
  var v = muxFlame(document.documentElement);
  window.addEventListener('keydown', function (ev) {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') { ev.preventDefault(); v.askSearch(); }
    else if (ev.key === 'Escape') { v.unzoom(); v.resetSearch(); }
  });
  function applyHash() {
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('='), k = kv.substring(0, i);
      var val = decodeURIComponent(kv.substring(i + 1));
      if (k === 'click') v.zoom(val);
      else if (k === 'search') v.search(val);
    });
  }
  window.addEventListener('hashchange', applyHash);
  applyHash();
}
