/* The replay of one agentfootprint run, shared as a page by afp-desktop. No dependency, nothing fetched.
   Every piece of run text is inserted as text (textContent, setAttribute), never as markup.
   Positions are the run's axis positions: stop i owns the positions p with start < p <= end. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('run-data').textContent);
  var SVG = 'http://www.w3.org/2000/svg';
  var $ = function (id) { return document.getElementById(id); };
  var stops = D.stops, ends = stops.map(function (s) { return s[3]; });
  var G = D.graph, steps = D.steps;
  var length = D.length;
  var state = { position: 0, chosen: null, playing: null, pinned: null, allLines: false };
  var SEEN_LINES_SHOWN = 12;  // a long stop lists its first lines and its last two (as the window does)

  // ── small helpers ────────────────────────────────────────────────────────────────────────────────
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function bisectLeft(a, x, key) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if ((key ? key(a[mid]) : a[mid]) < x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function bisectRight(a, x, key) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (x < (key ? key(a[mid]) : a[mid])) hi = mid; else lo = mid + 1; }
    return lo;
  }
  function first(row) { return row[0]; }
  /** The latest [position, …] entry of `timeline` that has happened at p, or null. */
  function latest(timeline, p) { var i = bisectRight(timeline, p, first) - 1; return i >= 0 ? timeline[i] : null; }
  function fmt(n) { return Number(n).toLocaleString('en-US'); }
  function elide(text, chars) {
    text = String(text).replace(/\s+/g, ' ');
    return text.length <= chars ? text : text.slice(0, Math.max(1, chars - 1)) + '…';
  }

  // ── the moment at a position (as the app's Replay computes it) ─────────────────────────────────────
  function spanIndex(p, chosen) {
    var n = ends.length;
    if (!n) return null;
    if (chosen !== null && chosen >= 0 && chosen < n && ends[chosen] === p) return chosen;
    var low = stops[0][2];
    if (p < low || p > ends[n - 1]) return null;
    if (p === low) return 0;
    return bisectLeft(ends, p);
  }
  function statusLine(p) {
    var i = bisectRight(D.status, p, first) - 1;
    if (i < 0) return null;
    var parts = [];
    while (i >= 0 && D.status[i][1] === '+') { parts.push(D.status[i][2]); i--; }
    if (i < 0) return parts.reverse().join('');
    var base = D.status[i][1];
    if (base === null) return null;
    return base + parts.reverse().join('');
  }
  function startedSteps(p) { return bisectRight(steps.starts, p); }
  function stepActive(i, p) {
    var end = steps.ends[i];
    return steps.starts[i] <= p && (end === null || end > p);
  }
  function currentStep(p, span) {
    var started = startedSteps(p);
    if (started === 0) return null;
    var slot = span === null ? undefined : D.slotStops[String(span)];
    if (slot !== undefined) {
      for (var k = started - 1; k > Math.max(-1, started - 40); k--) {
        if (steps.kinds[k] === 'fork-branch' && steps.chips[String(k)] === slot) return k;
      }
    }
    for (var j = started - 1; j >= 0; j--) {
      if (steps.kinds[j] !== 'subflow' && stepActive(j, p)) return j;
    }
    return started - 1;
  }
  function errorsKnown(p) { return D.errors.slice(0, bisectRight(D.errors, p, first)); }
  function bubbleError(errors, span) {
    var i;
    for (i = errors.length - 1; i >= 0; i--) if (errors[i][1] === 'fatal' || errors[i][1] === 'run') return errors[i][2];
    if (span !== null) {
      var s = stops[span];
      for (i = errors.length - 1; i >= 0; i--) if (s[2] < errors[i][0] && errors[i][0] <= s[3]) return 'A tool failed: ' + errors[i][2];
    }
    return null;
  }
  function moment(p, chosen) {
    var span = spanIndex(p, chosen);
    var atStop = span !== null && ends[span] === p;
    var lines = [], previous = '';
    if (span !== null) D.stopLines[span].forEach(function (row) {  // [line, from] or [appended, from, 1]
      if (row[1] > p) return;
      previous = row[2] ? previous + row[0] : row[0];
      lines.push(previous);
    });
    var errors = errorsKnown(p);
    var current = currentStep(p, span);
    var prompt = latest(D.prompts, p), answer = latest(D.answers, p);
    return { position: p, span: span, atStop: atStop, lines: lines, errors: errors, line: statusLine(p),
             prompt: prompt ? prompt[1] : null, answer: answer ? answer[1] : null, error: bubbleError(errors, span),
             current: current === null ? null : steps.shown[current] };
  }
  function describe(m) {
    var event = 'event ' + fmt(m.position) + '/' + fmt(length);
    if (m.span === null) return event;
    if (m.atStop) return 'Stop ' + (m.span + 1) + ' of ' + stops.length + ' · ' + stops[m.span][0] + ' · ' + event;
    return 'in ' + stops[m.span][0] + ' · ' + event;
  }

  // ── the page's fixed parts ───────────────────────────────────────────────────────────────────────────
  document.title = elide(D.title, 80) + ' · shared replay';
  $('run-title').textContent = D.title;
  $('run-meta').textContent = D.fileFormat + ' · ' + fmt(stops.length) + ' stops · ' + fmt(steps.kinds.length) +
    ' steps · shared by ' + D.generator;
  var banner = $('banner');
  if (D.redaction === 'redacted') {
    banner.textContent = 'Redacted: assistant text, tool arguments and results, injection summaries and payloads ' +
      'were replaced by markers before this page was made.';
    banner.classList.add('redacted');
  } else {
    banner.textContent = 'This page contains the full conversation: prompts, messages, tool arguments and results, ' +
      'unredacted. Take care before sharing it further.';
  }
  if (D.notices.length) {
    var list = $('notice-list');
    D.notices.forEach(function (text) { list.appendChild(el('li', null, text)); });
    $('notices').hidden = false;
  }
  if (D.derived) {
    $('derived-note').textContent = 'From a Trace: no tokens, progress reports or pauses; the bubble is derived from ' +
      'LLM and tool starts and ends.';
    $('derived-note').hidden = false;
  }
  if (G.folded.length) {
    $('fold-note').textContent = G.folded.map(function (f) { return f[0] + ' folded (' + fmt(f[2]) + ' steps)'; }).join('; ');
  }

  // ── the graph ────────────────────────────────────────────────────────────────────────────────────
  var KIND_CLASS = { 'user->llm': 'k-llm', 'tool->llm': 'k-llm', 'llm->tool': 'k-tool', 'llm->user': 'k-reply',
                     'subflow': 'k-subflow', 'fork-branch': 'k-chip', 'decision-branch': 'k-chip', 'framework': 'k-chip',
                     'fold': 'k-fold' };
  var nodeEls = [], edgeEls = [], groupEls = [];
  (function drawGraph() {
    var gNodes = $('nodes'), gEdges = $('edges'), gGroups = $('groups');
    G.groups.forEach(function (g, i) {
      var path = svg('path', { 'class': 'bracket', d: '' });
      gGroups.appendChild(path);
      groupEls.push([path, g[4], i]);
    });
    G.edges.forEach(function (e) {
      var pts = e[1], d = '';
      for (var i = 0; i + 1 < pts.length; i += 2) d += (i ? 'L' : 'M') + pts[i] + ' ' + pts[i + 1];
      var g = svg('g', {});
      g.appendChild(svg('path', { 'class': 'edge' + (e[0] === 'loop' || e[5] === e[6] ? ' loop' : ''), d: d,
                                  'marker-end': 'url(#arrow)' }));
      if (e[2] !== null && e[3] !== null) {
        var t = svg('text', { 'class': 'edge-label', x: e[3], y: e[4] + 3 });
        t.textContent = elide(e[2], 22);
        g.appendChild(t);
      }
      gEdges.appendChild(g);
      edgeEls.push([g, e[5], e[6]]);
    });
    G.nodes.forEach(function (n, k) {
      var x = n[0], y = n[1], w = n[2], h = n[3], kind = n[4];
      var g = svg('g', { 'class': 'node ' + (KIND_CLASS[kind] || 'k-other'), 'data-index': k, tabindex: '-1' });
      g.appendChild(svg('rect', { x: x, y: y, width: w, height: h, rx: kind === 'subflow' ? 6 : 4 }));
      var chip = h < 30;
      var label = svg('text', { x: x + 8, y: chip ? y + h / 2 + 4 : y + 20 });
      label.textContent = elide(n[5], Math.floor((w - 14) / (chip ? 6 : 7)));
      g.appendChild(label);
      if (!chip && n[9]) {
        var detail = svg('text', { 'class': 'detail', x: x + 8, y: y + 38 });
        detail.textContent = elide(n[9], Math.floor((w - 14) / 6));
        g.appendChild(detail);
      }
      var tip = svg('title', {});
      tip.textContent = n[5];
      g.appendChild(tip);
      g.addEventListener('click', function (ev) { ev.stopPropagation(); state.pinned = k; render(); });
      gNodes.appendChild(g);
      nodeEls.push(g);
    });
  })();

  // pan and zoom: the viewport group's transform
  var view = { x: 0, y: 0, k: 1 };
  var graphEl = $('graph'), viewport = $('viewport');
  function applyView() { viewport.setAttribute('transform', 'translate(' + view.x + ' ' + view.y + ') scale(' + view.k + ')'); }
  function fit() {
    var r = graphEl.getBoundingClientRect();
    var k = Math.min(r.width / Math.max(G.width, 1), r.height / Math.max(G.height, 1), 1.2);
    if (!(k > 0)) k = 1;
    k = Math.max(k, Math.min(1, r.width / 900));  // a long graph is read from its top, at a legible size
    view = { k: k, x: Math.max(0, (r.width - G.width * k) / 2), y: 0 };
    applyView();
  }
  function zoomAt(factor, cx, cy) {
    var k = Math.min(8, Math.max(0.02, view.k * factor));
    view.x = cx - (cx - view.x) * (k / view.k);
    view.y = cy - (cy - view.y) * (k / view.k);
    view.k = k;
    applyView();
  }
  function zoomCentre(factor) { var r = graphEl.getBoundingClientRect(); zoomAt(factor, r.width / 2, r.height / 2); }
  graphEl.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var r = graphEl.getBoundingClientRect();
    if (ev.ctrlKey || ev.metaKey || ev.altKey) {
      zoomAt(Math.exp(-ev.deltaY / 400), ev.clientX - r.left, ev.clientY - r.top);
    } else if (ev.shiftKey) {
      view.x -= ev.deltaY; applyView();
    } else {
      view.x -= ev.deltaX; view.y -= ev.deltaY; applyView();
    }
  }, { passive: false });
  var drag = null;
  graphEl.addEventListener('pointerdown', function (ev) {
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false };
    graphEl.setPointerCapture(ev.pointerId);
  });
  graphEl.addEventListener('pointermove', function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; graphEl.classList.add('dragging'); }
    view.x = drag.vx + dx; view.y = drag.vy + dy; applyView();
  });
  function endDrag() { graphEl.classList.remove('dragging'); setTimeout(function () { drag = null; }, 0); }
  graphEl.addEventListener('pointerup', endDrag);
  graphEl.addEventListener('pointercancel', endDrag);
  graphEl.addEventListener('click', function () { if (drag && drag.moved) return; state.pinned = null; render(); }, true);
  $('zoom-in').addEventListener('click', function () { zoomCentre(1.25); });
  $('zoom-out').addEventListener('click', function () { zoomCentre(0.8); });
  $('zoom-fit').addEventListener('click', fit);
  function reveal(k) {
    if (k === null) return;
    var n = G.nodes[k], r = graphEl.getBoundingClientRect();
    var x = n[0] * view.k + view.x, y = n[1] * view.k + view.y, w = n[2] * view.k, h = n[3] * view.k;
    var moved = false;  // only along the axis the step is out of view on, so the rest stays where it was
    if (x < 0 || x + w > r.width) {
      view.x += w < r.width ? (x < 0 ? 24 - x : r.width - 24 - (x + w)) : 24 - x;
      moved = true;
    }
    if (y < 0 || y + h > r.height) {  // low in the view: what happened before it is above, the future is not drawn
      view.y = Math.min(24 - G.nodes.reduce(function (top, b) { return Math.min(top, b[1]); }, Infinity) * view.k,
                        r.height * 0.72 - (n[1] + n[3] / 2) * view.k);
      moved = true;
    }
    if (moved) applyView();
  }

  // ── the timeline ─────────────────────────────────────────────────────────────────────────────────
  var tl = $('timeline'), slider = $('slider');
  slider.max = String(length);
  function tlX(p) { return length ? p / length * 1000 : 0; }
  tl.setAttribute('viewBox', '0 0 1000 28');
  (function drawStops() {
    var d = '';
    ends.forEach(function (e) { d += 'M' + tlX(e).toFixed(2) + ' 6V22'; });
    $('tl-stops').setAttribute('d', d);
  })();
  tl.addEventListener('click', function (ev) {
    var r = tl.getBoundingClientRect();
    var p = Math.round((ev.clientX - r.left) / Math.max(r.width, 1) * length);
    var i = bisectLeft(ends, p);
    var best = null;
    [i - 1, i].forEach(function (j) { if (j >= 0 && j < ends.length && (best === null || Math.abs(ends[j] - p) < Math.abs(ends[best] - p))) best = j; });
    if (best !== null) moveToStop(best); else moveTo(p, null);
  });
  slider.addEventListener('input', function () { stopPlaying(); moveTo(parseInt(slider.value, 10) || 0, null); });

  // ── moving the cursor ───────────────────────────────────────────────────────────────────────────────
  function moveTo(p, chosen) {
    p = Math.max(0, Math.min(length, p | 0));
    state.position = p;
    state.chosen = chosen !== null && chosen >= 0 && chosen < ends.length && ends[chosen] === p ? chosen : null;
    render();
  }
  function moveToStop(i) {
    if (!ends.length) return;
    i = Math.max(0, Math.min(ends.length - 1, i));
    moveTo(ends[i], i);
  }
  function nextStop() {
    var i = spanIndex(state.position, state.chosen), target;
    if (i === null) target = ends.length && state.position < stops[0][2] ? 0 : null;
    else if (ends[i] === state.position) target = i + 1;
    else target = i;
    if (target === null || target >= ends.length) return false;
    moveToStop(target);
    return true;
  }
  function previousStop() {
    var i = spanIndex(state.position, state.chosen);
    if (i === null) {
      if (ends.length && state.position > ends[ends.length - 1]) { moveToStop(ends.length - 1); return true; }
      return false;
    }
    if (i - 1 < 0) {
      var low = ends.length ? stops[0][2] : 0;
      if (state.position > low) { moveTo(low, null); return true; }
      return false;
    }
    moveToStop(i - 1);
    return true;
  }
  function home() { moveTo(0, null); }
  function end() { moveTo(length, ends.length && ends[ends.length - 1] === length ? ends.length - 1 : null); }
  function stopPlaying() {
    if (state.playing !== null) { clearInterval(state.playing); state.playing = null; }
    $('play').textContent = 'Play';
  }
  function togglePlay() {
    if (state.playing !== null) { stopPlaying(); return; }
    if (state.position >= length) home();
    $('play').textContent = 'Pause';
    state.playing = setInterval(function () { if (!nextStop() || state.position >= length) stopPlaying(); }, 700);
  }
  $('home').addEventListener('click', function () { stopPlaying(); home(); });
  $('end').addEventListener('click', function () { stopPlaying(); end(); });
  $('prev').addEventListener('click', function () { stopPlaying(); previousStop(); });
  $('next').addEventListener('click', function () { stopPlaying(); nextStop(); });
  $('play').addEventListener('click', togglePlay);
  $('follow-current').addEventListener('click', function () { state.pinned = null; render(); });
  $('all-lines').addEventListener('click', function () { state.allLines = !state.allLines; drawn.lines = null; render(); });
  document.addEventListener('keydown', function (ev) {
    if (ev.target && ev.target.tagName === 'INPUT' && ev.target.type !== 'range') return;
    var handled = true;
    if (ev.key === 'ArrowRight') { stopPlaying(); if (ev.shiftKey) moveTo(state.position + 1, null); else nextStop(); }
    else if (ev.key === 'ArrowLeft') { stopPlaying(); if (ev.shiftKey) moveTo(state.position - 1, null); else previousStop(); }
    else if (ev.key === 'Home') { stopPlaying(); home(); }
    else if (ev.key === 'End') { stopPlaying(); end(); }
    else if (ev.key === ' ' && !(ev.target && ev.target.tagName === 'BUTTON')) togglePlay();
    else if (ev.key === '+' || ev.key === '=') zoomCentre(1.25);
    else if (ev.key === '-') zoomCentre(0.8);
    else if (ev.key === '0') fit();
    else handled = false;
    if (handled) ev.preventDefault();
  });

  // ── deep links: #stop=N (0-based, as `afp-desktop view --stop N`) and #position=P ─────────────────────
  var writtenHash = null;
  function readHash() {
    var m = /^#(stop|position)=(\d+)$/.exec(location.hash);
    if (!m) return false;
    var n = parseInt(m[2], 10);
    if (m[1] === 'stop') moveToStop(n); else moveTo(n, null);
    return true;
  }
  function writeHash(m) {
    var hash = m.atStop ? '#stop=' + m.span : '#position=' + m.position;
    document.body.setAttribute('data-link', hash);
    if (hash === location.hash) return;
    writtenHash = hash;
    try { history.replaceState(null, '', hash); } catch (err) { location.hash = hash; }
  }
  var hashTimer = null;
  function writeHashSoon(m) {  // once the cursor rests: rewriting the address at every move of a scrub is slow
    if (hashTimer !== null) clearTimeout(hashTimer);
    hashTimer = setTimeout(function () { hashTimer = null; writeHash(m); }, 200);
  }
  window.addEventListener('hashchange', function () { if (location.hash !== writtenHash) readHash(); });

  // ── one render per cursor move ───────────────────────────────────────────────────────────────────────
  function show(elem, on) { elem.hidden = !on; }
  // Each part is written only when what it shows changed: a scrub of a long run moves the cursor many times a
  // second, and most moves change a few steps and none of the texts.
  var drawn = { nodes: [], edges: [], bottom: -1, lines: null, errors: -1, inspector: null, current: undefined };
  function setText(elem, text) { if (elem.textContent !== text) elem.textContent = text; }
  function render() {
    var p = state.position, m = moment(p, state.chosen);
    slider.value = String(p);
    var label = $('stop-label');
    setText(label, describe(m));
    label.setAttribute('data-stop', m.span === null ? '' : String(m.span));
    label.setAttribute('data-at-stop', m.atStop ? 'true' : 'false');
    // timeline
    $('tl-cursor').setAttribute('x', String(Math.max(0, tlX(p) - 1)));
    if (m.span !== null) {
      var s = stops[m.span];
      $('tl-span').setAttribute('x', String(tlX(s[2])));
      $('tl-span').setAttribute('width', String(Math.max(1.5, tlX(s[3]) - tlX(s[2]))));
    } else $('tl-span').setAttribute('width', '0');
    // graph: nothing that has not started is shown
    var errorNodes = {};
    m.errors.forEach(function (e) { if (e[3] !== null) errorNodes[e[3]] = true; });
    var bottom = 0;  // a bracket reaches down to the lowest step that has started, never to the future's rows
    nodeEls.forEach(function (g, k) {
      var n = G.nodes[k], started = n[6] <= p, done = started && n[7] !== null && n[7] <= p;
      if (started) bottom = Math.max(bottom, n[1] + n[3]);
      var look = (started ? done ? 'd' : 'a' : 'n') + (k === m.current ? 'c' : '') + (errorNodes[k] ? 'e' : '') +
        (k === state.pinned ? 's' : '');
      if (drawn.nodes[k] === look) return;
      drawn.nodes[k] = look;
      g.style.display = started ? '' : 'none';
      g.classList.toggle('active', started && !done);
      g.classList.toggle('done', done);
      g.classList.toggle('current', k === m.current);
      g.classList.toggle('error', !!errorNodes[k]);
      g.classList.toggle('selected', k === state.pinned);
      g.setAttribute('data-state', !started ? 'not-started' : done ? 'done' : 'active');
    });
    edgeEls.forEach(function (e, i) {
      var on = G.nodes[e[1]][6] <= p && G.nodes[e[2]][6] <= p;
      if (drawn.edges[i] !== on) { drawn.edges[i] = on; e[0].style.display = on ? '' : 'none'; }
    });
    if (bottom !== drawn.bottom) {
      drawn.bottom = bottom;
      groupEls.forEach(function (g) {
        var box = G.groups[g[2]], reach = Math.min(box[3], bottom - box[1]);
        g[0].style.display = G.nodes[g[1]][6] <= p && reach > 0 ? '' : 'none';
        g[0].setAttribute('d', 'M' + (box[0] + box[2]) + ' ' + box[1] + 'H' + box[0] + 'V' + (box[1] + reach) + 'H' + (box[0] + box[2]));
      });
    }
    // chat
    show($('prompt'), m.prompt !== null); setText($('prompt'), m.prompt || '');
    var status = $('status');
    setText(status, m.line === null ? 'No status bubble at this moment (the agent is between calls or done).' : m.line);
    status.classList.toggle('hidden-bubble', m.line === null);
    var linesKey = m.span + ':' + m.lines.length;
    if (drawn.lines !== linesKey) {
      drawn.lines = linesKey;
      var ol = $('stop-lines');
      clear(ol);
      m.lines.forEach(function (line) { var li = el('li', null, line); li.title = line; ol.appendChild(li); });
      show($('seen'), m.lines.length > 0);
      // as the window lists them: the first lines and the last two, each on one line, unless all are asked for
      var hiddenCount = Math.max(0, m.lines.length - SEEN_LINES_SHOWN - 2);
      ol.classList.toggle('folded', hiddenCount > 0 && !state.allLines);
      ol.classList.toggle('one-line', !state.allLines);
      show($('all-lines'), hiddenCount > 0 || state.allLines && m.lines.length > SEEN_LINES_SHOWN + 2);
      setText($('all-lines'), state.allLines ? 'Show fewer lines' : 'Show all ' + fmt(m.lines.length) + ' lines (' +
        fmt(hiddenCount) + ' more)');
    }
    show($('bubble-error'), m.error !== null); setText($('bubble-error'), m.error || '');
    show($('answer'), m.answer !== null); setText($('answer'), m.answer || '');
    var ending = $('ending');
    show(ending, p === length);
    setText(ending, D.ending.text);
    ending.className = 'ending ' + D.ending.outcome;
    // errors
    if (drawn.errors !== m.errors.length) {
      drawn.errors = m.errors.length;
      var ed = '';
      m.errors.forEach(function (e) { ed += 'M' + tlX(e[0]).toFixed(2) + ' 0V28'; });
      $('tl-errors').setAttribute('d', ed);
      setText($('errors-count'), m.errors.length ? m.errors.length + ' error' + (m.errors.length > 1 ? 's' : '') + ' so far' : '');
      var errList = $('errors-list');
      clear(errList);
      m.errors.forEach(function (e) {
        var row = el('div', null, '⚠ event ' + fmt(e[0]) + ' · ' + e[1] + ': ' + e[2] + (e[4] ? ' (' + e[4] + ')' : ''));
        row.title = e[2];
        row.addEventListener('click', function () { stopPlaying(); moveTo(e[0], null); if (e[3] !== null) { state.pinned = e[3]; render(); reveal(e[3]); } });
        errList.appendChild(row);
      });
    }
    renderInspector(m);
    if (state.pinned === null && m.current !== drawn.current) reveal(m.current);  // (a pan stays until the step changes)
    drawn.current = m.current;
    writeHashSoon(m);
  }

  function renderInspector(m) {
    var k = state.pinned !== null ? state.pinned : m.current;
    var known = k === null ? null : latest(G.nodes[k][8], m.position);
    var key = k + ':' + (state.pinned !== null) + ':' + (known === null ? -1 : known[0]) + ':' + m.atStop;
    if (drawn.inspector === key) return;
    drawn.inspector = key;
    var body = $('inspector-body');
    clear(body);
    show($('follow-current'), state.pinned !== null);
    if (k === null) {
      $('inspector-title').textContent = 'Step';
      body.appendChild(el('p', 'muted', 'No step has started at this moment.'));
      return;
    }
    var n = G.nodes[k];
    $('inspector-title').textContent = (state.pinned !== null ? 'Step: ' : 'The step at the cursor: ') + elide(n[5], 60);
    if (n[6] > m.position || known === null) {
      body.appendChild(el('p', 'muted', 'This step has not started at this moment.'));
      return;
    }
    // between two stops a step in progress reads as it did at the last one
    if (!m.atStop && known[0] < m.position && (n[7] === null || n[7] > m.position)) {
      body.appendChild(el('p', 'muted', 'In progress: as known at event ' + fmt(known[0]) + '.'));
    }
    known[1].forEach(function (id) { body.appendChild(section(D.sections[id])); });
  }
  var ROW_KEYS_HIDDEN = { id: true, idName: true };
  function section(sec) {
    var box = el('div', 'section');
    box.appendChild(el('h3', null, sec.title));
    if (typeof sec.text === 'string') {
      box.appendChild(el(sec.style === 'note' ? 'p' : 'pre', sec.style === 'note' ? 'muted' : null, sec.text));
    }
    if (Array.isArray(sec.rows)) {
      if (sec.style === 'facts') {
        var table = el('table');
        sec.rows.forEach(function (row) {
          var tr = el('tr');
          tr.appendChild(el('td', 'k', row.label));
          tr.appendChild(el('td', null, valueText(row.value)));
          table.appendChild(tr);
        });
        box.appendChild(table);
      } else {
        sec.rows.forEach(function (row) {
          var block = el('div', 'row-block');
          if (sec.style === 'conversation') {
            block.appendChild(el('div', 'role', row.role));
            block.appendChild(el('pre', null, valueText(row.text)));
          } else {
            var t = el('table');
            Object.keys(row).forEach(function (key) {
              if (ROW_KEYS_HIDDEN[key]) return;
              var tr = el('tr');
              tr.appendChild(el('td', 'k', key));
              tr.appendChild(el('td', null, valueText(row[key])));
              t.appendChild(tr);
            });
            block.appendChild(t);
          }
          box.appendChild(block);
        });
      }
    }
    return box;
  }
  function valueText(v) {
    if (v === null || v === undefined) return '';
    return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  }

  // ── start ──────────────────────────────────────────────────────────────────────────────────────────
  fit();
  if (!readHash()) {
    if (D.startStop !== null && D.startStop !== undefined) moveToStop(D.startStop);
    else moveTo(0, null);
  }
  document.body.setAttribute('data-ready', 'true');
  document.body.setAttribute('data-ready-ms', String(Math.round(performance.now())));  // (bench_share.py reads it)
})();
