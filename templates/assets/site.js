/* Comparison page controls: editable targets, sequence and metric switches, shareable URL state,
   light/dark charts. Works offline: Plotly is the site's own copy and the data is in the page.

   Every number comes from SiteEngine (assets/engine.js, loaded first), the Python engine's
   arithmetic written in JavaScript: interpolation, the metric formulas of the page's metric table
   (page.metrics, from site_builder/metrics.py), half-up rounding, the winner of a cell and the
   "not measured" wording. This file only wires them to the table, the chart and the URL. */
(function () {
  "use strict";

  var E = window.SiteEngine;

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
  var SIDE_FALLBACK = ["#2f6fd6", "#c25e0c"];
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
    return { seq: seq, metric: metric, targets: parseTargets(params.get("t"), seq) || defaults(seq) };
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

  function pushState() {
    try { window.history.pushState(state, "", urlFor(state)); } catch (e) { /* some file:// setups */ }
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
        var value = span.querySelector(".value");
        if (span.title && value && value.textContent === "n/a" && !/\bnot-measured\b/.test(span.className)) {
          unavailableNotes[row.getAttribute("data-metric") + "|" + span.getAttribute("data-side")] = span.title;
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
      span.setAttribute("data-side", String(i));
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

  function renderTable() {
    var panel = panelFor(state.seq);
    if (!panel) { return; }
    var rows = panel.querySelectorAll("tbody tr[data-metric]");
    state.targets.forEach(function (target, col) {
      var results = computeColumn(state.seq, target);
      Array.prototype.forEach.call(rows, function (row) {
        var metric = metricByKey[row.getAttribute("data-metric")];
        var cells = row.querySelectorAll("td");
        if (metric && cells[col]) { renderCell(cells[col], metric, results); }
      });
    });
    var inputs = panel.querySelectorAll("input.target-input");
    Array.prototype.forEach.call(inputs, function (input, col) {
      if (Number(input.value) !== state.targets[col]) { input.value = String(state.targets[col]); }
      input.removeAttribute("aria-invalid");
    });
  }

  function describeColumn(col) {
    var target = state.targets[col];
    var results = computeColumn(state.seq, target);
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
          state.targets = state.targets.slice();
          state.targets[col] = value;
          renderTable();
          draw();
          pushState();
          announce(describeColumn(col));
        });
      });
    });
  }

  // -- chart -----------------------------------------------------------------------------------

  /* A theme colour as the browser resolves it now: the stylesheet writes each as
     light-dark(light, dark), which only a real colour property resolves. */
  var colorProbe = null;
  function cssVar(name) {
    if (!colorProbe) {
      colorProbe = document.createElement("span");
      colorProbe.hidden = true;
      document.body.appendChild(colorProbe);
    }
    colorProbe.style.color = "var(" + name + ")";
    return getComputedStyle(colorProbe).color;
  }

  function escapeHTML(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }

  /* Python's format(x, "g"), as the build writes a target in hover text (67, 60.5, 1e+06): six
     significant digits of the exact binary value, ties to even, trailing zeros dropped. */
  function general(x) {
    if (!isFinite(x)) { return x !== x ? "nan" : x > 0 ? "inf" : "-inf"; }
    if (x === 0) { return 1 / x < 0 ? "-0" : "0"; }
    var exact = Math.abs(x).toExponential(99).split("e"); // the first 100 digits of the exact value
    var digits = exact[0].replace(".", ""), exponent = Number(exact[1]);
    var kept = digits.slice(0, 6), next = digits.charAt(6);
    var tie = next === "5" && !/[1-9]/.test(digits.slice(7));
    if (next > "5" || (next === "5" && (!tie || Number(kept.charAt(5)) % 2 === 1))) {
      kept = String(Number(kept) + 1);
      if (kept.length > 6) { kept = kept.slice(0, 6); exponent += 1; }
    }
    var text;
    if (exponent >= -4 && exponent < 6) {
      text = exponent >= 0 ? kept.slice(0, exponent + 1) + "." + kept.slice(exponent + 1)
        : "0." + new Array(-exponent).join("0") + kept;
      text = text.replace(/0+$/, "").replace(/\.$/, "");
    } else {
      var mantissa = (kept.charAt(0) + "." + kept.slice(1)).replace(/0+$/, "").replace(/\.$/, "");
      var magnitude = String(Math.abs(exponent));
      text = mantissa + "e" + (exponent < 0 ? "-" : "+") + (magnitude.length < 2 ? "0" : "") + magnitude;
    }
    return (x < 0 ? "-" : "") + text;
  }

  function themedLayout(layout) {
    var copy = JSON.parse(JSON.stringify(layout));
    var fg = cssVar("--fg"), grid = cssVar("--grid");
    copy.paper_bgcolor = "rgba(0,0,0,0)";
    copy.plot_bgcolor = "rgba(0,0,0,0)";
    copy.font = { color: fg, family: "system-ui, sans-serif" };
    ["xaxis", "yaxis"].forEach(function (axis) {
      copy[axis].gridcolor = grid;
      copy[axis].linecolor = grid;
      copy[axis].zerolinecolor = grid;
    });
    return copy;
  }

  /* A trace's colour from its role: the theme's --side0 / --side1, read now (light or dark). */
  function painted(trace, colors) {
    var copy = JSON.parse(JSON.stringify(trace));
    var meta = copy.meta || {};
    var color = colors[meta.side];
    if (!color) { return copy; }
    if (meta.role === "curve") {
      copy.line = copy.line || {};
      copy.line.color = color;
    } else {
      copy.marker = copy.marker || {};
      copy.marker.color = color;
    }
    return copy;
  }

  function targetTemplate(side) {
    var label = page.labels[side];
    return {
      type: "scatter",
      mode: "markers",
      name: label + " at targets",
      legendgroup: label,
      showlegend: false,
      marker: { symbol: "diamond", size: 12, line: { width: 2, color: "#000000" } },
      hoverinfo: "text+y",
      meta: { role: "targets", side: side }
    };
  }

  /* The diamonds at the current targets, recomputed here: y is the chart metric's value there
     (unrounded, as the curve). Like the build, a side with no measured target has no trace. */
  function targetTraces(templates) {
    var key = state.metric;
    var results = state.targets.map(function (t) { return computeColumn(state.seq, t); });
    var traces = [];
    page.labels.forEach(function (label, side) {
      var template = null;
      templates.forEach(function (t) { if (t.meta.side === side) { template = t; } });
      var xs = [], ys = [], texts = [];
      state.targets.forEach(function (target, col) {
        var m = results[col][side];
        if (!m || !m.measured) { return; }
        xs.push(target);
        ys.push(m.values[key] === undefined ? null : m.values[key]);
        texts.push(escapeHTML(label) + " at " + general(target) + " tok/s/user");
      });
      if (!xs.length) { return; }
      var trace = JSON.parse(JSON.stringify(template || targetTemplate(side)));
      trace.x = xs; trace.y = ys; trace.hovertext = texts;
      traces.push(trace);
    });
    return traces;
  }

  function draw() {
    if (!window.Plotly || !chartEl) { return; }
    var figures = charts.figures[state.seq];
    var fig = figures && figures[state.metric];
    if (!fig) { return; }
    var colors = [0, 1].map(function (side) { return cssVar("--side" + side) || SIDE_FALLBACK[side]; });
    var isTargets = function (t) { return t.meta && t.meta.role === "targets"; };
    var base = fig.data.filter(function (t) { return !isTargets(t); });
    var templates = fig.data.filter(isTargets);
    var traces = base.concat(targetTraces(templates)).map(function (t) { return painted(t, colors); });
    window.Plotly.react(chartEl, traces, themedLayout(fig.layout), {
      responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"]
    });
    chartEl.setAttribute("data-drawn", state.seq + "|" + state.metric + "|" + state.targets.join(","));
  }

  /* The accuracy chart (scores with 95% intervals): drawn as built, in the sides' colours. */
  function drawAccuracy() {
    var el = document.getElementById("accuracy-chart");
    var fig = charts.accuracy;
    if (!window.Plotly || !el || !fig) { return; }
    var colors = [0, 1].map(function (side) { return cssVar("--side" + side) || SIDE_FALLBACK[side]; });
    var traces = fig.data.map(function (t) {
      var copy = painted(t, colors);
      if (copy.error_x && copy.meta) { copy.error_x.color = colors[copy.meta.side]; }
      return copy;
    });
    window.Plotly.react(el, traces, themedLayout(fig.layout), {
      responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"]
    });
    el.setAttribute("data-drawn", "accuracy");
  }

  /* The sweep charts (output tok/s against concurrency, one per workload), in the sides' colours;
     the dashed lines (each side's largest concurrency within the SLA) in its side's colour. */
  function drawSweeps() {
    if (!window.Plotly || !charts.sweeps) { return; }
    var colors = [0, 1].map(function (side) { return cssVar("--side" + side) || SIDE_FALLBACK[side]; });
    charts.sweeps.forEach(function (fig, i) {
      var el = document.getElementById("sweep-chart-" + (i + 1));
      if (!el) { return; }
      var layout = themedLayout(fig.layout);
      layout.shapes = (fig.layout.shapes || []).map(function (shape) {
        var copy = JSON.parse(JSON.stringify(shape));
        copy.line.color = colors[copy.meta.side];
        return copy;
      });
      window.Plotly.react(el, fig.data.map(function (t) { return painted(t, colors); }), layout, {
        responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"]
      });
      el.setAttribute("data-drawn", "sweep");
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

  function render() {
    syncControls();
    showPanels();
    renderTable();
    draw();
  }

  function labelOf(key) { return metricByKey[key] ? metricByKey[key].label : key; }

  if (seqSelect) {
    seqSelect.addEventListener("change", function () {
      state = { seq: seqSelect.value, metric: state.metric, targets: defaults(seqSelect.value) };
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
  window.addEventListener("popstate", function () {
    state = stateFromURL();
    render();
    announce("Showing " + state.seq + ", " + labelOf(state.metric) + ".");
  });
  var redraw = function () { draw(); drawAccuracy(); drawSweeps(); };
  window.addEventListener("site-theme", redraw);  /* the header's light/dark switch */
  if (window.matchMedia) {
    var scheme = window.matchMedia("(prefers-color-scheme: dark)");
    if (scheme.addEventListener) { scheme.addEventListener("change", redraw); }
    else if (scheme.addListener) { scheme.addListener(redraw); }
  }

  makeInputs();
  render();
  drawAccuracy();
  drawSweeps();
  try { window.history.replaceState(state, "", window.location.href); } catch (e) { /* file:// */ }
  document.documentElement.setAttribute("data-ready", "true");
})();
