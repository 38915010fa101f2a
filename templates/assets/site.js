/* Comparison page: chart drawing with metric and sequence switches, light/dark theme.
   No network: Plotly is the site's own copy, data is embedded in the page. */
(function () {
  "use strict";

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  var charts = readJSON("chart-data");
  if (!charts) { return; }
  var chartEl = document.getElementById("chart");
  var seqSelect = document.getElementById("sequence-select");
  var metricSelect = document.getElementById("metric-select");
  var panels = Array.prototype.slice.call(document.querySelectorAll(".sequence-panel"));
  var metricKeys = charts.metrics.map(function (m) { return m.key; });

  var params = new URLSearchParams(window.location.search);
  var state = {
    seq: charts.sequences.indexOf(params.get("seq")) >= 0 ? params.get("seq") : charts.default_sequence,
    metric: metricKeys.indexOf(params.get("metric")) >= 0 ? params.get("metric") : "throughput"
  };

  function cssVar(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
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
    copy.hoverlabel = { font: { family: "system-ui, sans-serif" } };
    return copy;
  }

  function draw() {
    if (!window.Plotly || !chartEl) { return; }
    var fig = charts.figures[state.seq][state.metric];
    window.Plotly.react(chartEl, fig.data, themedLayout(fig.layout), {
      responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"]
    });
  }

  function showPanels() {
    panels.forEach(function (panel) { panel.hidden = panel.getAttribute("data-sequence") !== state.seq; });
  }

  function syncControls() {
    if (seqSelect) { seqSelect.value = state.seq; }
    if (metricSelect) { metricSelect.value = state.metric; }
  }

  function writeURL() {
    var url = new URL(window.location.href);
    url.searchParams.set("seq", state.seq);
    url.searchParams.set("metric", state.metric);
    try { window.history.replaceState(null, "", url.toString()); } catch (e) { /* file:// in some browsers */ }
  }

  if (seqSelect) {
    seqSelect.addEventListener("change", function () { state.seq = seqSelect.value; showPanels(); draw(); writeURL(); });
  }
  if (metricSelect) {
    metricSelect.addEventListener("change", function () { state.metric = metricSelect.value; draw(); writeURL(); });
  }
  if (window.matchMedia) {
    var scheme = window.matchMedia("(prefers-color-scheme: dark)");
    if (scheme.addEventListener) { scheme.addEventListener("change", draw); }
  }
  syncControls();
  showPanels();
  draw();
})();
