/* What every chart of the site shares (the comparison pages' and embeds' script, site.js, and the
   explorer's, explore.js): the theme's colours, Plotly text, the themed layout, the toolbar with
   its titled PNG export, file names, a logarithmic axis's ticks, a target's input and a table
   cell's win mark. DOM and Plotly work only: every number and word comes from SiteEngine
   (engine.js, loaded first). */
(function () {
  "use strict";

  var E = window.SiteEngine;

  /* The theme's colours (site.css: --fg, --grid, --bg and --side0 … --side7), read now: site.css
     writes each as light-dark(light, dark), which only a real colour property resolves, so each
     is read through a hidden probe's computed colour. `sides`: how many side colours. */
  function readTheme(sides) {
    var probe = document.createElement("span");
    probe.hidden = true;
    document.body.appendChild(probe);
    var read = function (name) { probe.style.color = "var(" + name + ")"; return getComputedStyle(probe).color; };
    var colors = { fg: read("--fg"), grid: read("--grid"), bg: read("--bg"), sides: [] };
    for (var i = 0; i < sides; i += 1) { colors.sides.push(read("--side" + i)); }
    probe.remove();
    return colors;
  }

  /* Text from data as Plotly shows it literally (charts.py plotly_text): Plotly reads tags and
     entities in every text it draws, so &, < and > become entities (it decodes no &quot;). */
  function plotlyText(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  /* The layout in the theme's colours, opaque (a PNG export keeps the page's background). */
  function themedLayout(layout, colors) {
    var copy = JSON.parse(JSON.stringify(layout));
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
    layout.title = { text: plotlyText(title), x: 0.01, xanchor: "left", y: 0.98, yanchor: "top", font: { size: 16 } };
    if (layout.legend) { layout.legend.y = 1.02; layout.legend.yanchor = "bottom"; }
    window.Plotly.downloadImage({ data: gd.data, layout: layout }, {
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
        title: E.words.pngButton,
        icon: window.Plotly.Icons.camera,
        click: function (gd) { downloadPNG(gd, title(), filename()); }
      }]
    };
  }

  function fileName(text) {
    return String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "chart";
  }

  /* Ticks of a logarithmic axis: 1, 2 and 5 of each decade, written out (not "2, 3 … 100, 2"). */
  var LOG_TICKS = [];
  for (var decade = -4; decade <= 8; decade += 1) {
    [1, 2, 5].forEach(function (digit) { LOG_TICKS.push(Number((digit * Math.pow(10, decade)).toPrecision(1))); });
  }

  /* The chart library (1.2 MB of script to evaluate), loaded once after the page has: `src` is
     the script's data-plotly address. */
  function loadPlotly(src, done) {
    if (window.Plotly) { done(); return; }
    if (!src) { return; }
    var script = document.createElement("script");
    script.src = src;
    script.onload = done;
    document.head.appendChild(script);
  }

  /* A target's number input and its visually hidden label (the comparison pages' table headers
     and the explorer's targets alike): `id`, the label's words, the value shown. A valid edit (a
     positive number) calls `apply(value)`; an invalid one is marked and `say` is told why. */
  function targetInput(id, words, value, apply, say) {
    var label = document.createElement("label");
    label.className = "visually-hidden";
    label.setAttribute("for", id);
    label.textContent = words;
    var input = document.createElement("input");
    input.type = "number";
    input.id = id;
    input.className = "target-input";
    input.min = "0.1";
    input.step = "any";
    input.inputMode = "decimal";
    input.value = String(value);
    input.addEventListener("change", function () {
      var edited = Number(input.value);
      if (!input.value || !isFinite(edited) || edited <= 0) {
        input.setAttribute("aria-invalid", "true");
        say(E.words.invalidTarget);
        return;
      }
      input.removeAttribute("aria-invalid");
      apply(edited);
    });
    return [label, input];
  }

  /* The better value's mark in a table cell, as the build writes it (sections/matched-interactivity.html):
     a space, "▲" for the eye and " (better)" for a screen reader, appended to the cell's `span`;
     returns the mark and its words (the explorer shows or hides them as its cells change). */
  function winMark(span) {
    var mark = document.createElement("span");
    mark.className = "win-mark";
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = "▲";
    var words = document.createElement("span");
    words.className = "visually-hidden";
    words.textContent = " (better)";
    span.appendChild(document.createTextNode(" "));
    span.appendChild(mark);
    span.appendChild(words);
    return [mark, words];
  }

  /* `work` run in the frame after the next one, once however often it is asked before then: a
     target edit paints its table in its own frame and the chart's diamonds follow (Plotly's
     update of a figure takes longer than a frame); edits before then move them once, to where
     the last one put them. */
  function inFrameAfter(work) {
    var asked = false;
    return function () {
      if (asked) { return; }
      asked = true;
      window.requestAnimationFrame(function () {
        window.requestAnimationFrame(function () { asked = false; work(); });
      });
    };
  }

  window.SiteCharts = {
    targetInput: targetInput,
    inFrameAfter: inFrameAfter,
    winMark: winMark,
    readTheme: readTheme,
    plotlyText: plotlyText,
    themedLayout: themedLayout,
    plotConfig: plotConfig,
    fileName: fileName,
    LOG_TICKS: LOG_TICKS,
    loadPlotly: loadPlotly
  };
})();
