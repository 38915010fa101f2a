/* Comparison page controls: editable targets, sequence and metric switches, shareable URL state,
   light/dark charts. Works offline: Plotly is the site's own copy and the data is in the page.

   Every number and every word comes from SiteEngine (assets/engine.js, loaded first), the Python
   engine's arithmetic and the build's wording written in JavaScript, or from the page's data:
   interpolation, the metric formulas of the page's metric table (page.metrics, from
   site_builder/metrics.py), half-up rounding, a cell's text, note and winner, the controls', the
   live region's and the charts' words. This file only does DOM work: it reads the inputs and the
   URL, writes the engine's texts into the table, and hands Plotly its traces and the band. */
(function () {
  "use strict";

  var E = window.SiteEngine;
  var C = window.SiteCharts; // assets/charts.js: what every chart of the site shares
  var PLOTLY_SRC = document.currentScript && document.currentScript.getAttribute("data-plotly");

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  var charts = readJSON("chart-data");
  var page = readJSON("page-data");
  if (!charts || !page || !E || !C) { return; }

  var chartEl = document.getElementById("chart");
  var seqSelect = document.getElementById("sequence-select");
  var metricSelect = document.getElementById("metric-select");
  var live = document.getElementById("live");
  var panels = Array.prototype.slice.call(document.querySelectorAll(".sequence-panel"));

  // The metric table: table rows, chart switch, formats, which value wins, and the formulas.
  var METRICS = page.metrics;
  var metricByKey = {};
  METRICS.forEach(function (m) { metricByKey[m.key] = m; });
  var metricKeys = METRICS.map(function (m) { return m.key; });
  var DEFAULT_METRIC = metricByKey.throughput ? "throughput" : metricKeys[0];
  var labels = page.sides.map(function (side) { return side.label; });

  /* The default targets of a sequence in a view (the state's unless given): the page's own, or
     the view's (viewSequence). */
  function defaults(seq, view) { return shownSequence(seq, view).targets.slice(); }

  /* The URL's targets: as many as the page's own, or as the view's defaults. */
  function parseTargets(text, seq, view) {
    if (!text) { return null; }
    var values = text.split(",").map(Number);
    var counts = [page.sequences[seq].targets.length, defaults(seq, view).length];
    if (counts.indexOf(values.length) < 0 || values.some(function (v) { return !isFinite(v) || v <= 0; })) { return null; }
    return values;
  }

  function stateFromURL() {
    var params = new URLSearchParams(window.location.search);
    var asked = params.get("seq");
    var seq = asked !== null && Object.prototype.hasOwnProperty.call(page.sequences, asked) ? asked : page.default_sequence;
    var metric = metricKeys.indexOf(params.get("metric")) >= 0 ? params.get("metric") : DEFAULT_METRIC;
    var scales = logScales(params.get("log"));
    var view = viewFromURL(params);
    return { seq: seq, metric: metric, targets: parseTargets(params.get("t"), seq, view) || defaults(seq, view),
      logX: scales.logX, logY: scales.logY, constants: constantsFromURL(params), view: view };
  }

  // -- a reader's own view (view-filters.html): filters narrowing what each side pools, and the
  // TPOT percentile interactivity is read from; in the URL as f=key:value,… (a stub's filter
  // keys and values, "-" for not recorded) and basis=p90 or p99 ---------------------------------

  var VIEW = page.view || null;
  var viewCache = {};
  if (VIEW) {
    Object.keys(VIEW.points).forEach(function (seq) { VIEW.points[seq] = VIEW.points[seq].map(E.decodePoints); });
  }

  function allPoints(view) { return view.basis === "median" && Object.keys(view.filters).length === 0; }

  function viewField(key) {
    return VIEW ? VIEW.fields.filter(function (field) { return field.key === key; })[0] || null : null;
  }

  function viewFromURL(params) {
    var view = { filters: {}, basis: "median" };
    if (!VIEW) { return view; }
    (params.get("f") || "").split(",").forEach(function (part) {
      var at = part.indexOf(":"), field = viewField(part.slice(0, at)), token;
      try { token = decodeURIComponent(part.slice(at + 1)).toLowerCase(); } catch (e) { return; }
      var index = field ? field.tokens.map(function (t) { return t.toLowerCase(); }).indexOf(token) : -1;
      if (index >= 0) { view.filters[field.key] = index; }
    });
    var basis = params.get("basis");
    if (VIEW.bases.some(function (b) { return b.key === basis; })) { view.basis = basis; }
    return view;
  }

  function writeView(url, view) {
    var parts = VIEW ? VIEW.fields.filter(function (field) { return field.key in view.filters; }).map(function (field) {
      return field.key + ":" + encodeURIComponent(field.tokens[view.filters[field.key]]);
    }) : [];
    if (parts.length) { url.searchParams.set("f", parts.join(",")); } else { url.searchParams.delete("f"); }
    if (view.basis !== "median") { url.searchParams.set("basis", view.basis); } else { url.searchParams.delete("basis"); }
  }

  /* A sequence as a view shows it: the page's own with every point, else worked out from the
     points the view keeps — each side's knots, the band and the default targets (the author's,
     where pinned), with the engine's rules; made once a view. */
  function shownSequence(seq, view) {
    view = view || state.view;
    if (!VIEW || allPoints(view)) { return page.sequences[seq]; }
    var key = seq + "|" + view.basis + "|" + VIEW.fields.map(function (field) { return view.filters[field.key]; }).join(",");
    if (!viewCache[key]) { viewCache[key] = viewSequence(seq, VIEW.points[seq], view); }
    return viewCache[key];
  }

  function viewSequence(seq, points, view) {
    var kept = points.map(function (side) { return E.viewPoints(side, view, VIEW.configurations); });
    var sides = kept.map(function (side) { return E.sideKnots(side, page.quantities); });
    var band = E.bandOf(E.knotRange(sides[0]), E.knotRange(sides[1]));
    var pinned = VIEW.pinned.indexOf(seq) >= 0;
    return { targets: pinned ? page.sequences[seq].targets : E.defaultTargets(band),
      band: E.bandBounds(band), sides: sides, kept: kept,
      totals: points.map(function (side) { return side.interactivity.length; }) };
  }

  // -- a reader's own constants and axes in the URL: usd_hr and kw (one value for both sides, or
  // one a side, comma-separated), log (the axes on a logarithmic scale: x, y, "x,y" or none) -----

  var OWN_CONSTANTS = { usd_hr: ["usd_per_gpu_hour", 1], kw: ["watts_all_in", 1000] };

  /* A reader's number in the page's unit (kW → W): to 12 significant digits, so 1.73 kW is
     1730 W, not 1730.0000000000002, and equals the authored constant it was typed as. */
  function inPageUnit(value, scale) { return Number((value * scale).toPrecision(12)); }

  function authoredConstants() { return page.sides.map(function (side) { return JSON.parse(JSON.stringify(side.constants)); }); }

  function sideNumbers(text) {
    if (!text) { return null; }
    var values = text.split(",").map(Number);
    if (values.length === 1) { values = page.sides.map(function () { return values[0]; }); }
    if (values.length !== page.sides.length || values.some(function (v) { return !isFinite(v) || v <= 0; })) { return null; }
    return values;
  }

  function constantsFromURL(params) {
    var constants = authoredConstants();
    Object.keys(OWN_CONSTANTS).forEach(function (key) {
      var values = sideNumbers(params.get(key));
      if (!values) { return; }
      constants.forEach(function (c, i) { c[OWN_CONSTANTS[key][0]] = inPageUnit(values[i], OWN_CONSTANTS[key][1]); });
    });
    return constants;
  }

  function logScales(text) {
    if (text === null) { return { logX: true, logY: false }; }
    var axes = text.split(",");
    return { logX: axes.indexOf("x") >= 0, logY: axes.indexOf("y") >= 0 };
  }

  function writeOwnState(url, s) {
    var authored = authoredConstants();
    Object.keys(OWN_CONSTANTS).forEach(function (key) {
      var name = OWN_CONSTANTS[key][0], scale = OWN_CONSTANTS[key][1];
      var same = s.constants.every(function (c, i) { return c[name] === authored[i][name]; });
      if (same) { url.searchParams.delete(key); return; }
      url.searchParams.set(key, s.constants.map(function (c) { return c[name] === null ? "" : String(c[name] / scale); }).join(","));
    });
    if (s.logX && !s.logY) { url.searchParams.delete("log"); }
    else { url.searchParams.set("log", [s.logX ? "x" : "", s.logY ? "y" : ""].filter(Boolean).join(",") || "none"); }
  }

  function sameConstants(constants) {
    var authored = authoredConstants();
    return constants.every(function (c, i) {
      return Object.keys(c).every(function (name) { return c[name] === authored[i][name]; });
    });
  }

  var state = stateFromURL();
  var curvesBySeq = {};
  function buildCurves(constants) {
    Object.keys(page.sequences).forEach(function (seq) {
      curvesBySeq[seq] = shownSequence(seq).sides.map(function (side, i) {
        return new E.SideCurves(side, page.quantities, constants[i]);
      });
    });
  }
  buildCurves(state.constants);

  function sameTargets(a, b) {
    return a.length === b.length && a.every(function (v, i) { return v === b[i]; });
  }

  function urlFor(s) {
    var url = new URL(window.location.href);
    url.searchParams.set("seq", s.seq);
    url.searchParams.set("metric", s.metric);
    if (sameTargets(s.targets, defaults(s.seq, s.view))) { url.searchParams.delete("t"); }
    else { url.searchParams.set("t", s.targets.map(String).join(",")); }
    writeOwnState(url, s);
    writeView(url, s.view);
    return url.toString();
  }

  /* A history entry per change. A target edit's entry waits for idle time (pushState costs a few
     milliseconds, and nothing the reader sees depends on it), with those of the edits after it
     while none was written; any other change first writes the ones waiting, so the order holds. */
  var waitingEntries = [];

  function writeEntry(s) {
    try { window.history.pushState(s, "", urlFor(s)); } catch (e) { /* some file:// setups */ }
  }

  function flushEntries() {
    var entries = waitingEntries;
    waitingEntries = [];
    entries.forEach(writeEntry);
  }

  function pushState() { flushEntries(); writeEntry(state); }

  function pushStateWhenIdle() {
    waitingEntries.push(JSON.parse(JSON.stringify(state)));
    if (waitingEntries.length > 1) { return; } // already asked for
    if (window.requestIdleCallback) { window.requestIdleCallback(flushEntries, { timeout: 500 }); }
    else { afterPaint(flushEntries); }
  }

  /* Work the reader does not see (the URL, the live region) waits until the frame is painted. */
  function afterPaint(task) {
    if (window.requestAnimationFrame) { window.requestAnimationFrame(function () { window.setTimeout(task, 0); }); }
    else { window.setTimeout(task, 0); }
  }

  function announce(text) {
    if (!live) { return; }
    live.textContent = "";
    window.setTimeout(function () { live.textContent = text; }, 30);
  }

  // -- table -----------------------------------------------------------------------------------

  /* A metric's cell at one target: each side's text and note from the engine (E.cells), written
     as the build writes them (render/environment.py side_values). */
  function renderCell(td, metric, results) {
    var cells = E.cells(metric, results, page);
    while (td.firstChild) { td.removeChild(td.firstChild); }
    cells.forEach(function (cell, i) {
      var span = document.createElement("span");
      span.className = "side-value side-" + i + (cell.win ? " win" : "") + (cell.measured ? "" : " not-measured");
      if (cell.note) { span.title = cell.note; }
      var label = document.createElement("span");
      label.className = "side-label";
      label.textContent = labels[i] + ":";
      var value = document.createElement("span");
      value.className = "value";
      value.textContent = cell.text;
      span.appendChild(label);
      span.appendChild(document.createTextNode(" "));
      span.appendChild(value);
      if (cell.win) { C.winMark(span); }
      td.appendChild(span);
    });
  }

  function panelFor(seq) {
    for (var i = 0; i < panels.length; i += 1) {
      if (panels[i].getAttribute("data-sequence") === seq) { return panels[i]; }
    }
    return null;
  }

  function computeColumn(seq, target) {
    return curvesBySeq[seq].map(function (curves) { return E.metricsAt(curves, target, METRICS, page.sparse_ratio); });
  }

  var columns = []; // the shown sequence's results at each target: [column][side]

  function renderColumn(panel, col) {
    var results = columns[col];
    Array.prototype.forEach.call(panel.querySelectorAll("tbody tr[data-metric]"), function (row) {
      var metric = metricByKey[row.getAttribute("data-metric")];
      var cell = row.querySelectorAll("td")[col];
      if (metric && cell) { renderCell(cell, metric, results); }
    });
  }

  /* The table at the current targets. At the build's own targets the build's cells are already
     right (the same numbers, tests/browser hold them equal), so only the numbers are computed. */
  function renderTable(asBuilt) {
    columns = state.targets.map(function (t) { return computeColumn(state.seq, t); });
    var panel = panelFor(state.seq);
    if (!panel || asBuilt) { return; }
    showView(panel);
    fitColumns(panel, state.targets.length);
    state.targets.forEach(function (target, col) { renderColumn(panel, col); });
    var inputs = panel.querySelectorAll("input.target-input");
    Array.prototype.forEach.call(inputs, function (input, col) {
      if (col >= state.targets.length) { return; }
      if (Number(input.value) !== state.targets[col]) { input.value = String(state.targets[col]); }
      input.removeAttribute("aria-invalid");
    });
  }

  /* One edited target: that column of the table and the chart's diamonds, nothing else. */
  function retarget(col, value) {
    state.targets = state.targets.slice();
    state.targets[col] = value;
    columns = columns.slice();
    columns[col] = computeColumn(state.seq, value);
    var panel = panelFor(state.seq);
    if (panel) { renderColumn(panel, col); }
    moveTargetsNextFrame();
  }

  var moveTargetsNextFrame = C.inFrameAfter(function () { moveTargets(); });

  /* What a column says once painted; nothing where the column is gone by then (a sequence
     switched to one with fewer targets before the next frame). */
  function describeColumn(col) {
    return columns[col] ? E.columnSummary(state.targets[col], columns[col], page) : "";
  }

  /* A target's input in a table's column header, and its label. */
  function targetInput(panel, col, value) {
    var made = C.targetInput("target-" + panels.indexOf(panel) + "-" + col,
      E.words.targetLabel(col, panel.getAttribute("data-sequence")), value, function (edited) {
        retarget(col, edited);
        pushStateWhenIdle();
        afterPaint(function () { var said = describeColumn(col); if (said) { announce(said); } });
      }, announce);
    made[1].setAttribute("data-col", String(col));
    return made;
  }

  function makeInputs() {
    panels.forEach(function (panel) {
      var headers = panel.querySelectorAll("thead th.target");
      Array.prototype.forEach.call(headers, function (th, col) {
        var span = th.querySelector(".target-value");
        if (!span) { return; }
        span.replaceWith.apply(span, targetInput(panel, col, span.textContent));
      });
    });
  }

  /* A table with a column for each of `count` targets (a view's defaults may be fewer or more
     than the page's): columns added as copies of the last, the ones beyond hidden. */
  function fitColumns(panel, count) {
    var table = panel.querySelector("table.matched-table");
    if (!table) { return; }
    var heads = table.querySelectorAll("thead th.target");
    for (var col = heads.length; col < count && heads.length; col += 1) {
      var th = heads[heads.length - 1].cloneNode(false), made = targetInput(panel, col, "");
      th.setAttribute("data-target-index", String(col));
      th.appendChild(made[0]);
      th.appendChild(made[1]);
      th.appendChild(document.createTextNode(" tok/s/user"));
      heads[heads.length - 1].parentNode.appendChild(th);
      Array.prototype.forEach.call(table.querySelectorAll("tbody tr[data-metric]"), function (row) {
        row.appendChild(document.createElement("td"));
      });
    }
    Array.prototype.forEach.call(table.querySelectorAll("thead th.target"), function (th, col) { th.hidden = col >= count; });
    Array.prototype.forEach.call(table.querySelectorAll("tbody tr[data-metric]"), function (row) {
      Array.prototype.forEach.call(row.querySelectorAll("td"), function (td, col) { td.hidden = col >= count; });
    });
    table.style.setProperty("--targets", String(count));
  }

  // -- chart -----------------------------------------------------------------------------------

  /* The theme's colours (site.css: --fg, --grid, --bg, --side0, --side1), the same the table
     uses, read once per theme: a theme change forgets them and the traces built with them. */
  var themeColors = null;
  var traceCache = {};

  function theme() {
    if (!themeColors) { themeColors = C.readTheme(2); }
    return themeColors;
  }

  function forgetTheme() { themeColors = null; traceCache = {}; drawnView = null; }

  var plotlyText = C.plotlyText;

  var chartMetricByKey = {};
  charts.metrics.forEach(function (m) { chartMetricByKey[m.key] = m; });

  function themedLayout(layout) { return C.themedLayout(layout, theme()); }
  var plotConfig = C.plotConfig, fileName = C.fileName;

  /* Each side's frontier curve (sampled with the engine's spline) and measured points, for one
     sequence and metric: built once, reused while only the targets change. */
  function baseTraces(seq, key) {
    var cacheKey = seq + "|" + key;
    if (traceCache[cacheKey]) { return traceCache[cacheKey]; }
    var metric = metricByKey[key], shown = chartMetricByKey[key];
    var colors = theme();
    var names = page.quantities;
    var hasConcurrency = names.indexOf("concurrency") >= 0;
    var traces = [], view = shownSequence(seq);
    view.sides.forEach(function (side, i) {
      var label = plotlyText(labels[i]);
      var tracesNamed = charts.names[i];
      var color = colors.sides[i] || undefined;
      if ((side.knots || []).length) {
        var samples = E.curveSamples(curvesBySeq[seq][i], metric);
        traces.push({
          type: "scatter", mode: "lines", name: plotlyText(tracesNamed.curve), legendgroup: label,
          x: samples.x, y: samples.y, line: { width: 2.5, color: color },
          hovertemplate: "%{fullData.name}<br>" + charts.x_hover + " · " + shown.hover + // no data in a template
            "<extra></extra>",
          meta: { role: "curve", side: i }
        });
      }
      var xs = [], ys = [], sizes = [], opacities = [], details = [];
      var measured = charts.points[seq][i], curves = curvesBySeq[seq][i];
      var points = view.kept ? E.viewMeasuredPoints(view.kept[i], names) :
        E.measuredPoints(curves, measured, charts.point_columns);
      points.forEach(function (point, at) {
        var n = view.kept ? point.position : at, date = measured.date[n];
        xs.push(point.x);
        ys.push(E.evaluate(metric.formula, E.knownValues(curves, point.quantities)));
        sizes.push(point.onFrontier ? 9 : 7);
        opacities.push(point.onFrontier ? 1 : 0.35);
        details.push([
          plotlyText(charts.strings[measured.configuration[n]]),
          plotlyText(E.words.pointLine(hasConcurrency ? point.quantities.concurrency : null,
            date === null ? null : charts.strings[date])),
          point.onFrontier ? "" : "<br>" + plotlyText(E.words.offFrontier)
        ]);
      });
      traces.push({
        type: "scatter", mode: "markers", name: plotlyText(tracesNamed.points), legendgroup: label,
        x: xs, y: ys, customdata: details,
        marker: { size: sizes, opacity: opacities, color: color, line: { width: 1, color: colors.bg || "#ffffff" } },
        hovertemplate: "%{customdata[0]}<br>%{customdata[1]}<br>" + charts.x_hover + " · " + shown.hover +
          "%{customdata[2]}<extra></extra>",
        meta: { role: "points", side: i }
      });
    });
    traceCache[cacheKey] = traces;
    return traces;
  }

  /* The diamonds at the current targets, where the table's computation puts the chart metric
     (unrounded, as the curve); a side not measured at a target has none there. One ordinary
     marker trace per side, after the curves and points (so drawn over them, and under Plotly's
     hover label), with a hover of its own; always one per side, so a target edit restyles just
     those two traces and the curves are not drawn again. */
  function targetTraces() {
    var colors = theme(), shown = chartMetricByKey[state.metric];
    return labels.map(function (label, side) {
      var xs = [], ys = [], cols = [];
      state.targets.forEach(function (target, col) {
        var m = columns[col] && columns[col][side];
        var value = m && m.measured ? m.values[state.metric] : null;
        if (typeof value !== "number") { return; }
        xs.push(target);
        ys.push(value);
        cols.push(col);
      });
      var name = plotlyText(charts.names[side].targets);
      return {
        type: "scatter", mode: "markers", name: name, legendgroup: plotlyText(label), showlegend: false,
        x: xs, y: ys, customdata: cols,
        marker: { symbol: "diamond", size: 15, color: colors.sides[side], line: { width: 2, color: colors.fg } },
        // the name by reference, so a label holding "%{…}" is never read as a template field
        hovertemplate: "%{fullData.name}<br>" + charts.x_hover + " · " + shown.hover + "<extra></extra>",
        meta: { role: "targets", side: side }
      };
    });
  }

  function bandShapes() {
    var band = shownSequence(state.seq).band;
    return band ? [{
      type: "rect", name: "band", xref: "x", yref: "paper", x0: band[0], x1: band[1], y0: 0, y1: 1,
      line: { width: 0 }, fillcolor: "rgba(128,128,128,0.14)", layer: "below"
    }] : [];
  }

  var LOG_TICKS = C.LOG_TICKS;

  var NARROW = 600; // px: a phone's chart, whose axis title is set smaller to fit its height

  function chartLayout() {
    var layout = themedLayout(charts.layout);
    [["xaxis", state.logX], ["yaxis", state.logY]].forEach(function (axis) {
      var options = layout[axis[0]];
      options.type = axis[1] ? "log" : "linear";
      if (axis[1]) {
        delete options.rangemode;
        options.tickvals = LOG_TICKS;
      }
    });
    layout.yaxis.title = { text: chartMetricByKey[state.metric].axis };
    if (state.view.basis !== "median") { layout.xaxis.title = { text: E.viewWords.axis(basisLabel(state.view.basis)) }; }
    if (chartEl.clientWidth < NARROW) { layout.yaxis.title.font = { size: 12 }; }
    layout.yaxis.automargin = true; // the title and the ticks' digits never clipped
    layout.shapes = bandShapes();
    return layout;
  }

  var mainConfig = null;
  var drawnView = null; // the sequence, metric and axes the chart shows

  function drawnAs() { return state.seq + "|" + state.metric + "|" + state.targets.join(","); }

  function draw() {
    if (!window.Plotly || !chartEl || !chartMetricByKey[state.metric]) { return; }
    mainConfig = mainConfig || plotConfig(function () {
      return E.words.chartTitle(charts.title, state.seq, chartMetricByKey[state.metric].label);
    }, function () { return fileName(page.slug + "-" + state.seq + "-" + state.metric); });
    window.Plotly.react(chartEl, baseTraces(state.seq, state.metric).concat(targetTraces()), chartLayout(), mainConfig);
    drawnView = [state.seq, state.metric, state.logX, state.logY].join("|");
    chartEl.setAttribute("data-marks", state.targets.join(","));
    chartEl.setAttribute("data-drawn", drawnAs());
  }

  /* After a target edit: only the diamonds' traces change (or the whole chart, if it shows
     something else). */
  function moveTargets() {
    if (!window.Plotly || !chartEl) { return; }
    if (drawnView !== [state.seq, state.metric, state.logX, state.logY].join("|")) { draw(); return; }
    var traces = targetTraces(), first = chartEl.data.length - traces.length;
    window.Plotly.restyle(chartEl, {
      x: traces.map(function (t) { return t.x; }),
      y: traces.map(function (t) { return t.y; }),
      customdata: traces.map(function (t) { return t.customdata; })
    }, traces.map(function (t, i) { return first + i; }));
    chartEl.setAttribute("data-marks", state.targets.join(","));
    chartEl.setAttribute("data-drawn", drawnAs());
  }

  /* A figure built by the build (accuracy, sweeps), in the sides' colours: traces by meta.side,
     error bars and the SLA lines too. */
  function painted(trace, colors) {
    var copy = JSON.parse(JSON.stringify(trace));
    var meta = copy.meta || {};
    var color = colors[meta.side];
    if (!color) { return copy; }
    if (meta.role === "curve") {
      copy.line = copy.line || {};
      copy.line.color = color;
    }
    copy.marker = copy.marker || {};
    copy.marker.color = color;
    if (copy.error_x) { copy.error_x.color = color; }
    return copy;
  }

  function drawFigure(el, fig, title, drawnAs) {
    var colors = theme().sides;
    var layout = themedLayout(fig.layout);
    layout.shapes = (fig.layout.shapes || []).map(function (shape) {
      var copy = JSON.parse(JSON.stringify(shape));
      if (copy.meta && copy.line) { copy.line.color = colors[copy.meta.side]; }
      return copy;
    });
    window.Plotly.react(el, fig.data.map(function (t) { return painted(t, colors); }), layout,
      plotConfig(function () { return title; }, function () { return fileName(page.slug + "-" + drawnAs); }));
    el.setAttribute("data-drawn", drawnAs.replace(/-\d+$/, ""));
  }

  /* The accuracy chart (scores with 95% intervals) and the sweep charts (output tok/s against
     concurrency, one per workload), drawn as built. */
  function drawAccuracy() {
    var el = document.getElementById("accuracy-chart");
    if (!window.Plotly || !el || !charts.accuracy) { return; }
    drawFigure(el, charts.accuracy, E.words.chartTitle(charts.title, E.words.accuracy), "accuracy");
  }

  /* The sweep chart shows one workload at a time, the one its switch names. */
  function drawSweeps() {
    var el = document.getElementById("sweep-chart");
    var i = el ? Number(el.getAttribute("data-sweep")) : 0;
    if (!window.Plotly || !el || !(charts.sweeps || [])[i]) { return; }
    drawFigure(el, charts.sweeps[i], E.words.chartTitle(charts.title, el.getAttribute("data-title") || E.words.sweep),
      "sweep-" + (i + 1));
  }

  /* The latency chart (sections/latency-view.html) shows one workload and metric at a time, the
     one its switch names; its caption's words are the build's (the option's data-caption). It is
     drawn only while its fold is open: Plotly sizes a chart from its container, which a closed
     fold does not lay out. */
  var latencyFold = document.getElementById("latency-fold");

  function drawLatency() {
    var el = document.getElementById("latency-chart");
    var i = el ? Number(el.getAttribute("data-view")) : 0;
    if (!window.Plotly || !el || !(charts.latency || [])[i] || (latencyFold && !latencyFold.open)) { return; }
    drawFigure(el, latencyFigure(charts.latency[i]), E.words.chartTitle(charts.title, el.getAttribute("data-title")),
      "latency-" + (i + 1));
  }

  /* A latency chart as the reader's filters show it: each built trace (a side's statistic) with
     the values of the points the filters keep (engine.js latencySeries: the build's rule), left
     out where they keep none; the concurrency axis ticked at the concurrencies drawn. The
     interactivity basis does not narrow it: it reads latency against concurrency. */
  function latencyFigure(fig) {
    var shown = fig.view;
    if (!VIEW || !shown || !VIEW.points[shown.sequence] || Object.keys(state.view.filters).length === 0) { return fig; }
    var filters = { filters: state.view.filters, basis: "median" };
    var series = VIEW.points[shown.sequence].map(function (side) {
      return E.latencySeries(E.viewPoints(side, filters, VIEW.configurations), shown.metric, shown.scale);
    });
    var data = fig.data.map(function (trace) {
      var line = series[trace.meta.side][trace.meta.statistic], copy = JSON.parse(JSON.stringify(trace));
      copy.x = line.x;
      copy.y = line.y;
      copy.text = line.text.map(plotlyText);
      copy.customdata = line.customdata;
      return copy;
    }).filter(function (trace) { return trace.x.length > 0; });
    var ticks = [];
    data.forEach(function (trace) { trace.x.forEach(function (x) { if (ticks.indexOf(x) < 0) { ticks.push(x); } }); });
    ticks.sort(function (a, b) { return a - b; });
    var layout = JSON.parse(JSON.stringify(fig.layout));
    layout.xaxis.tickvals = ticks;
    layout.xaxis.ticktext = ticks.map(String);
    return { data: data, layout: layout };
  }

  /* The latency tables (sections/latency-view.html) as the reader's filters show them: each
     table's rows worked out again from the points the filters keep (engine.js latencyRows, the
     build's rule), in the table's unit and decimals; the build's rows where there is no filter. */
  var builtLatencyRows = [];

  function latencyValue(td, value, decimals, absent) {
    td.className = "num";
    if (value === null) {
      var outer = document.createElement("span"), inner = document.createElement("span");
      outer.className = "not-measured";
      inner.className = "value";
      inner.textContent = absent;
      outer.appendChild(inner);
      td.appendChild(outer);
    } else {
      td.textContent = E.grouped(E.fixed(value, decimals));
    }
  }

  function showLatencyTables() {
    var tables = document.querySelectorAll("table.latency-table[data-metric]");
    Array.prototype.forEach.call(tables, function (table, n) {
      var body = table.tBodies[0];
      if (builtLatencyRows[n] === undefined) { builtLatencyRows[n] = body.innerHTML; }
      var seq = table.getAttribute("data-sequence"), metric = table.getAttribute("data-metric");
      var chart = (charts.latency || []).filter(function (fig) {
        return fig.view && fig.view.sequence === seq && fig.view.metric === metric;
      })[0];
      if (!VIEW || !chart || !VIEW.points[seq] || Object.keys(state.view.filters).length === 0) {
        if (body.innerHTML !== builtLatencyRows[n]) { body.innerHTML = builtLatencyRows[n]; } // the build's own markup
        return;
      }
      var filters = { filters: state.view.filters, basis: "median" };
      var kept = VIEW.points[seq].map(function (side) { return E.viewPoints(side, filters, VIEW.configurations); });
      var stats = table.getAttribute("data-statistics").split(",").map(function (stat) { return E.LATENCY_STATISTICS.indexOf(stat); });
      var decimals = Number(table.getAttribute("data-decimals"));
      body.textContent = "";
      E.latencyRows(kept, metric, chart.view.scale).forEach(function (row) {
        var tr = body.insertRow(), th = document.createElement("th");
        th.scope = "row";
        th.className = "num";
        th.textContent = String(row.concurrency);
        tr.appendChild(th);
        row.sides.forEach(function (values) {
          stats.forEach(function (s) {
            latencyValue(tr.insertCell(), values ? values[s] : null, decimals, values ? "not measured" : "not tested");
          });
        });
      });
    });
  }

  function wireLatency() {
    var select = document.getElementById("latency-view");
    if (!select) { return; }
    select.addEventListener("change", function () {
      var el = document.getElementById("latency-chart");
      var caption = document.getElementById("latency-caption");
      var option = select.options[select.selectedIndex];
      el.setAttribute("data-view", select.value);
      el.setAttribute("data-title", option.text);
      caption.textContent = option.getAttribute("data-caption");
      drawLatency();
      announce(caption.textContent);
    });
  }
  wireLatency();

  /* The fold opens by itself when the URL asks for what it shows: a fragment naming something in
     it, or a view reading interactivity from a p90 or p99 TPOT (the tail latencies it charts).
     Opened, its chart is drawn (again) at the width it now has. */
  function openLatencyFold() {
    var target = null;
    try { target = window.location.hash ? document.getElementById(decodeURIComponent(window.location.hash.slice(1))) : null; } catch (e) { /* a malformed fragment names nothing */ }
    if (latencyFold && !latencyFold.open && ((target && latencyFold.contains(target)) || state.view.basis !== "median")) {
      latencyFold.open = true;
    }
  }
  if (latencyFold) {
    latencyFold.addEventListener("toggle", function () {
      var el = document.getElementById("latency-chart");
      if (!latencyFold.open || !window.Plotly) { return; }
      drawLatency();
      if (el.data) { window.Plotly.Plots.resize(el); }
    });
    window.addEventListener("hashchange", openLatencyFold);
  }

  var workloadSelect = document.getElementById("sweep-workload");
  if (workloadSelect) {
    workloadSelect.addEventListener("change", function () {
      var el = document.getElementById("sweep-chart");
      var caption = document.getElementById("sweep-caption");
      var name = workloadSelect.options[workloadSelect.selectedIndex].text;
      el.setAttribute("data-sweep", workloadSelect.value);
      el.setAttribute("data-title", name);
      caption.textContent = E.words.sweepCaption(name, caption.getAttribute("data-sides"));
      drawSweeps();
      announce(E.words.sweepShown(name));
    });
  }

  // -- switches --------------------------------------------------------------------------------

  function showPanels() {
    panels.forEach(function (panel) { panel.hidden = panel.getAttribute("data-sequence") !== state.seq; });
  }

  function syncControls() {
    if (seqSelect) { seqSelect.value = state.seq; }
    if (metricSelect) { metricSelect.value = state.metric; }
  }

  function render(asBuilt) {
    syncControls();
    showPanels();
    renderTable(asBuilt && allPoints(state.view) && sameTargets(state.targets, defaults(state.seq)));
    showViewStatus();
    draw();
  }

  function labelOf(key) { return metricByKey[key] ? metricByKey[key].label : key; }

  /* The reader's own constants: inputs (own-constants.html) showing the state's, the curves
     and the chart's traces made again with them, the log boxes showing the state's axes. */
  function ownInputs() { return Array.prototype.slice.call(document.querySelectorAll("#own-constants input[data-constant]")); }

  function applyOwnState() {
    buildCurves(state.constants);
    traceCache = {};
    drawnView = null;
    ownInputs().forEach(function (input) {
      var value = state.constants[Number(input.getAttribute("data-side"))][input.getAttribute("data-constant")];
      input.value = value === null ? "" : String(value / Number(input.getAttribute("data-scale")));
      input.removeAttribute("aria-invalid");
    });
    [["log-x", "logX"], ["log-y", "logY"]].forEach(function (scale) {
      var box = document.getElementById(scale[0]);
      if (box) { box.checked = state[scale[1]]; }
    });
  }

  function wireOwnConstants() {
    var box = document.getElementById("own-constants");
    if (!box) { return; }
    box.hidden = false;
    ownInputs().forEach(function (input) {
      input.addEventListener("change", function () {
        var value = Number(input.value);
        if (!input.value || !isFinite(value) || value <= 0) { input.setAttribute("aria-invalid", "true"); return; }
        input.removeAttribute("aria-invalid");
        state.constants = JSON.parse(JSON.stringify(state.constants));
        state.constants[Number(input.getAttribute("data-side"))][input.getAttribute("data-constant")] =
          inPageUnit(value, Number(input.getAttribute("data-scale")));
        applyOwnState();
        renderTable(false);
        draw();
        pushState();
      });
    });
    var reset = document.getElementById("own-constants-reset");
    if (reset) {
      reset.addEventListener("click", function () {
        state.constants = authoredConstants();
        applyOwnState();
        renderTable(false);
        draw();
        pushState();
      });
    }
    applyOwnState();
  }

  // -- a reader's own view: its controls, the panel and status it changes ----------------------

  function basisLabel(key) {
    var found = VIEW ? VIEW.bases.filter(function (b) { return b.key === key; })[0] : null;
    return found ? found.label : key;
  }

  function viewControls() { return Array.prototype.slice.call(document.querySelectorAll("#view-filters select")); }

  function syncViewControls() {
    viewControls().forEach(function (select) {
      var key = select.getAttribute("data-filter");
      select.value = key === null ? state.view.basis : key in state.view.filters ? String(state.view.filters[key]) : "";
    });
  }

  /* A panel as the view shows it: its heading's band, and its table, or why it has none. */
  function showView(panel) {
    var seq = panel.getAttribute("data-sequence"), shown = shownSequence(seq), own = shown === page.sequences[seq];
    var heading = panel.querySelector("h3");
    if (!heading) { return; }
    if (!heading.hasAttribute("data-built")) { heading.setAttribute("data-built", heading.textContent); }
    heading.textContent = own ? heading.getAttribute("data-built") : E.viewWords.band(seq, shown.band);
    var wrap = panel.querySelector(".table-wrap");
    var note = panel.querySelector(".view-no-match");
    if (!note) {
      note = document.createElement("p");
      note.className = "view-no-match";
      heading.parentNode.insertBefore(note, heading.nextSibling);
    }
    var text = "";
    if (!own && !shown.band) {
      text = E.viewWords.noMatch(seq, curvesBySeq[seq].map(function (curves, i) { return { label: labels[i], range: curves.range }; }));
    } else if (!own && !wrap) { text = E.viewWords.noTable; }
    note.textContent = text;
    note.hidden = !text;
    if (wrap) { wrap.hidden = !own && !shown.band; }
    // the build's words on what the sides pool, and why there is no table: true of every point only
    Array.prototype.forEach.call(panel.querySelectorAll(".no-overlap, .pooled"), function (p) { p.hidden = !own; });
  }

  /* What the view keeps on the shown sequence, and how many points lack its percentile. */
  function showViewStatus() {
    var status = document.getElementById("view-status");
    if (!status) { return; }
    var shown = shownSequence(state.seq);
    if (!shown.kept) { status.textContent = ""; return; }
    var sides = shown.kept.map(function (kept, i) {
      return { label: labels[i], kept: kept.positions.length, total: shown.totals[i] };
    });
    var lacking = shown.kept.reduce(function (sum, kept) { return sum + kept.lacking; }, 0);
    status.textContent = E.viewWords.status(state.seq, sides, lacking, basisLabel(state.view.basis));
  }

  /* The state's view: targets the reader has not set follow its defaults; curves, traces and
     the chart made again. */
  function applyView(view) {
    var own = !sameTargets(state.targets, defaults(state.seq));
    state.view = view;
    if (!own) { state.targets = defaults(state.seq); }
    buildCurves(state.constants);
    traceCache = {};
    drawnView = null;
    syncViewControls();
    render(false);
    drawLatency();
    showLatencyTables();
    pushState();
  }

  function wireView() {
    var box = document.getElementById("view-filters");
    if (!box || !VIEW) { return; }
    box.hidden = false;
    viewControls().forEach(function (select) {
      select.addEventListener("change", function () {
        var key = select.getAttribute("data-filter"), view = JSON.parse(JSON.stringify(state.view));
        if (key === null) { view.basis = select.value; }
        else if (select.value === "") { delete view.filters[key]; }
        else { view.filters[key] = Number(select.value); }
        applyView(view);
        afterPaint(function () { announce(E.viewWords.shown); });
      });
    });
    var reset = document.getElementById("view-reset");
    if (reset) {
      reset.addEventListener("click", function () {
        applyView({ filters: {}, basis: "median" });
        afterPaint(function () { announce(E.viewWords.reset); });
      });
    }
    syncViewControls();
  }

  if (seqSelect) {
    seqSelect.addEventListener("change", function () {
      state = { seq: seqSelect.value, metric: state.metric, targets: defaults(seqSelect.value), logX: state.logX, logY: state.logY,
        constants: state.constants, view: state.view };
      render();
      pushState();
      announce(E.words.sequenceShown(state.seq));
    });
  }
  if (metricSelect) {
    metricSelect.addEventListener("change", function () {
      state.metric = metricSelect.value;
      draw();
      pushState();
      announce(E.words.metricShown(labelOf(state.metric)));
    });
  }
  [["log-x", "logX", "interactivity"], ["log-y", "logY", "metric"]].forEach(function (scale) {
    var box = document.getElementById(scale[0]);
    if (!box) { return; }
    box.checked = state[scale[1]];
    box.addEventListener("change", function () {
      state[scale[1]] = box.checked;
      draw();
      pushState();
      announce(E.words.axisShown(scale[2], box.checked));
    });
  });
  window.addEventListener("popstate", function () {
    waitingEntries = []; // the reader went back before the last edits' entries were written
    state = stateFromURL();
    applyOwnState();
    syncViewControls();
    render();
    drawLatency();
    showLatencyTables();
    announce(E.words.viewShown(state.seq, labelOf(state.metric)));
  });
  /* A theme change (the system's, or a theme switch setting a class or data attribute on <html>)
     repaints every chart in the new colours. */
  var redraw = function () { forgetTheme(); draw(); drawAccuracy(); drawSweeps(); drawLatency(); };
  if (window.matchMedia) {
    var scheme = window.matchMedia("(prefers-color-scheme: dark)");
    if (scheme.addEventListener) { scheme.addEventListener("change", redraw); }
    else if (scheme.addListener) { scheme.addListener(redraw); }
  }
  if (window.MutationObserver) {
    new MutationObserver(redraw).observe(document.documentElement, {
      attributes: true, attributeFilter: ["class", "data-theme", "data-color-scheme", "style"]
    });
  }

  /* The chart library (1.2 MB of script to evaluate) loads after the page has: the text and the
     table are there at once; the charts follow, the interactivity chart first, then each other
     chart in a task of its own so the page stays responsive. */
  function loadPlotly(done) { C.loadPlotly(PLOTLY_SRC, done); }

  function drawCharts() {
    var tasks = [draw, drawAccuracy, drawSweeps, drawLatency];
    (function next() {
      var task = tasks.shift();
      if (!task) { document.documentElement.setAttribute("data-charts", "drawn"); return; }
      task();
      window.setTimeout(next, 0);
    })();
  }

  makeInputs();
  wireOwnConstants();
  wireView();
  openLatencyFold();
  showLatencyTables();
  render(sameConstants(state.constants));
  try { window.history.replaceState(state, "", window.location.href); } catch (e) { /* file:// */ }
  document.documentElement.setAttribute("data-ready", "true");
  if (document.readyState === "complete") { loadPlotly(drawCharts); }
  else { window.addEventListener("load", function () { loadPlotly(drawCharts); }); }
})();
