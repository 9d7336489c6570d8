/* HyperViz interactive viewer (no dependencies, no network).
 *
 * Reads the export embedded in <script type="application/json" id="hv-data"> and adds
 * interaction to the SVG that the Python side drew from the same export. Every piece of
 * text from the data is inserted with textContent / createTextNode and every attribute with
 * setAttribute: never innerHTML, so entity names and chunk texts stay inert. Text from the
 * data set next to the viewer's own words is wrapped in <bdi> (its own direction, isolated),
 * so a right-to-left name cannot reorder "E1 · ", " — " or a count around it; blocks of such
 * text alone (descriptions, evidence) take dir="auto".
 *
 * Entity clicks expand one hop per click: the first click highlights the entity's hyperedges
 * and neighbours (1 hop), each further click on the same entity adds a hop up to the maximum
 * chosen in the "max hops" control (default "all": N(v, G), everything reachable), and a click
 * at the maximum resets. Escape resets at any time; another entity starts again at 1 hop.
 */
(function () {
  'use strict';

  var dataEl = document.getElementById('hv-data');
  var svg = document.getElementById('hv-svg');
  var viewport = document.getElementById('hv-viewport');
  if (!dataEl || !svg || !viewport) { return; }
  var DATA;
  try { DATA = JSON.parse(dataEl.textContent || '{}'); } catch (err) { DATA = {}; }

  var MAX_LIST = 12;
  var MAX_DESC = 600;

  /* ---------- model ---------- */
  var entities = new Map();      // "E1" -> entity record
  var hyperedges = new Map();    // "H1" -> hyperedge record
  var incident = new Map();      // "E1" -> ["H1", ...]
  asArray(DATA.entities).forEach(function (e) {
    if (e && typeof e.id === 'string') { entities.set(e.id, e); incident.set(e.id, []); }
  });
  asArray(DATA.hyperedges).forEach(function (h) {
    if (!h || typeof h.id !== 'string') { return; }
    hyperedges.set(h.id, h);
    asArray(h.members).forEach(function (m) {
      if (!incident.has(m)) { incident.set(m, []); }
      var list = incident.get(m);
      if (list.indexOf(h.id) < 0) { list.push(h.id); }
    });
  });
  var chunks = (DATA.chunks && typeof DATA.chunks === 'object') ? DATA.chunks : {};

  function asArray(v) { return Array.isArray(v) ? v : []; }
  function str(v) { return (v === null || v === undefined) ? '' : String(v); }
  /* Whole user-perceived characters (grapheme clusters) of s: an accent, vowel sign or
   * joiner stays with its letter and an emoji is never split into half surrogate pairs. */
  var segmenter = (typeof Intl !== 'undefined' && Intl.Segmenter) ?
    new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
  function clusters(s) {
    if (segmenter) { return Array.from(segmenter.segment(s), function (g) { return g.segment; }); }
    return Array.from(s);  /* code points at least */
  }
  function clip(s, n) {
    s = str(s);
    if (s.length <= n) { return s; }
    var parts = clusters(s);
    var out = '';
    for (var i = 0; i < parts.length && out.length + parts[i].length <= n - 1; i++) {
      out += parts[i];
    }
    if (i === parts.length) { return s; }
    return (out || parts[0]) + '\u2026';
  }
  /* Search folding: the compatibility forms (full-width ＡＢＣ, half-width ｶﾀｶﾅ, ligatures)
   * as their plain letters (NFKC, as entity keys), accents of Latin, Greek and Cyrillic
   * letters (zurich finds Zürich, Ελλαδα Ελλάδα), case and runs of white space ignored;
   * Hebrew's points and cantillation marks and Arabic's harakat ignored, Arabic's yeh and
   * kaf read as Persian's,
   * hamza'd alef as alef, teh marbuta as heh (علی finds علي, احمد أحمد, محمد مُحَمَّد: as
   * offline retrieval reads them). */
  function fold(s) {
    s = str(s);
    try {
      s = s.normalize('NFKC').normalize('NFD')
        .replace(/[\u0300-\u036f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u0655\u0640]/g, '')
        .normalize('NFC');
    } catch (err) { /* a lone surrogate: keep s */ }
    return s.toLowerCase().replace(/\s+/g, ' ').trim()
      .replace(/\u064a/g, '\u06cc').replace(/\u0643/g, '\u06a9')
      .replace(/[\u0622\u0623\u0625\u0671]/g, '\u0627').replace(/\u0629/g, '\u0647');
  }
  function chunkText(id) {
    return Object.prototype.hasOwnProperty.call(chunks, id) ? str(chunks[id]) : null;
  }
  function entityName(id) { var e = entities.get(id); return e ? str(e.name) : ''; }
  function degreeOf(id) {
    var e = entities.get(id);
    if (e && typeof e.degree === 'number') { return e.degree; }
    return (incident.get(id) || []).length;
  }

  /* Breadth-first search over the incidence structure: entity -> hyperedge -> entity is one
   * hop. Returns the hop distance of every reached entity and the hyperedges traversed
   * (those incident to an entity closer than `hops`). */
  function neighbourhood(start, hops) {
    var dist = new Map([[start, 0]]);
    var edges = new Set();
    var frontier = [start];
    for (var d = 0; d < hops && frontier.length; d++) {
      var next = [];
      frontier.forEach(function (v) {
        (incident.get(v) || []).forEach(function (hid) {
          edges.add(hid);
          asArray((hyperedges.get(hid) || {}).members).forEach(function (m) {
            if (!dist.has(m)) { dist.set(m, d + 1); next.push(m); }
          });
        });
      });
      frontier = next;
    }
    return { dist: dist, edges: edges };
  }

  /* Hops after which the neighbourhood of `start` stops growing, i.e. N(v, G): everything
   * reachable, hyperedges included (the eccentricity of v counted in entity hops). At least 1,
   * so that an isolated entity still takes one click to select. Cached per entity. */
  var depthCache = new Map();
  function fullDepth(start) {
    if (depthCache.has(start)) { return depthCache.get(start); }
    var seen = new Set([start]);
    var used = new Set();
    var frontier = [start];
    var depth = 1;
    for (var d = 0; frontier.length; d++) {
      var next = [];
      frontier.forEach(function (v) {
        (incident.get(v) || []).forEach(function (hid) {
          if (used.has(hid)) { return; }
          used.add(hid);
          depth = Math.max(depth, d + 1);
          asArray((hyperedges.get(hid) || {}).members).forEach(function (m) {
            if (!seen.has(m)) { seen.add(m); next.push(m); }
          });
        });
      });
      frontier = next;
    }
    depthCache.set(start, depth);
    return depth;
  }

  /* ---------- DOM helpers (text only through textContent) ---------- */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, str(attrs[k])); });
    }
    asArray(children).forEach(function (c) {
      if (c === null || c === undefined) { return; }
      node.appendChild(typeof c === 'object' ? c : document.createTextNode(str(c)));
    });
    return node;
  }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }
  /* Text from the data beside the viewer's own: isolated in its own direction. */
  function bdi(text) { return el('bdi', null, [text]); }
  /* "E1 — name" / "H1 — description" (the name isolated), or the bare ID. */
  function named(id, text) { return text ? [id + ' \u2014 ', bdi(text)] : [id]; }
  function chip(id) {
    var label = named(id, clip(entityName(id), 60));
    if (hyperedges.has(id)) { label = [id + ' \u2014 ', bdi(clip(hyperedges.get(id).description, 60))]; }
    return el('button', { type: 'button', 'class': 'hv-chip', 'data-goto': id }, label);
  }

  var tooltip = document.getElementById('hv-tooltip');
  var details = document.getElementById('hv-details');
  var hopsInput = document.getElementById('hv-hops');
  var hopStatus = document.getElementById('hv-hop-status');
  var expandButton = document.getElementById('hv-expand');
  var searchInput = document.getElementById('hv-search');
  var results = document.getElementById('hv-search-results');

  /* ---------- tooltip ---------- */
  function ttRow(key, value) {
    return el('div', { 'class': 'hv-tt-row' },
      [el('span', { 'class': 'hv-tt-key' }, [key + ': '])].concat(value));
  }
  /* "E1 name, E2 name, +3 more" as nodes (each name isolated). */
  function memberSummary(h) {
    var m = asArray(h.members);
    var parts = [];
    m.slice(0, MAX_LIST).forEach(function (id, i) {
      parts.push((i ? ', ' : '') + id);
      if (entityName(id)) { parts.push(' ', bdi(clip(entityName(id), 40))); }
    });
    if (m.length > MAX_LIST) { parts.push(', +' + (m.length - MAX_LIST) + ' more'); }
    return parts;
  }
  function showTooltip(id, evt) {
    if (!tooltip) { return; }
    clear(tooltip);
    if (entities.has(id)) {
      var e = entities.get(id);
      tooltip.appendChild(el('div', { 'class': 'hv-tt-title' }, [id + ' \u00b7 ', bdi(str(e.name))]));
      tooltip.appendChild(ttRow('type', bdi(str(e.type))));
      tooltip.appendChild(ttRow('degree', String(degreeOf(id))));
      if (str(e.description)) { tooltip.appendChild(ttRow('description', bdi(clip(e.description, MAX_DESC)))); }
    } else if (hyperedges.has(id)) {
      var h = hyperedges.get(id);
      tooltip.appendChild(el('div', { 'class': 'hv-tt-title' }, [id + ' \u00b7 ', bdi(str(h.kind || 'hyperedge'))]));
      tooltip.appendChild(ttRow('members', memberSummary(h)));
      if (str(h.description)) { tooltip.appendChild(ttRow('description', bdi(clip(h.description, MAX_DESC)))); }
    } else {
      hideTooltip();
      return;
    }
    tooltip.hidden = false;
    moveTooltip(evt);
  }
  function moveTooltip(evt) {
    if (!tooltip || tooltip.hidden || !evt) { return; }
    var x = evt.clientX + 14;
    var y = evt.clientY + 14;
    var w = tooltip.offsetWidth;
    var h = tooltip.offsetHeight;
    if (x + w > window.innerWidth - 4) { x = Math.max(4, evt.clientX - w - 14); }
    if (y + h > window.innerHeight - 4) { y = Math.max(4, evt.clientY - h - 14); }
    tooltip.style.left = x + 'px';
    tooltip.style.top = y + 'px';
  }
  function hideTooltip() { if (tooltip) { tooltip.hidden = true; } }

  /* ---------- highlighting ---------- */
  var state = { entity: null, hyperedge: null, hops: 0 };

  function svgItems() { return svg.querySelectorAll('[data-id], [data-hid]'); }

  function paint(entSet, edgeSet, selected) {
    svg.classList.add('hv-focus');
    svgItems().forEach(function (node) {
      var id = node.getAttribute('data-id');
      var hid = node.getAttribute('data-hid');
      var on;
      if (hid !== null) {
        on = edgeSet.has(hid);
      } else if (id && id.charAt(0) === 'H') {
        on = edgeSet.has(id);
      } else {
        on = entSet.has(id);
      }
      node.classList.toggle('hv-hl', on);
      node.classList.toggle('hv-dim', !on);
      node.classList.toggle('hv-sel', id !== null && id === selected &&
        !node.classList.contains('hv-label') && !node.classList.contains('hv-label-box'));
      if (node.hasAttribute('aria-pressed')) { node.setAttribute('aria-pressed', String(id === selected)); }
    });
  }
  function unpaint() {
    svg.classList.remove('hv-focus');
    svgItems().forEach(function (node) {
      node.classList.remove('hv-hl', 'hv-dim', 'hv-sel');
      if (node.hasAttribute('aria-pressed')) { node.setAttribute('aria-pressed', 'false'); }
    });
  }

  /* The hop-count control: an upper bound, or "all" (no bound beyond N(v, G)). */
  function hopLimit() {
    var n = parseInt(hopsInput ? hopsInput.value : 'all', 10);
    return n >= 1 ? n : Infinity;
  }
  /* The deepest neighbourhood a click on `id` can reach: the control's bound, at most the
   * depth of everything reachable from `id`, at least 1. */
  function maxHops(id) { return Math.max(1, Math.min(hopLimit(), fullDepth(id))); }
  function counted(n, one, many) { return n + ' ' + (n === 1 ? one : many); }
  function plural(n) { return counted(n, 'hop', 'hops'); }

  /* Highlight the `hops`-hop neighbourhood of entity `id` (clamped to 1..maxHops(id)). */
  function selectEntity(id, hops) {
    if (!entities.has(id) && !incident.has(id)) { return; }
    var max = maxHops(id);
    hops = Math.max(1, Math.min(hops || 1, max));
    state.entity = id;
    state.hyperedge = null;
    state.hops = hops;
    var nb = neighbourhood(id, hops);
    paint(new Set(nb.dist.keys()), nb.edges, id);
    showEntityDetails(id, nb, hops, max);
    showHopStatus();
  }

  /* A click on an entity: another entity starts at 1 hop, the selected one grows by one hop
   * per click up to maxHops, and a click at the maximum resets. */
  function stepEntity(id) {
    if (state.entity !== id) { selectEntity(id, 1); return; }
    if (state.hops >= maxHops(id)) { resetSelection(); return; }
    selectEntity(id, state.hops + 1);
  }

  /* The toolbar's "E3: 2 hops (of 4)" line and the "+1 hop" button's state. */
  function showHopStatus() {
    var max = state.entity ? maxHops(state.entity) : 0;
    if (hopStatus) {
      if (state.entity) {
        hopStatus.textContent = state.entity + ': ' + plural(state.hops) + ' (of ' + max + ')';
        hopStatus.setAttribute('data-hops', String(state.hops));
        hopStatus.setAttribute('data-max', String(max));
      } else {
        hopStatus.textContent = 'no entity selected';
        hopStatus.removeAttribute('data-hops');
        hopStatus.removeAttribute('data-max');
      }
    }
    if (expandButton) { expandButton.disabled = !state.entity || state.hops >= max; }
  }

  function selectHyperedge(hid) {
    if (!hyperedges.has(hid)) { return; }
    state.entity = null;
    state.hyperedge = hid;
    state.hops = 0;
    paint(new Set(asArray(hyperedges.get(hid).members)), new Set([hid]), hid);
    showHyperedgeDetails(hid);
    showHopStatus();
  }

  function resetSelection() {
    state.entity = null;
    state.hyperedge = null;
    state.hops = 0;
    unpaint();
    showIntro();
    showHopStatus();
  }

  /* ---------- side panel ---------- */
  function showIntro() {
    if (!details) { return; }
    clear(details);
    details.removeAttribute('data-selected');
    details.appendChild(el('h2', null, ['Selection']));
    details.appendChild(el('p', { 'class': 'hv-muted' }, [
      'Hover or focus a node for details. Click an entity to highlight its hyperedges and ' +
      'neighbours (1 hop); each further click on it adds one hop, up to the toolbar\'s ' +
      '"max hops" (all: everything reachable), and one more click resets. Click a hyperedge ' +
      'region, square or legend entry for its members and evidence. Escape resets.']));
    details.appendChild(el('p', { 'class': 'hv-muted' }, [
      'Keyboard: Tab reaches each entity and H# label once; Enter or Space acts as a click. ' +
      'With the drawing focused, the arrow keys pan and + / - / 0 zoom in, out and reset.']));
  }

  function sourceList(ids, withText) {
    var wrap = el('div', null, []);
    ids = asArray(ids);
    if (!ids.length) {
      wrap.appendChild(el('p', { 'class': 'hv-muted' }, ['No source chunks recorded.']));
      return wrap;
    }
    ids.forEach(function (cid) {
      cid = str(cid);
      var text = chunkText(cid);
      wrap.appendChild(el('h3', { 'class': 'hv-chunk-id' }, ['Chunk ', bdi(cid)]));
      if (!withText) { return; }
      if (text === null) {
        wrap.appendChild(el('p', { 'class': 'hv-muted hv-evidence-missing' },
          ['(chunk text not included in this export)']));
      } else {
        wrap.appendChild(el('div', { 'class': 'hv-evidence', 'data-chunk': cid, dir: 'auto' }, [text]));
      }
    });
    return wrap;
  }

  function showHyperedgeDetails(hid) {
    if (!details) { return; }
    var h = hyperedges.get(hid);
    clear(details);
    details.setAttribute('data-selected', hid);
    details.appendChild(el('h2', { 'class': 'hv-sel-title' }, [hid + ' \u00b7 ', bdi(str(h.kind || 'hyperedge'))]));
    var members = asArray(h.members);
    details.appendChild(el('h3', null, ['Members (' + members.length + ')']));
    details.appendChild(el('div', { 'class': 'hv-members' }, members.map(chip)));
    details.appendChild(el('h3', null, ['Description']));
    details.appendChild(el('p', { 'class': 'hv-text hv-description', dir: 'auto' },
      [str(h.description) || '(none)']));
    details.appendChild(el('h3', null, ['Source chunks and evidence']));
    details.appendChild(sourceList(h.source_ids, true));
  }

  function showEntityDetails(id, nb, hops, max) {
    if (!details) { return; }
    var e = entities.get(id) || {};
    clear(details);
    details.setAttribute('data-selected', id);
    details.appendChild(el('h2', { 'class': 'hv-sel-title' }, [id + ' \u00b7 ', bdi(str(e.name))]));
    details.appendChild(el('p', null, ['type: ', bdi(str(e.type)), ' \u00b7 degree: ' + degreeOf(id)]));
    if (str(e.description)) {
      details.appendChild(el('p', { 'class': 'hv-text hv-description', dir: 'auto' }, [str(e.description)]));
    }
    details.appendChild(el('h3', { 'class': 'hv-hop-title' }, ['Neighbourhood within ' + plural(hops) +
      ' (of ' + max + '): ' + counted(nb.dist.size - 1, 'entity', 'entities') + ', ' +
      counted(nb.edges.size, 'hyperedge', 'hyperedges')]));
    details.appendChild(el('p', { 'class': 'hv-muted hv-hop-hint' }, [hops < max ?
      'Click ' + id + ' again for ' + plural(hops + 1) + '.' :
      (max < fullDepth(id) ? 'The "max hops" limit is reached' : 'Everything reachable is shown') +
      ': click ' + id + ' again or press Escape to reset.']));
    var byHop = [];
    nb.dist.forEach(function (d, v) {
      if (d > 0) { (byHop[d] = byHop[d] || []).push(v); }
    });
    for (var d = 1; d < byHop.length; d++) {
      if (!byHop[d]) { continue; }
      details.appendChild(el('p', { 'class': 'hv-muted' }, ['hop ' + d + ':']));
      details.appendChild(el('div', { 'class': 'hv-hop', 'data-hop': d }, byHop[d].sort(idOrder).map(chip)));
    }
    var edges = Array.from(nb.edges).sort(idOrder);
    if (edges.length) {
      details.appendChild(el('p', { 'class': 'hv-muted' }, ['via hyperedges:']));
      details.appendChild(el('div', { 'class': 'hv-via' }, edges.map(chip)));
    }
    details.appendChild(el('h3', null, ['Source chunks']));
    details.appendChild(sourceList(e.source_ids, true));
  }

  function idOrder(a, b) {
    var na = parseInt(a.slice(1), 10);
    var nb = parseInt(b.slice(1), 10);
    if (a.charAt(0) !== b.charAt(0)) { return a < b ? -1 : 1; }
    if (na !== nb && !isNaN(na) && !isNaN(nb)) { return na - nb; }
    return a < b ? -1 : (a > b ? 1 : 0);
  }

  /* ---------- zoom and pan ---------- */
  var view = { k: 1, x: 0, y: 0 };
  var MIN_K = 0.2;
  var MAX_K = 40;
  function applyView() {
    viewport.setAttribute('transform',
      'translate(' + view.x.toFixed(3) + ' ' + view.y.toFixed(3) + ') scale(' + view.k.toFixed(5) + ')');
  }
  function toSvg(clientX, clientY) {
    var ctm = svg.getScreenCTM();
    if (!ctm) { return { x: 0, y: 0 }; }
    var p = svg.createSVGPoint();
    p.x = clientX;
    p.y = clientY;
    var q = p.matrixTransform(ctm.inverse());
    return { x: q.x, y: q.y };
  }
  function zoomAt(factor, px, py) {
    var k = Math.min(MAX_K, Math.max(MIN_K, view.k * factor));
    var f = k / view.k;
    view.x = px - (px - view.x) * f;
    view.y = py - (py - view.y) * f;
    view.k = k;
    applyView();
  }
  function viewCentre() {
    var vb = svg.viewBox.baseVal;
    return { x: vb.x + vb.width / 2, y: vb.y + vb.height / 2 };
  }
  function resetView() { view = { k: 1, x: 0, y: 0 }; applyView(); }
  function centreOn(x, y, zoom) {
    var c = viewCentre();
    if (zoom && view.k < 2) { view.k = 2; }
    view.x = c.x - x * view.k;
    view.y = c.y - y * view.k;
    applyView();
  }

  svg.addEventListener('wheel', function (evt) {
    evt.preventDefault();
    var p = toSvg(evt.clientX, evt.clientY);
    zoomAt(Math.exp(-evt.deltaY * 0.0015), p.x, p.y);
  }, { passive: false });

  var drag = null;
  var suppressClick = false;
  svg.addEventListener('pointerdown', function (evt) {
    suppressClick = false;
    if (evt.button !== 0) { return; }
    drag = { id: evt.pointerId, sx: evt.clientX, sy: evt.clientY, vx: view.x, vy: view.y, moved: false };
  });
  svg.addEventListener('pointermove', function (evt) {
    if (drag && drag.id === evt.pointerId) {
      var dx = evt.clientX - drag.sx;
      var dy = evt.clientY - drag.sy;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 4) {
        drag.moved = true;
        svg.classList.add('hv-dragging');
        try { svg.setPointerCapture(evt.pointerId); } catch (err) { /* ignore */ }
        hideTooltip();
      }
      if (drag.moved) {
        var ctm = svg.getScreenCTM();
        var s = ctm ? ctm.a : 1;
        view.x = drag.vx + dx / s;
        view.y = drag.vy + dy / s;
        applyView();
        return;
      }
    }
    moveTooltip(evt);
  });
  function endDrag(evt) {
    if (drag && drag.id === evt.pointerId) {
      suppressClick = drag.moved;
      svg.classList.remove('hv-dragging');
      drag = null;
    }
  }
  svg.addEventListener('pointerup', endDrag);
  svg.addEventListener('pointercancel', endDrag);

  function itemOf(target) {
    var node = target && target.closest ? target.closest('[data-id]') : null;
    return node && svg.contains(node) ? node.getAttribute('data-id') : null;
  }
  svg.addEventListener('mouseover', function (evt) {
    var id = itemOf(evt.target);
    if (id && !drag) { showTooltip(id, evt); } else if (!id) { hideTooltip(); }
  });
  svg.addEventListener('mouseleave', hideTooltip);
  /* Keyboard focus on an item (not a pointer press) shows its tooltip, beside it, and pans a
   * zoomed drawing so that the item is in view; leaving it hides the tooltip. (Listeners on
   * the document: Chromium makes an SVG element with focus listeners a Tab stop.) */
  document.addEventListener('focusin', function (evt) {
    var t = evt.target;
    var id = t && t.hasAttribute && t.hasAttribute('tabindex') ? t.getAttribute('data-id') : null;
    if (!id || drag || !svg.contains(t)) { return; }
    reveal(t, false);
    var r = t.getBoundingClientRect();
    showTooltip(id, { clientX: r.right, clientY: r.bottom });
  });
  document.addEventListener('focusout', function (evt) {
    if (svg.contains(evt.target)) { hideTooltip(); }
  });
  /* Keyboard: entity nodes and H# labels are focusable buttons; Enter or Space acts as a
   * click on them. */
  svg.addEventListener('keydown', function (evt) {
    if (evt.key !== 'Enter' && evt.key !== ' ') { return; }
    var t = evt.target;
    var id = t && t.getAttribute && t.hasAttribute('tabindex') ? t.getAttribute('data-id') : null;
    if (!id) { return; }
    evt.preventDefault();
    activate(id, true);
  });
  svg.addEventListener('click', function (evt) {
    if (suppressClick) { suppressClick = false; return; }
    var id = itemOf(evt.target);
    if (!id) { return; }
    activate(id, true);
  });

  /* Select an entity or hyperedge. A click (`step`) on an entity expands it one hop at a time
   * (see stepEntity); a click on the selected hyperedge resets. Chips, legend and search
   * (`step` false) select afresh: an entity at 1 hop. */
  function activate(id, step) {
    if (hyperedges.has(id)) {
      if (step && state.hyperedge === id) { resetSelection(); } else { selectHyperedge(id); }
    } else if (step) {
      stepEntity(id);
    } else {
      selectEntity(id, 1);
    }
  }

  function button(id, fn) {
    var b = document.getElementById(id);
    if (b) { b.addEventListener('click', fn); }
  }
  button('hv-zoom-in', function () { var c = viewCentre(); zoomAt(1.4, c.x, c.y); });
  button('hv-zoom-out', function () { var c = viewCentre(); zoomAt(1 / 1.4, c.x, c.y); });
  button('hv-zoom-reset', resetView);
  /* "+1 hop": the same as clicking the selected entity, but never resets (it is disabled at
   * the maximum). The hop control bounds the depth: lowering it shrinks the highlight. */
  button('hv-expand', function () {
    if (state.entity && state.hops < maxHops(state.entity)) {
      selectEntity(state.entity, state.hops + 1);
    }
  });
  if (hopsInput) {
    hopsInput.addEventListener('change', function () {
      if (state.entity) { selectEntity(state.entity, state.hops); } else { showHopStatus(); }
    });
  }
  var pngToggle = document.getElementById('hv-show-png');
  var pngImage = document.getElementById('hv-png');
  if (pngToggle && pngImage) {
    pngToggle.addEventListener('change', function () {
      pngImage.classList.toggle('hv-off', !pngToggle.checked);
    });
  }

  /* "Skip to details" (a button: the page has no links): focus the side panel. */
  var skip = document.getElementById('hv-skip');
  var sidebar = document.getElementById('hv-sidebar');
  if (skip && sidebar) {
    skip.addEventListener('click', function (evt) {
      evt.preventDefault();
      sidebar.focus();
      sidebar.scrollIntoView({ block: 'nearest' });
    });
  }

  /* Chips and legend entries jump to the item they name. */
  document.addEventListener('click', function (evt) {
    var t = evt.target && evt.target.closest ? evt.target.closest('[data-goto]') : null;
    var wrap = document.getElementById('hv-search-wrap');
    if (results && wrap && !wrap.contains(evt.target)) { closeResults(); }
    if (!t) { return; }
    var id = t.getAttribute('data-goto');
    if (results && results.contains(t)) {
      closeResults();
      if (searchInput) { searchInput.focus(); }  /* not left on a hidden option */
    }
    activate(id, false);
    focusItem(id);
  });

  function focusItem(id) {
    var node = svg.querySelector('.hv-ent[data-id="' + cssId(id) + '"], .hv-hnode[data-id="' +
      cssId(id) + '"], .hv-label[data-id="' + cssId(id) + '"]');
    if (node) { reveal(node, true); }
  }
  /* Centre the view on `node` (zooming in to at least 2x when `zoom`); without `zoom` only
   * when some of it is outside the visible drawing, and at the current scale. */
  function reveal(node, zoom) {
    if (!zoom) {
      var r = node.getBoundingClientRect();
      var s = svg.getBoundingClientRect();
      if (r.left >= s.left && r.right <= s.right && r.top >= s.top && r.bottom <= s.bottom) { return; }
    }
    var b = node.getBBox();
    centreOn(b.x + b.width / 2, b.y + b.height / 2, zoom);
  }
  function cssId(id) { return str(id).replace(/[^A-Za-z0-9_-]/g, ''); }

  /* ---------- search ---------- */
  /* [id, folded id, folded name, folded key] of every entity, folded once. */
  var searchIndex = null;
  function findMatches(q) {
    q = fold(q);
    if (!q) { return []; }
    if (!searchIndex) {
      searchIndex = [];
      entities.forEach(function (e, id) {
        searchIndex.push([id, fold(id), fold(e.name), fold(e.key)]);
      });
    }
    var exact = [];
    var partial = [];
    searchIndex.forEach(function (row) {
      if (row[1] === q || row[2] === q || row[3] === q) { exact.push(row[0]); } else if (
        row[2].indexOf(q) >= 0 || row[3].indexOf(q) >= 0) { partial.push(row[0]); }
    });
    hyperedges.forEach(function (h, id) { if (fold(id) === q) { exact.push(id); } });
    return exact.concat(partial.sort(idOrder));
  }
  var MAX_RESULTS = 50;
  var searchStatus = document.getElementById('hv-search-status');
  /* The search box is a combobox: its list's state in aria-expanded, what the list says
   * besides its options ("No entity matches", "+N more") in the status line too. */
  function setResultsOpen(open) {
    if (results) { results.hidden = !open; }
    if (searchInput) { searchInput.setAttribute('aria-expanded', String(open)); }
  }
  function closeResults() { setResultsOpen(false); }
  function showResults() {
    if (!searchInput || !results) { return; }
    var all = findMatches(searchInput.value);
    var matches = all.slice(0, MAX_RESULTS);
    var notes = [];
    clear(results);
    if (!searchInput.value.trim()) {
      closeResults();
      if (searchStatus) { searchStatus.textContent = ''; }
      return;
    }
    if (!matches.length) { notes.push('No entity matches'); }
    matches.forEach(function (id, i) {
      var label = hyperedges.has(id) ? [id + ' \u2014 ', bdi(clip(hyperedges.get(id).description, 60))] :
        [id + ' \u2014 ', bdi(clip(entityName(id), 80))];
      results.appendChild(el('li', { role: 'presentation' }, [
        el('button', { type: 'button', 'class': 'hv-result', 'data-goto': id, role: 'option',
          id: 'hv-result-' + i, tabindex: '-1', 'aria-selected': 'false' }, label)]));
    });
    if (all.length > matches.length) {
      notes.push('+' + (all.length - matches.length) + ' more: type more of the name');
    }
    notes.forEach(function (note) {
      results.appendChild(el('li', { 'class': 'hv-empty', 'aria-hidden': 'true' }, [note]));
    });
    if (searchStatus) {
      searchStatus.textContent = matches.length ? counted(all.length, 'match', 'matches') +
        (notes.length ? '; ' + notes.join('; ') : '') : notes.join('; ');
    }
    setResultsOpen(true);
  }
  /* ArrowDown from the search box into its results, then Up/Down between them (Up from the
   * first goes back to the box). */
  function resultButtons() { return results ? Array.from(results.querySelectorAll('button')) : []; }
  if (results) {
    results.addEventListener('focusin', function (evt) {
      resultButtons().forEach(function (b) {
        b.setAttribute('aria-selected', String(b === evt.target));
      });
    });
    results.addEventListener('keydown', function (evt) {
      if (evt.key === 'Escape' && searchInput) {  /* close the list, back to the box */
        evt.preventDefault();
        evt.stopPropagation();
        closeResults();
        searchInput.focus();
        return;
      }
      if (evt.key !== 'ArrowDown' && evt.key !== 'ArrowUp') { return; }
      var list = resultButtons();
      var i = list.indexOf(document.activeElement);
      if (i < 0) { return; }
      evt.preventDefault();
      if (evt.key === 'ArrowDown') { list[Math.min(i + 1, list.length - 1)].focus(); }
      else if (i === 0 && searchInput) { searchInput.focus(); } else { list[i - 1].focus(); }
    });
  }
  if (searchInput) {
    searchInput.addEventListener('input', showResults);
    searchInput.addEventListener('keydown', function (evt) {
      if (evt.key === 'ArrowDown') {
        if (results && results.hidden && searchInput.value.trim()) { showResults(); }
        var first = resultButtons()[0];
        if (first && results && !results.hidden) { evt.preventDefault(); first.focus(); }
        return;
      }
      if (evt.key === 'Enter') {
        evt.preventDefault();
        var matches = findMatches(searchInput.value);
        if (matches.length) {
          closeResults();
          activate(matches[0], false);
          focusItem(matches[0]);
        } else {
          showResults();
        }
      }
    });
  }

  /* The arrow keys and + - 0 pan and zoom only while the drawing has the focus: the SVG or
   * one of its items, the zoom buttons, or nothing (the page itself). Elsewhere they keep
   * their own meaning (scroll the side panel or an evidence box, move in a list). */
  var zoomGroup = document.getElementById('hv-zoom');
  function drawingKeys(focused) {
    if (!focused || focused === document.body || focused === document.documentElement) { return true; }
    return svg.contains(focused) || !!(zoomGroup && zoomGroup.contains(focused));
  }
  document.addEventListener('keydown', function (evt) {
    var focused = document.activeElement;
    if (focused && focused.isContentEditable) { return; }  /* typing in an editor */
    if (evt.key === 'Escape') {
      hideTooltip();
      closeResults();
      if (searchInput && document.activeElement === searchInput) {
        searchInput.value = '';
        if (searchStatus) { searchStatus.textContent = ''; }
      }
      resetSelection();
      return;
    }
    if (!drawingKeys(focused)) { return; }
    if (evt.altKey || evt.ctrlKey || evt.metaKey) { return; }  /* the browser's own keys */
    var PAN = { ArrowLeft: [1, 0], ArrowRight: [-1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    if (PAN[evt.key]) {
      evt.preventDefault();  /* pan the drawing, not the page */
      var step = (evt.shiftKey ? 200 : 50);
      view.x += PAN[evt.key][0] * step;
      view.y += PAN[evt.key][1] * step;
      applyView();
      return;
    }
    var c = viewCentre();
    if (evt.key === '+' || evt.key === '=') { zoomAt(1.4, c.x, c.y); }
    if (evt.key === '-') { zoomAt(1 / 1.4, c.x, c.y); }
    if (evt.key === '0') { resetView(); }
  });

  applyView();
  showIntro();
  showHopStatus();
  document.documentElement.setAttribute('data-hv-ready', '1');
})();
