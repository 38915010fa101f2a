/* Comparison page controls: editable targets, sequence and metric switches, shareable URL state,
   light/dark charts. Works offline: Plotly is the site's own copy and the data is in the page.

   The interpolation below is the Python engine's (site_builder/engine/spline.py): monotone cubic
   Hermite with Steffen tangents inside and d3's one-sided rule at the ends, no value outside the
   knots. Metrics derive from the interpolated throughput exactly as in site_builder/engine/compare.py,
   and numbers are rounded half-up on their shortest decimal form, as site_builder/numbers.py does. */
(function () {
  "use strict";

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  // -- numbers ---------------------------------------------------------------------------------

  /* Half-up rounding on the shortest decimal representation (what Python's repr gives). */
  function fixed(value, decimals) {
    var text = String(value);
    if (/e/i.test(text)) { return value.toFixed(decimals); }
    var negative = text.charAt(0) === "-";
    if (negative) { text = text.slice(1); }
    var parts = text.split(".");
    var whole = parts[0], frac = parts[1] || "";
    while (frac.length <= decimals) { frac += "0"; }
    var keep = whole + frac.slice(0, decimals);
    var digits = keep.split("").map(Number);
    if (Number(frac.charAt(decimals)) >= 5) {
      var i = digits.length - 1;
      while (i >= 0) {
        if (digits[i] === 9) { digits[i] = 0; i -= 1; } else { digits[i] += 1; break; }
      }
      if (i < 0) { digits.unshift(1); }
    }
    var joined = digits.join("");
    var intPart = joined.slice(0, joined.length - decimals) || "0";
    var fracPart = decimals > 0 ? "." + joined.slice(joined.length - decimals) : "";
    intPart = intPart.replace(/^0+(?=\d)/, "");
    var result = intPart + fracPart;
    var isZero = /^[0.]+$/.test(result);
    return (negative && !isZero ? "-" : "") + result;
  }

  function roundHalfUp(value) { return Number(fixed(value, 0)); }

  // -- interpolation (same as the Python engine) ------------------------------------------------

  function sign(v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

  function steffenTangents(xs, ys) {
    var n = xs.length, i;
    if (n < 2) { return xs.map(function () { return 0; }); }
    var secants = [];
    for (i = 0; i < n - 1; i += 1) { secants.push((ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])); }
    if (n === 2) { return [secants[0], secants[0]]; }
    var t = new Array(n).fill(0);
    for (i = 1; i < n - 1; i += 1) {
      var h0 = xs[i] - xs[i - 1], h1 = xs[i + 1] - xs[i];
      var s0 = secants[i - 1], s1 = secants[i];
      var p = (s0 * h1 + s1 * h0) / (h0 + h1);
      t[i] = (sign(s0) + sign(s1)) * Math.min(Math.abs(s0), Math.abs(s1), 0.5 * Math.abs(p));
    }
    t[0] = (3 * secants[0] - t[1]) / 2;
    t[n - 1] = (3 * secants[n - 2] - t[n - 2]) / 2;
    return t;
  }

  function Spline(xs, ys) {
    this.xs = xs; this.ys = ys; this.t = steffenTangents(xs, ys);
  }
  Spline.prototype.value = function (x) {
    var xs = this.xs, ys = this.ys, n = xs.length;
    if (!n || x < xs[0] || x > xs[n - 1]) { return null; }
    for (var k = 0; k < n; k += 1) { if (x === xs[k]) { return ys[k]; } }
    var i = 0;
    while (i < n - 2 && x > xs[i + 1]) { i += 1; }
    var h = xs[i + 1] - xs[i], s = (x - xs[i]) / h, s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * ys[i] + (s3 - 2 * s2 + s) * h * this.t[i] +
      (-2 * s3 + 3 * s2) * ys[i + 1] + (s3 - s2) * h * this.t[i + 1];
  };

  function sideCurves(side) {
    var xs = side.knots.map(function (k) { return k[0]; });
    return {
      side: side,
      range: xs.length ? [xs[0], xs[xs.length - 1]] : null,
      throughput: new Spline(xs, side.knots.map(function (k) { return k[1]; })),
      concurrency: new Spline(xs, side.knots.map(function (k) { return k[2]; }))
    };
  }

  function metricsAt(curves, target) {
    var tput = curves.throughput.value(target);
    if (tput === null) { return { measured: false, range: curves.range }; }
    var conc = curves.concurrency.value(target);
    var usd = curves.side.usd_per_gpu_hour, watts = curves.side.watts_all_in;
    return {
      measured: true,
      throughput: tput,
      cost: usd === null ? null : usd * 1e6 / (3600 * tput),
      per_mw: watts === null ? null : tput * 1e6 / watts,
      concurrency: roundHalfUp(conc),
      concurrency_raw: conc
    };
  }

  // -- page state ------------------------------------------------------------------------------

  var charts = readJSON("chart-data");
  var page = readJSON("page-data");
  if (!charts || !page) { return; }

  var chartEl = document.getElementById("chart");
  var seqSelect = document.getElementById("sequence-select");
  var metricSelect = document.getElementById("metric-select");
  var live = document.getElementById("live");
  var panels = Array.prototype.slice.call(document.querySelectorAll(".sequence-panel"));
  var metricKeys = charts.metrics.map(function (m) { return m.key; });
  var metricLabels = {};
  charts.metrics.forEach(function (m) { metricLabels[m.key] = m.label; });

  // Display rules (decimals, prefix, which value is better, the tie margin) come from the Python
  // metric table with the page, so the table reads the same whether Python or this script filled it.
  var CELL_FORMAT = page.formats;
  var TIE = page.tie;

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
    var seq = charts.sequences.indexOf(params.get("seq")) >= 0 ? params.get("seq") : charts.default_sequence;
    var metric = metricKeys.indexOf(params.get("metric")) >= 0 ? params.get("metric") : "throughput";
    return { seq: seq, metric: metric, targets: parseTargets(params.get("t"), seq) || defaults(seq) };
  }

  var state = stateFromURL();
  var curvesBySeq = {};
  Object.keys(page.sequences).forEach(function (seq) {
    curvesBySeq[seq] = page.sequences[seq].sides.map(sideCurves);
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

  function winnerOf(values, better) {
    if (!better || values[0] === null || values[1] === null || values[0] === undefined || values[1] === undefined) { return -1; }
    var a = values[0], b = values[1];
    if (Math.abs(a - b) <= TIE * Math.max(Math.abs(a), Math.abs(b))) { return -1; }
    if (better === "higher") { return a > b ? 0 : 1; }
    return a < b ? 0 : 1;
  }

  function notMeasuredNote(label, m) {
    if (!m.range) { return "not measured at this interactivity: " + label + " has no measured points on this workload"; }
    return "not measured at this interactivity: " + label + "'s frontier spans " + m.range[0].toFixed(1) +
      "–" + m.range[1].toFixed(1) + " tok/s/user";
  }

  function renderCell(td, metric, results) {
    var format = CELL_FORMAT[metric];
    var values = results.map(function (m) { return m.measured ? m[metric] : null; });
    var bothMeasured = results.every(function (m) { return m.measured; });
    var winner = bothMeasured ? winnerOf(values, format.better) : -1;
    while (td.firstChild) { td.removeChild(td.firstChild); }
    results.forEach(function (m, i) {
      var span = document.createElement("span");
      span.className = "side-value side-" + i + (winner === i ? " win" : "") + (m.measured ? "" : " not-measured");
      span.setAttribute("data-side", String(i));
      var label = document.createElement("span");
      label.className = "side-label";
      label.textContent = page.labels[i] + ":";
      var value = document.createElement("span");
      value.className = "value";
      if (!m.measured) {
        value.textContent = "not measured";
        span.title = notMeasuredNote(page.labels[i], m);
      } else if (values[i] === null) {
        value.textContent = "n/a";
        span.title = "unavailable: no constant for this GPU";
      } else {
        value.textContent = format.prefix + fixed(values[i], format.decimals);
      }
      span.appendChild(label);
      span.appendChild(document.createTextNode(" "));
      span.appendChild(value);
      if (winner === i) {
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

  function computeColumn(seq, target) {
    return curvesBySeq[seq].map(function (curves) { return metricsAt(curves, target); });
  }

  function renderTable() {
    var panel = panelFor(state.seq);
    if (!panel) { return; }
    var rows = panel.querySelectorAll("tbody tr[data-metric]");
    state.targets.forEach(function (target, col) {
      var results = computeColumn(state.seq, target);
      Array.prototype.forEach.call(rows, function (row) {
        var cells = row.querySelectorAll("td");
        if (cells[col]) { renderCell(cells[col], row.getAttribute("data-metric"), results); }
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
    var parts = results.map(function (m, i) {
      if (!m.measured) { return page.labels[i] + " not measured"; }
      return page.labels[i] + " " + fixed(m.throughput, 1) + " tok/s/GPU" +
        (m.cost === null ? "" : " at $" + fixed(m.cost, 3) + " per million tokens");
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

  function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

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

  function targetTraces(template) {
    var traces = [];
    var results = state.targets.map(function (t) { return computeColumn(state.seq, t); });
    template.forEach(function (trace) {
      var side = trace.meta.side;
      var xs = [], ys = [], texts = [];
      state.targets.forEach(function (target, col) {
        var m = results[col][side];
        if (!m.measured) { return; }
        var y = state.metric === "throughput" ? m.throughput : state.metric === "cost" ? m.cost :
          state.metric === "per_mw" ? m.per_mw : m.concurrency;
        if (y === null) { return; }
        xs.push(target); ys.push(y);
        texts.push(page.labels[side] + " at " + target + " tok/s/user");
      });
      var copy = JSON.parse(JSON.stringify(trace));
      copy.x = xs; copy.y = ys; copy.hovertext = texts;
      traces.push(copy);
    });
    return traces;
  }

  function draw() {
    if (!window.Plotly || !chartEl) { return; }
    var fig = charts.figures[state.seq][state.metric];
    var base = fig.data.filter(function (t) { return !(t.meta && t.meta.role === "targets"); });
    var markers = fig.data.filter(function (t) { return t.meta && t.meta.role === "targets"; });
    window.Plotly.react(chartEl, base.concat(targetTraces(markers)), themedLayout(fig.layout), {
      responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"]
    });
    chartEl.setAttribute("data-drawn", state.seq + "|" + state.metric + "|" + state.targets.join(","));
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
      announce("Chart shows " + metricLabels[state.metric] + ".");
    });
  }
  window.addEventListener("popstate", function () {
    state = stateFromURL();
    render();
    announce("Showing " + state.seq + ", " + metricLabels[state.metric] + ".");
  });
  if (window.matchMedia) {
    var scheme = window.matchMedia("(prefers-color-scheme: dark)");
    if (scheme.addEventListener) { scheme.addEventListener("change", draw); }
  }

  makeInputs();
  render();
  try { window.history.replaceState(state, "", window.location.href); } catch (e) { /* file:// */ }
  document.documentElement.setAttribute("data-ready", "true");
})();
