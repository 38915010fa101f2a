/* Comparison page controls: editable targets, sequence and metric switches, shareable URL state,
   light/dark charts. Works offline: Plotly is the site's own copy and the data is in the page.

   Every number comes from SiteEngine (assets/engine.js, loaded first), the Python engine's
   arithmetic written in JavaScript: interpolation, the metric formulas of the page's metric table
   (page.metrics, from site_builder/metrics.py), half-up rounding, the winner of a cell and the
   "not measured" wording. This file only wires them to the table, the chart and the URL. */
(function () {
  "use strict";

  var E = window.SiteEngine;
  var PLOTLY_SRC = document.currentScript && document.currentScript.getAttribute("data-plotly");

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  var charts = readJSON("chart-data");
  var page = readJSON("page-data");
  if (!charts || !page || !E) { return; }

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
  var TIE = page.tie;
  var CONSTANT_WORDS = { usd_per_gpu_hour: "cost per GPU-hour", watts_all_in: "all-in power per GPU" };

  function defaults(seq) { return page.sequences[seq].targets.slice(); }

  function parseTargets(text, seq) {
    if (!text) { return null; }
    var values = text.split(",").map(Number);
    var expected = page.sequences[seq].targets.length;
    if (values.length !== expected || values.some(function (v) { return !isFinite(v) || v <= 0; })) { return null; }
    return values;
  }

  function stateFromURL() {
    var params = new URLSearchParams(window.location.search);
    var asked = params.get("seq");
    var seq = asked !== null && Object.prototype.hasOwnProperty.call(page.sequences, asked) ? asked : page.default_sequence;
    var metric = metricKeys.indexOf(params.get("metric")) >= 0 ? params.get("metric") : DEFAULT_METRIC;
    return { seq: seq, metric: metric, targets: parseTargets(params.get("t"), seq) || defaults(seq), logX: true, logY: false };
  }

  var state = stateFromURL();
  var curvesBySeq = {};
  Object.keys(page.sequences).forEach(function (seq) {
    curvesBySeq[seq] = page.sequences[seq].sides.map(function (side) { return new E.SideCurves(side, page.quantities); });
  });

  function sameTargets(a, b) {
    return a.length === b.length && a.every(function (v, i) { return v === b[i]; });
  }

  function urlFor(s) {
    var url = new URL(window.location.href);
    url.searchParams.set("seq", s.seq);
    url.searchParams.set("metric", s.metric);
    if (sameTargets(s.targets, defaults(s.seq))) { url.searchParams.delete("t"); }
    else { url.searchParams.set("t", s.targets.map(String).join(",")); }
    return url.toString();
  }

  /* A history entry per change. After a target edit it waits for the paint (pushState costs a few
     milliseconds); any other change first writes the one still waiting, so the order holds. */
  var waitingEntry = null;

  function writeEntry(s) {
    try { window.history.pushState(s, "", urlFor(s)); } catch (e) { /* some file:// setups */ }
  }

  function flushEntry() {
    if (waitingEntry) { var s = waitingEntry; waitingEntry = null; writeEntry(s); }
  }

  function pushState() { flushEntry(); writeEntry(state); }

  function pushStateAfterPaint() {
    flushEntry();
    waitingEntry = JSON.parse(JSON.stringify(state));
    afterPaint(flushEntry);
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

  // Why a value is unavailable ("no … cost per GPU-hour for …") depends only on the side's
  // constants, so the build's own wording, in the rendered table's tooltips, is kept for reuse.
  var unavailableNotes = {};
  panels.forEach(function (panel) {
    Array.prototype.forEach.call(panel.querySelectorAll("tbody tr[data-metric]"), function (row) {
      Array.prototype.forEach.call(row.querySelectorAll(".side-value"), function (span) {
        var value = span.querySelector(".value"), side = /\bside-(\d)\b/.exec(span.className);
        if (span.title && value && side && value.textContent === "n/a" && !/\bnot-measured\b/.test(span.className)) {
          unavailableNotes[row.getAttribute("data-metric") + "|" + side[1]] = span.title;
        }
      });
    });
  });

  function unavailableNote(metric, side, lacking) {
    var kept = unavailableNotes[metric.key + "|" + side];
    if (kept) { return kept; }
    if (!lacking || !lacking.length) { return "unavailable"; }
    if (lacking[0] === "deployment") {
      return "between two deployments (or a concurrency that rises): no deployment ran a concurrency here; the provenance lists the measured ones";
    }
    if (lacking[0] === "gpu_count") { return "a measured point on this frontier has no GPU count"; }
    return "no " + (CONSTANT_WORDS[lacking[0]] || lacking[0]) + " for " + page.labels[side] + "'s GPU";
  }

  /* "12345.6" → "12,345.6", as the build writes the table (numbers.grouped). */
  function grouped(text) {
    var parts = text.split(".");
    parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return parts.join(".");
  }

  function valueText(metric, value) {
    return metric.prefix + grouped(E.fixed(value, metric.decimals));
  }

  function renderCell(td, metric, results) {
    var values = results.map(function (m) { return m.measured ? m.values[metric.key] : null; });
    var bothMeasured = results.every(function (m) { return m.measured; });
    var best = bothMeasured ? E.winner(values[0], values[1], metric.better, TIE) : null;
    while (td.firstChild) { td.removeChild(td.firstChild); }
    results.forEach(function (m, i) {
      var span = document.createElement("span");
      span.className = "side-value side-" + i + (best === i ? " win" : "") + (m.measured ? "" : " not-measured");
      var label = document.createElement("span");
      label.className = "side-label";
      label.textContent = page.labels[i] + ":";
      var value = document.createElement("span");
      value.className = "value";
      if (!m.measured) {
        value.textContent = "not measured";
        span.title = E.notMeasuredText(page.labels[i], m.range);
      } else if (values[i] === null && metric.key === "concurrency" && m.measuredConcurrency) {
        value.textContent = measuredText(m.measuredConcurrency);
        span.title = unavailableNote(metric, i, m.missing[metric.key]);
      } else if (values[i] === null) {
        value.textContent = "n/a";
        span.title = unavailableNote(metric, i, m.missing[metric.key]);
      } else {
        value.textContent = valueText(metric, values[i]) + (metric.key === "throughput" && m.sparse ? " (sparse data)" : "");
      }
      span.appendChild(label);
      span.appendChild(document.createTextNode(" "));
      span.appendChild(value);
      if (best === i) {
        var mark = document.createElement("span");
        mark.className = "win-mark";
        mark.setAttribute("aria-hidden", "true");
        mark.textContent = "▲";
        var hidden = document.createElement("span");
        hidden.className = "visually-hidden";
        hidden.textContent = " (better)";
        span.appendChild(document.createTextNode(" "));
        span.appendChild(mark);
        span.appendChild(hidden);
      }
      td.appendChild(span);
    });
  }

  function panelFor(seq) {
    for (var i = 0; i < panels.length; i += 1) {
      if (panels[i].getAttribute("data-sequence") === seq) { return panels[i]; }
    }
    return null;
  }

  /* The knots a target sits between (or on), and whether the value rests on a sparse stretch:
     a two-point frontier, or knots more than page.sparse_ratio apart in throughput (compare.py). */
  function bracketsOf(curves, target) {
    var knots = curves.side.knots || [];
    for (var i = 0; i < knots.length; i += 1) {
      if (knots[i][0] === target) { return [i]; }
      if (knots[i][0] > target) { return i > 0 ? [i - 1, i] : []; }
    }
    return [];
  }

  function computeColumn(seq, target) {
    var tput = page.quantities.indexOf("throughput") + 1, conc = page.quantities.indexOf("concurrency") + 1;
    return curvesBySeq[seq].map(function (curves) {
      var m = E.metricsAt(curves, target, METRICS);
      var knots = curves.side.knots || [], gpus = curves.side.gpus || [];
      var at = bracketsOf(curves, target);
      if (m.measured && at.length === 2) {
        var low = knots[at[0]][tput], high = knots[at[1]][tput];
        m.sparse = knots.length === 2 || Math.max(low, high) / Math.min(low, high) > page.sparse_ratio;
        m.measuredConcurrency = at.map(function (k) { return [knots[k][conc], gpus[k]]; });
      }
      return m;
    });
  }

  /* "measured: 2,253 (22 GPUs), 5 (34 GPUs)": the concurrencies of the two deployments a target
     lies between, where no deployment ran one in between (render.metric_cells). */
  function measuredText(pairs) {
    return "measured: " + pairs.map(function (p) {
      return grouped(String(p[0])) + " (" + (p[1] ? p[1] + " GPUs" : "GPU count not recorded") + ")";
    }).join(", ");
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
    state.targets.forEach(function (target, col) { renderColumn(panel, col); });
    var inputs = panel.querySelectorAll("input.target-input");
    Array.prototype.forEach.call(inputs, function (input, col) {
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
    moveTargets();
  }

  function describeColumn(col) {
    var target = state.targets[col];
    var results = columns[col];
    var throughput = metricByKey.throughput, cost = metricByKey.cost;
    var parts = results.map(function (m, i) {
      if (!m.measured) { return page.labels[i] + " not measured"; }
      var text = page.labels[i];
      if (throughput && m.values.throughput !== null) {
        text += " " + E.fixed(m.values.throughput, throughput.decimals) + " tok/s/GPU";
      }
      if (cost && m.values.cost !== null) {
        text += " at " + valueText(cost, m.values.cost) + " per million tokens";
      }
      return text;
    });
    return "At " + target + " tok/s/user: " + parts.join("; ") + ".";
  }

  function makeInputs() {
    panels.forEach(function (panel) {
      var seq = panel.getAttribute("data-sequence");
      var headers = panel.querySelectorAll("thead th.target");
      Array.prototype.forEach.call(headers, function (th, col) {
        var span = th.querySelector(".target-value");
        if (!span) { return; }
        var id = "target-" + panels.indexOf(panel) + "-" + col;
        var label = document.createElement("label");
        label.className = "visually-hidden";
        label.setAttribute("for", id);
        label.textContent = "Target " + (col + 1) + " interactivity for " + seq + " (tok/s/user)";
        var input = document.createElement("input");
        input.type = "number";
        input.id = id;
        input.className = "target-input";
        input.min = "0.1";
        input.step = "any";
        input.inputMode = "decimal";
        input.value = span.textContent;
        input.setAttribute("data-col", String(col));
        span.replaceWith(label, input);
        input.addEventListener("change", function () {
          var value = Number(input.value);
          if (!input.value || !isFinite(value) || value <= 0) {
            input.setAttribute("aria-invalid", "true");
            announce("Enter a positive interactivity in tokens per second per user.");
            return;
          }
          input.removeAttribute("aria-invalid");
          retarget(col, value);
          pushStateAfterPaint();
          afterPaint(function () { announce(describeColumn(col)); });
        });
      });
    });
  }

  // -- chart -----------------------------------------------------------------------------------

  /* The theme's colours (site.css: --fg, --grid, --bg, --side0, --side1), the same the table
     uses, read once per theme: a theme change forgets them and the traces built with them. */
  var themeColors = null;
  var traceCache = {};

  function theme() {
    if (!themeColors) {
      /* site.css writes each colour as light-dark(light, dark), which only a real colour
         property resolves: read each through a hidden probe's computed colour. */
      var probe = document.createElement("span");
      probe.hidden = true;
      document.body.appendChild(probe);
      var read = function (name) { probe.style.color = "var(" + name + ")"; return getComputedStyle(probe).color; };
      themeColors = { fg: read("--fg"), grid: read("--grid"), bg: read("--bg"), sides: [read("--side0"), read("--side1")] };
      probe.remove();
    }
    return themeColors;
  }

  function forgetTheme() { themeColors = null; traceCache = {}; drawnView = null; }

  function escapeHTML(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }

  var chartMetricByKey = {};
  charts.metrics.forEach(function (m) { chartMetricByKey[m.key] = m; });

  /* The layout in the theme's colours, opaque (a PNG export keeps the page's background). */
  function themedLayout(layout) {
    var copy = JSON.parse(JSON.stringify(layout));
    var colors = theme();
    copy.paper_bgcolor = colors.bg || "#ffffff";
    copy.plot_bgcolor = colors.bg || "#ffffff";
    copy.font = { color: colors.fg, family: "system-ui, sans-serif" };
    ["xaxis", "yaxis"].forEach(function (axis) {
      copy[axis] = copy[axis] || {};
      copy[axis].gridcolor = colors.grid;
      copy[axis].linecolor = colors.grid;
      copy[axis].zerolinecolor = colors.grid;
      copy[axis].tickformat = copy[axis].tickformat || ",~g"; // digits grouped: 12,000
    });
    return copy;
  }

  /* A PNG of the chart as shown, titled and on the page's background (the toolbar's camera). */
  function downloadPNG(gd, title, filename) {
    var layout = JSON.parse(JSON.stringify(gd.layout));
    var margin = layout.margin || {};
    layout.margin = { l: margin.l, r: margin.r, b: margin.b, t: (margin.t || 16) + 44 };
    layout.title = { text: escapeHTML(title), x: 0.01, xanchor: "left", y: 0.98, yanchor: "top", font: { size: 16 } };
    if (layout.legend) { layout.legend.y = 1.02; layout.legend.yanchor = "bottom"; }
    var data = gd === chartEl ? gd.data.concat(markTraces()) : gd.data;
    window.Plotly.downloadImage({ data: data, layout: layout }, {
      format: "png", filename: filename, width: gd.clientWidth || 800, height: gd.clientHeight || 450, scale: 2
    });
  }

  /* Plotly's toolbar without anything that leaves the site (no cloud, no logo link, no lasso),
     its camera replaced by one that exports a titled, opaque PNG. */
  function plotConfig(title, filename) {
    return {
      responsive: true,
      displaylogo: false,
      showSendToCloud: false,
      showEditInChartStudio: false,
      showLink: false,
      modeBarButtonsToRemove: ["lasso2d", "select2d", "toImage", "sendDataToCloud"],
      modeBarButtonsToAdd: [{
        name: "download-png",
        title: "Download this chart as a PNG",
        icon: window.Plotly.Icons.camera,
        click: function (gd) { downloadPNG(gd, title(), filename()); }
      }]
    };
  }

  function fileName(text) {
    return String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "chart";
  }

  /* Each side's frontier curve (sampled with the engine's spline) and measured points, for one
     sequence and metric: built once, reused while only the targets change. */
  function baseTraces(seq, key) {
    var cacheKey = seq + "|" + key;
    if (traceCache[cacheKey]) { return traceCache[cacheKey]; }
    var metric = metricByKey[key], shown = chartMetricByKey[key];
    var colors = theme();
    var names = page.quantities;
    var hasConcurrency = names.indexOf("concurrency") >= 0;
    var traces = [];
    page.sequences[seq].sides.forEach(function (side, i) {
      var label = escapeHTML(page.labels[i]);
      var tracesNamed = charts.names[i];
      var color = colors.sides[i] || undefined;
      if ((side.knots || []).length) {
        var samples = E.curveSamples(curvesBySeq[seq][i], metric);
        traces.push({
          type: "scatter", mode: "lines", name: escapeHTML(tracesNamed.curve), legendgroup: label,
          x: samples.x, y: samples.y, line: { width: 2.5, color: color },
          hovertemplate: label + " frontier<br>" + charts.x_hover + " · " + shown.hover + "<extra></extra>",
          meta: { role: "curve", side: i }
        });
      }
      var xs = [], ys = [], sizes = [], opacities = [], details = [];
      // a point on the frontier is the side's next knot; one off it, the next of the `off` columns
      var measured = charts.points[seq][i], knots = side.knots || [], onKnot = 0, offPoint = 0;
      (measured ? measured.frontier : []).forEach(function (flag, n) {
        var onFrontier = flag === 1, x, quantities = {};
        if (onFrontier) {
          var knot = knots[onKnot];
          onKnot += 1;
          x = knot[0];
          names.forEach(function (name, q) { quantities[name] = knot[q + 1]; });
        } else {
          var point = {};
          charts.point_columns.forEach(function (name, c) { point[name] = measured.off[c][offPoint]; });
          offPoint += 1;
          x = point.interactivity;
          names.forEach(function (name) { quantities[name] = name in point ? point[name] : null; });
          if ("gpus" in point && names.indexOf("users_per_gpu") >= 0) {
            // concurrency ÷ GPUs, as points.py defines it (charts.point_columns)
            quantities.users_per_gpu = point.gpus ? point.concurrency / point.gpus : null;
          }
        }
        var date = measured.date[n];
        xs.push(x);
        ys.push(E.evaluate(metric.formula, E.knownValues(side, quantities)));
        sizes.push(onFrontier ? 9 : 7);
        opacities.push(onFrontier ? 1 : 0.35);
        details.push([
          escapeHTML(charts.strings[measured.configuration[n]]),
          (hasConcurrency ? "concurrency " + quantities.concurrency.toLocaleString("en-US") : "") +
            (date === null ? "" : " · " + escapeHTML(charts.strings[date])),
          onFrontier ? "" : "<br>(not on the frontier)"
        ]);
      });
      traces.push({
        type: "scatter", mode: "markers", name: escapeHTML(tracesNamed.points), legendgroup: label,
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
     (unrounded, as the curve); a side not measured at a target has none there. They are small
     SVGs over the chart (.chart-marks), placed with a transform from Plotly's own axis scales,
     so a target edit moves them without redrawing the chart: the compositor does it within a
     frame. Each says its value on hover; a PNG export draws them as a trace. */
  var SVG = "http://www.w3.org/2000/svg";
  var marksEl = null;
  var marks = []; // [side][col] -> {el, title}

  function targetValues() {
    return page.labels.map(function (label, side) {
      return state.targets.map(function (target, col) {
        var m = columns[col] && columns[col][side];
        var value = m && m.measured ? m.values[state.metric] : null;
        return value === undefined ? null : value;
      });
    });
  }

  function makeMarks() {
    if (!marksEl) {
      marksEl = document.createElement("div");
      marksEl.className = "chart-marks";
      marksEl.setAttribute("aria-hidden", "true"); // the table holds these values
      chartEl.parentNode.appendChild(marksEl);
    }
    while (marksEl.firstChild) { marksEl.removeChild(marksEl.firstChild); }
    var colors = theme();
    marks = page.labels.map(function (label, side) {
      return state.targets.map(function () {
        var svg = document.createElementNS(SVG, "svg");
        svg.setAttribute("class", "target-mark");
        svg.setAttribute("width", "22");
        svg.setAttribute("height", "22");
        svg.setAttribute("viewBox", "-11 -11 22 22");
        var title = document.createElementNS(SVG, "title");
        var path = document.createElementNS(SVG, "path");
        path.setAttribute("d", "M0,-8L8,0L0,8L-8,0Z");
        path.setAttribute("fill", colors.sides[side] || "#808080");
        path.setAttribute("stroke", colors.fg || "#000000");
        path.setAttribute("stroke-width", "2");
        svg.appendChild(title);
        svg.appendChild(path);
        marksEl.appendChild(svg);
        return { el: svg, title: title };
      });
    });
  }

  /* Put each diamond where its target and value are on the chart's current axes (after every
     Plotly draw, zoom or resize, and after a target edit); hide it outside the plot area. */
  function placeMarks() {
    var full = chartEl && chartEl._fullLayout;
    if (!full || !full.xaxis || !full.yaxis || !marks.length) { return; }
    var xa = full.xaxis, ya = full.yaxis, shown = chartMetricByKey[state.metric];
    var values = targetValues();
    marks.forEach(function (row, side) {
      row.forEach(function (mark, col) {
        var target = state.targets[col], value = values[side][col];
        var px = value === null ? NaN : xa._offset + xa.c2p(target);
        var py = value === null ? NaN : ya._offset + ya.c2p(value);
        var inside = isFinite(px) && isFinite(py) && px >= xa._offset - 1 && px <= xa._offset + xa._length + 1 &&
          py >= ya._offset - 1 && py <= ya._offset + ya._length + 1;
        mark.el.style.visibility = inside ? "visible" : "hidden";
        if (!inside) { return; }
        mark.el.style.transform = "translate(" + (px - 11).toFixed(1) + "px," + (py - 11).toFixed(1) + "px)";
        mark.title.textContent = page.labels[side] + " at " + target + " tok/s/user: " +
          plainNumber(metricByKey[state.metric], value) + (shown.unit ? " " + shown.unit : "");
      });
    });
    chartEl.setAttribute("data-marks", state.targets.join(","));
  }

  /* A value as the hover writes it: digits grouped, the metric's decimals (half-up). */
  function plainNumber(metric, value) {
    var parts = E.fixed(value, metric.decimals).split(".");
    parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return parts.join(".");
  }

  /* The diamonds as traces, for a PNG export (an image has no overlay). */
  function markTraces() {
    var colors = theme(), values = targetValues();
    return page.labels.map(function (label, side) {
      return {
        type: "scatter", mode: "markers", showlegend: false, hoverinfo: "skip",
        x: state.targets.slice(), y: values[side],
        marker: { symbol: "diamond", size: 14, color: colors.sides[side], line: { width: 2, color: colors.fg } }
      };
    });
  }

  function bandShapes() {
    var band = page.sequences[state.seq].band;
    return band ? [{
      type: "rect", name: "band", xref: "x", yref: "paper", x0: band[0], x1: band[1], y0: 0, y1: 1,
      line: { width: 0 }, fillcolor: "rgba(128,128,128,0.14)", layer: "below"
    }] : [];
  }

  /* Ticks of a logarithmic axis: 1, 2 and 5 of each decade, written out (not "2, 3 … 100, 2"). */
  var LOG_TICKS = [];
  for (var decade = -4; decade <= 8; decade += 1) {
    [1, 2, 5].forEach(function (digit) { LOG_TICKS.push(Number((digit * Math.pow(10, decade)).toPrecision(1))); });
  }

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
    layout.shapes = bandShapes();
    return layout;
  }

  var mainConfig = null;
  var drawnView = null; // the sequence, metric and axes the chart shows
  var listening = false;

  function drawnAs() { return state.seq + "|" + state.metric + "|" + state.targets.join(","); }

  function draw() {
    if (!window.Plotly || !chartEl || !chartMetricByKey[state.metric]) { return; }
    mainConfig = mainConfig || plotConfig(function () {
      return charts.title + " · " + state.seq + " · " + chartMetricByKey[state.metric].label;
    }, function () { return fileName(page.slug + "-" + state.seq + "-" + state.metric); });
    var view = [state.seq, state.metric, state.logX, state.logY].join("|");
    if (!marks.length || marks[0].length !== state.targets.length || view !== drawnView) { makeMarks(); }
    window.Plotly.react(chartEl, baseTraces(state.seq, state.metric), chartLayout(), mainConfig);
    if (!listening && chartEl.on) { chartEl.on("plotly_afterplot", placeMarks); listening = true; }
    drawnView = view;
    placeMarks();
    chartEl.setAttribute("data-drawn", drawnAs());
  }

  /* After a target edit: only the diamonds move (or the whole chart, if it shows something else). */
  function moveTargets() {
    if (!window.Plotly || !chartEl) { return; }
    if (drawnView !== [state.seq, state.metric, state.logX, state.logY].join("|")) { draw(); return; }
    placeMarks();
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
    drawFigure(el, charts.accuracy, charts.title + " · accuracy", "accuracy");
  }

  /* The sweep chart shows one workload at a time, the one its switch names. */
  function drawSweeps() {
    var el = document.getElementById("sweep-chart");
    var i = el ? Number(el.getAttribute("data-sweep")) : 0;
    if (!window.Plotly || !el || !(charts.sweeps || [])[i]) { return; }
    drawFigure(el, charts.sweeps[i], charts.title + " · " + (el.getAttribute("data-title") || "sweep"), "sweep-" + (i + 1));
  }

  var workloadSelect = document.getElementById("sweep-workload");
  if (workloadSelect) {
    workloadSelect.addEventListener("change", function () {
      var el = document.getElementById("sweep-chart");
      var caption = document.getElementById("sweep-caption");
      var name = workloadSelect.options[workloadSelect.selectedIndex].text;
      el.setAttribute("data-sweep", workloadSelect.value);
      el.setAttribute("data-title", name);
      caption.textContent = name + ": output tok/s of " + caption.getAttribute("data-sides") + " at each tested concurrency";
      drawSweeps();
      announce("Sweep chart shows the " + name + " workload.");
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
    renderTable(asBuilt && sameTargets(state.targets, defaults(state.seq)));
    draw();
  }

  function labelOf(key) { return metricByKey[key] ? metricByKey[key].label : key; }

  if (seqSelect) {
    seqSelect.addEventListener("change", function () {
      state = { seq: seqSelect.value, metric: state.metric, targets: defaults(seqSelect.value), logX: state.logX, logY: state.logY };
      render();
      pushState();
      announce("Showing the " + state.seq + " workload: table and chart updated.");
    });
  }
  if (metricSelect) {
    metricSelect.addEventListener("change", function () {
      state.metric = metricSelect.value;
      draw();
      pushState();
      announce("Chart shows " + labelOf(state.metric) + ".");
    });
  }
  [["log-x", "logX", "interactivity"], ["log-y", "logY", "metric"]].forEach(function (scale) {
    var box = document.getElementById(scale[0]);
    if (!box) { return; }
    box.checked = state[scale[1]];
    box.addEventListener("change", function () {
      state[scale[1]] = box.checked;
      draw();
      announce("The " + scale[2] + " axis is now " + (box.checked ? "logarithmic." : "linear."));
    });
  });
  window.addEventListener("popstate", function () {
    waitingEntry = null; // the reader went back before the last edit's entry was written
    var scales = { logX: state.logX, logY: state.logY };
    state = stateFromURL();
    state.logX = scales.logX;
    state.logY = scales.logY;
    render();
    announce("Showing " + state.seq + ", " + labelOf(state.metric) + ".");
  });
  /* A theme change (the system's, or a theme switch setting a class or data attribute on <html>)
     repaints every chart in the new colours. */
  var redraw = function () { forgetTheme(); draw(); drawAccuracy(); drawSweeps(); };
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
  function loadPlotly(done) {
    if (window.Plotly) { done(); return; }
    if (!PLOTLY_SRC) { return; }
    var script = document.createElement("script");
    script.src = PLOTLY_SRC;
    script.onload = done;
    document.head.appendChild(script);
  }

  function drawCharts() {
    var tasks = [draw, drawAccuracy, drawSweeps];
    (function next() {
      var task = tasks.shift();
      if (!task) { document.documentElement.setAttribute("data-charts", "drawn"); return; }
      task();
      window.setTimeout(next, 0);
    })();
  }

  makeInputs();
  render(true);
  try { window.history.replaceState(state, "", window.location.href); } catch (e) { /* file:// */ }
  document.documentElement.setAttribute("data-ready", "true");
  if (document.readyState === "complete") { loadPlotly(drawCharts); }
  else { window.addEventListener("load", function () { loadPlotly(drawCharts); }); }
})();
