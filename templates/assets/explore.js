/* The explorer (explore/index.html): a model, a workload and up to eight sides, each a set of
   filters on the measured configurations; their frontiers on a chart and every metric at the
   reader's targets. Its state lives in the URL:
     explore/index.html?model=M&seq=1k/1k&side=hardware:mi355x,precision:fp4&side=…&t=50,80,110&metric=…
   (a filter's values "any of" joined by "|"; a value holding , : | & or % is percent-encoded;
   `basis=p90` or `p99` reads interactivity from that TPOT percentile).

   Every number and word comes from SiteEngine (engine.js): a side's knots from its points
   (sideKnots: the build's frontier and page data), the band and default targets, metricsAt and
   a cell's text, note and winner (cells, sideCell) — the comparison pages' rules. A model's
   points come from its data file (explore/data/<model>.js, docs/comparison-json.md), a script
   that registers itself, so the explorer works from file:// too.

   The part without the DOM (URL state, a side's points, the view) is exported for Node
   (tests/js/explore_check.cjs); the browser part starts when the page has the explorer. */
(function (factory) {
  "use strict";
  var engine = typeof window !== "undefined" && window.SiteEngine ? window.SiteEngine : null;
  if (!engine && typeof require === "function") { engine = require("./engine.js"); }
  var explorer = factory(engine);
  if (typeof module !== "undefined" && module && module.exports) { module.exports = explorer; }
  if (typeof window !== "undefined") {
    window.SiteExplore = explorer;
    if (document.getElementById("explore-index")) { explorer.start(); }
  }
}(function (E) {
  "use strict";

  var MAX_SIDES = 8;
  var MAX_TARGETS = 6;
  // The configuration fields a side filters on, in the order its controls show them
  // (site_builder/present/explore.py FIELDS), and how each is named.
  var FIELDS = ["hardware", "precision", "framework", "spec_method", "disagg", "dataset", "variant", "tp", "ep", "gpus"];
  var FIELD_NAMES = {
    hardware: "GPU", precision: "Precision", framework: "Engine", spec_method: "Speculative decoding",
    disagg: "Aggregation", dataset: "Dataset", variant: "Variant", tp: "TP", ep: "EP", gpus: "GPUs"
  };
  var BASES = { median: "median TPOT", p90: "p90 TPOT", p99: "p99 TPOT" };

  // -- the URL ---------------------------------------------------------------------------------

  /* A query part's text; a malformed escape ("%", "%ZZ") is kept as written rather than thrown. */
  function decode(text) {
    var plain = text.replace(/\+/g, " ");
    try { return decodeURIComponent(plain); } catch (e) { return plain; }
  }
  function encode(text) { return encodeURIComponent(String(text)); }

  /* "hardware:mi355x,precision:fp4|fp8" → {hardware: ["mi355x"], precision: ["fp4", "fp8"]}; a
     part without a key or value, or whose key is no field a side filters on, is left out. A side
     written wholly encoded (no ":" but "%3A", as a form or urlencode writes it) is read decoded. */
  function parseSide(raw) {
    var filters = {};
    var text = raw.indexOf(":") < 0 && /%3A/i.test(raw) ? decode(raw) : raw;
    text.split(",").forEach(function (part) {
      var colon = part.indexOf(":");
      if (colon <= 0) { return; }
      var key = decode(part.slice(0, colon));
      var values = part.slice(colon + 1).split("|").filter(Boolean).map(decode);
      if (values.length && FIELDS.indexOf(key) >= 0) { filters[key] = values; }
    });
    return filters;
  }

  function sideText(filters) {
    return Object.keys(filters).map(function (key) {
      return encode(key) + ":" + filters[key].map(encode).join("|");
    }).join(",");
  }

  /* The state a query string asks for, unchecked against a model: {model, seq, sides: [filters]
     (at most 8), targets (at most 6 positive numbers, or null), metric, basis}; never throws. */
  function parseQuery(search) {
    var state = { model: null, seq: null, sides: [], targets: null, metric: null, basis: null };
    String(search || "").replace(/^\?/, "").split("&").forEach(function (pair) {
      if (!pair) { return; }
      var eq = pair.indexOf("=");
      var key = decode(eq < 0 ? pair : pair.slice(0, eq)), raw = eq < 0 ? "" : pair.slice(eq + 1);
      if (key === "side") { if (state.sides.length < MAX_SIDES) { state.sides.push(parseSide(raw)); } }
      else if (key === "t") {
        var values = decode(raw).split(",").slice(0, MAX_TARGETS).map(Number);
        state.targets = values.length && values.every(function (v) { return isFinite(v) && v > 0; }) ? values : null;
      } else if (key === "model" || key === "seq" || key === "metric" || key === "basis") { state[key] = decode(raw); }
    });
    return state;
  }

  /* The query string of a state, in the shape parseQuery reads (the sequence's "/" kept). */
  function stateQuery(state) {
    var parts = [];
    if (typeof state.model === "string") { parts.push("model=" + encode(state.model)); }
    if (typeof state.seq === "string") { parts.push("seq=" + encode(state.seq).replace(/%2F/gi, "/")); }
    state.sides.forEach(function (filters) { parts.push("side=" + sideText(filters)); });
    if (state.targets && state.targets.length) { parts.push("t=" + state.targets.map(encode).join(",")); }
    if (state.metric) { parts.push("metric=" + encode(state.metric)); }
    if (state.basis && state.basis !== "median") { parts.push("basis=" + encode(state.basis)); }
    return parts.join("&");
  }

  // -- a side's points -------------------------------------------------------------------------

  /* A point's value of a field, as a filter compares it (site_builder/filters.py accepts: text
     without case, anything else exactly; here both as text). */
  function fieldText(value) {
    if (value === null) { return null; } // not given: no filter value matches it
    return typeof value === "string" ? value.toLowerCase() : String(value);
  }

  /* The positions of the model's points on the workload that every filter accepts, in the
     data's (the point table's) order. */
  function selectPoints(data, filters, seq) {
    var points = data.points, n = points.sequence.length, found = [];
    var wanted = Object.keys(filters).filter(function (key) { return FIELDS.indexOf(key) >= 0; }).map(function (key) {
      var values = data.fields[key];
      var accepted = filters[key].map(fieldText);
      return { codes: points.codes[key], ok: values.map(function (v) { return accepted.indexOf(fieldText(v)) >= 0; }) };
    });
    for (var i = 0; i < n; i += 1) {
      if (points.sequence[i] !== seq) { continue; }
      var ok = true;
      for (var w = 0; w < wanted.length && ok; w += 1) {
        ok = wanted[w].ok[wanted[w].codes[i]];
      }
      if (ok) { found.push(i); }
    }
    return found;
  }

  /* A point's interactivity (`points` decoded: engine.js decodePoints): its own on the median
     basis; on a percentile basis 1 / that percentile's TPOT (null where not measured, or where
     no point of the model has it: the data leaves the column out). */
  function interactivity(points, i, basis) {
    if (basis === "p90" || basis === "p99") {
      var t = (points["tpot_" + basis] || [])[i];
      return typeof t === "number" ? 1 / t : null;
    }
    return points.interactivity[i];
  }

  /* The percentiles some of the model's points on the workload were measured at: the bases
     a view may read interactivity from besides the median. */
  function basesOn(data, seq) {
    return (data.bases || []).filter(function (basis) {
      var column = data.points["tpot_" + basis];
      return data.points.sequence.some(function (s, i) { return s === seq && typeof column[i] === "number"; });
    });
  }

  /* Whether any of these points gives output tok/s only: then every side reads output tok/s
     (site_builder/sides.py on_one_basis). */
  function outputOnly(data, selections) {
    return selections.some(function (positions) {
      return positions.some(function (i) { return data.points.output_only[i] === 1; });
    });
  }

  /* A side's points as sideKnots reads them, a column each: on the output basis only those with
     an output throughput, read as their throughput; on a percentile basis only those with it.
     `points`: the data's points decoded (engine.js decodePoints). */
  function sidePoints(data, points, positions, output, basis) {
    var p = points, gpuValues = data.fields.gpus;
    var columns = { interactivity: [], throughput: [], concurrency: [], output_throughput: [], users_per_gpu: [],
      deployment: [], gpus: [], configuration: [], positions: [] };
    positions.forEach(function (i) {
      var x = interactivity(p, i, basis);
      if (x === null || (output && p.output_throughput[i] === null)) { return; }
      var gpus = gpuValues[p.codes.gpus[i]];
      columns.interactivity.push(x);
      columns.throughput.push(output ? p.output_throughput[i] : p.throughput[i]);
      columns.concurrency.push(p.concurrency[i]);
      columns.output_throughput.push(p.output_throughput[i]);
      columns.users_per_gpu.push(gpus ? p.concurrency[i] / gpus : null); // read/table.py users_per_gpu
      columns.deployment.push(p.deployment[i]);
      columns.gpus.push(gpus);
      columns.configuration.push(data.configurations[p.deployment[i]]);
      columns.positions.push(i);
    });
    return columns;
  }

  // -- the view --------------------------------------------------------------------------------

  function valueWords(data, key, value) {
    if (key === "hardware") { return data.gpus[value] ? data.gpus[value].name : value; }
    if (key === "precision") { return String(value).toUpperCase(); }
    if (key === "spec_method") { return value === "none" ? "no spec. decoding" : String(value).toUpperCase(); }
    if (key === "disagg") { return String(value) === "true" ? "disagg" : "agg"; }
    if (key === "tp" || key === "ep") { return key.toUpperCase() + value; }
    if (key === "gpus") { return value + " GPUs"; }
    return String(value);
  }

  /* A side's label from its filters: "MI355X FP4", "MI355X FP8 agg"; "all points" without one. */
  function sideLabel(data, filters) {
    var words = FIELDS.filter(function (key) { return filters[key]; }).map(function (key) {
      return filters[key].map(function (v) { return valueWords(data, key, v); }).join("/");
    });
    return words.join(" ") || "all points";
  }

  /* A side's GPU and constants. A metric reads one value of each constant for a whole side, so
     a side has a constant only where every GPU its points ran on has the same value of it: one
     GPU's, or several GPUs' that agree. Where the GPUs pooled differ, the constant is left out
     and `missing` says why in the cell's note ("cost needs one GPU per side: …"): never a
     number worked out with another GPU's price or power. */
  function sideGPU(data, positions) {
    var seen = {};
    positions.forEach(function (i) { seen[data.fields.hardware[data.points.codes.hardware[i]]] = true; });
    var gpus = Object.keys(seen).filter(function (key) { return data.gpus[key]; }).map(function (key) { return data.gpus[key]; });
    var constants = {}, missing = {};
    data.constants.forEach(function (c) {
      var values = gpus.map(function (gpu) { return gpu.constants[c.key]; });
      var one = values.every(function (v) { return v === values[0]; });
      constants[c.key] = values.length && one ? values[0] : null;
      if (!one) {
        missing[c.key] = (c.short || c.key) + " needs one GPU per side: this side pools " +
          gpus.map(function (gpu) { return gpu.name; }).join(", ") + ", whose values differ";
      }
    });
    var name = gpus.length ? gpus.map(function (gpu) { return gpu.name; }).join(" + ") : "no GPU";
    return { gpu: name, constants: constants, missing: missing };
  }

  /* The band the default targets come from: the sides' measured ranges' intersection
     (compare.py band_of, folded over the sides), or where it is no matched range, the first
     measured side's own range. */
  function viewBand(sides) {
    var ranges = sides.map(function (s) { return E.knotRange(s.knots); }).filter(Boolean);
    if (!ranges.length) { return { lo: null, hi: null }; }
    var band = ranges.slice(1).reduce(function (b, r) {
      return b.lo === null ? b : E.bandOf([b.lo, b.hi], r);
    }, { lo: ranges[0][0], hi: ranges[0][1] });
    return E.bandBounds(band) ? band : { lo: ranges[0][0], hi: ranges[0][1] };
  }

  /* What the explorer shows for a state: per side its label, points, knots (engine.js
     sideKnots), GPU and constants; the band and targets; and the page-data shape engine.js
     cells reads. */
  function view(data, state) {
    var seq = -1;
    data.sequences.forEach(function (s, n) { if (s[0] === state.seq) { seq = n; } });
    var selections = state.sides.map(function (filters) { return selectPoints(data, filters, seq); });
    var output = outputOnly(data, selections);
    var bases = basesOn(data, seq);
    var basis = bases.indexOf(state.basis) >= 0 ? state.basis : "median";
    var decoded = E.decodePoints(data.points);
    var sides = state.sides.map(function (filters, n) {
      var points = sidePoints(data, decoded, selections[n], output, basis);
      var gpu = sideGPU(data, points.positions);
      return {
        label: sideLabel(data, filters), filters: filters, points: points, selected: selections[n].length,
        knots: E.sideKnots(points, data.quantities), gpu: gpu.gpu, tier: data.cost_tier, constants: gpu.constants,
        missing: gpu.missing
      };
    });
    var band = viewBand(sides);
    var bounds = E.bandBounds(band);
    var targets = state.targets && state.targets.length ? state.targets.slice(0, MAX_TARGETS) : E.defaultTargets(band);
    var page = {
      sides: sides.map(function (s) {
        return { label: s.label, gpu: s.gpu, tier: s.tier, constants: s.constants, missing: s.missing };
      }),
      constants: data.constants, metrics: data.metrics, quantities: data.quantities,
      tie: data.tie, sparse_ratio: data.sparse_ratio, spread_limit: data.spread_limit
    };
    var curves = sides.map(function (s) { return new E.SideCurves(s.knots, data.quantities, s.constants); });
    return { sides: sides, band: bounds, targets: targets, output: output, basis: basis, bases: bases, page: page,
      curves: curves };
  }

  /* Every side at one target (engine.js metricsAt). */
  function resultsAt(v, target) {
    return v.curves.map(function (c) { return E.metricsAt(c, target, v.page.metrics, v.page.sparse_ratio); });
  }

  /* A metric's cells at one target, a side each: two sides as a comparison page words them
     (engine.js cells); one or more than two, each side's text and note (sideCell), the better
     value marked where one side beats every other as cells would mark it against each. */
  function rowCells(metric, results, page) {
    if (results.length === 2) { return E.cells(metric, results, page); }
    var all = results.length > 1 && results.every(function (m) { return m.measured; });
    return results.map(function (m, i) {
      var cell = E.sideCell(metric, m, page.sides[i], page.constants);
      var win = all && results.every(function (other, j) {
        return j === i || E.rowClaim(metric, [m, other], page).best === 0; // as cells would mark the pair
      });
      return { text: cell.text, note: cell.note, win: win, measured: m.measured };
    });
  }

  // -- the page --------------------------------------------------------------------------------

  function start() {
    var C = window.SiteCharts;
    var index = JSON.parse(document.getElementById("explore-index").textContent);
    var script = document.currentScript || document.querySelector("script[src$='explore.js']");
    var PLOTLY_SRC = script && script.getAttribute("data-plotly");
    var form = document.getElementById("explorer");
    var modelSelect = document.getElementById("explore-model");
    var seqSelect = document.getElementById("explore-seq");
    var metricSelect = document.getElementById("explore-metric");
    var sidesBox = document.getElementById("explore-sides");
    var targetsBox = document.getElementById("explore-targets");
    var tablesBox = document.getElementById("explore-tables");
    var bandText = document.getElementById("explore-band");
    var chartEl = document.getElementById("chart");
    var live = document.getElementById("live");
    var loading = document.getElementById("explore-loading");
    var data = null, state = null, current = null, columns = [], themeColors = null, drawnView = null;

    function announce(text) {
      live.textContent = "";
      window.setTimeout(function () { live.textContent = text; }, 30);
    }

    function modelOf(key) {
      for (var i = 0; i < index.models.length; i += 1) { if (index.models[i].key === key) { return index.models[i]; } }
      return null;
    }

    /* A model's data file, loaded once as a script (fetch() of file:// fails in Chromium). */
    function loadModel(model, done) {
      var registry = window.siteExplorerData = window.siteExplorerData || {};
      if (registry[model.key]) { done(registry[model.key]); return; }
      var tag = document.createElement("script");
      tag.src = model.file;
      tag.onload = function () { done(registry[model.key]); };
      tag.onerror = function () { loading.textContent = "The data file " + model.file + " could not be loaded."; };
      document.head.appendChild(tag);
    }

    /* The state checked against the model: a known sequence and metric, at most 8 sides, and
       without a side two distinct GPUs of the model (or one side with every point). */
    function checked(asked) {
      var s = JSON.parse(JSON.stringify(asked));
      s.model = data.model;
      var seqs = data.sequences.map(function (q) { return q[0]; });
      if (seqs.indexOf(s.seq) < 0) { s.seq = seqs[0]; }
      var keys = data.metrics.map(function (m) { return m.key; });
      if (keys.indexOf(s.metric) < 0) { s.metric = keys.indexOf("throughput") >= 0 ? "throughput" : keys[0]; }
      if (!BASES[s.basis]) { s.basis = "median"; }
      s.sides = s.sides.slice(0, MAX_SIDES);
      if (!s.sides.length) {
        s.sides = data.fields.hardware.slice(0, 2).map(function (h) { return { hardware: [h] }; });
      }
      return s;
    }

    /* A history entry per change. A target edit's entry waits for idle time (pushState costs a
       few milliseconds, and nothing the reader sees depends on it), with those of the edits after
       it while none was written; any other change first writes the ones waiting, so the order holds. */
    var waitingEntries = [];

    function writeEntry(query) {
      var address = window.location.pathname.split("/").pop() + "?" + query;
      try { window.history.pushState(null, "", address); } catch (e) { /* some file:// setups */ }
    }

    function flushEntries() {
      var entries = waitingEntries;
      waitingEntries = [];
      entries.forEach(writeEntry);
    }

    function push() { flushEntries(); writeEntry(stateQuery(state)); }

    function pushWhenIdle() {
      waitingEntries.push(stateQuery(state));
      if (waitingEntries.length > 1) { return; } // already asked for
      if (window.requestIdleCallback) { window.requestIdleCallback(flushEntries, { timeout: 500 }); }
      else { window.setTimeout(flushEntries, 0); }
    }

    // -- controls ------------------------------------------------------------------------------

    function option(select, value, text, selected) {
      var o = document.createElement("option");
      o.value = value;
      o.textContent = text;
      if (selected) { o.selected = true; }
      select.appendChild(o);
    }

    function sideEditor(filters, n) {
      var box = document.createElement("fieldset");
      box.className = "explore-side side-" + n;
      var legend = document.createElement("legend");
      legend.textContent = "Side " + (n + 1) + ": " + sideLabel(data, filters);
      box.appendChild(legend);
      FIELDS.forEach(function (key) {
        var values = data.fields[key].filter(function (v) { return v !== null; }); // not given: not a choice
        if (values.length < 2 && !filters[key]) { return; } // one value narrows nothing
        var id = "side-" + n + "-" + key;
        var label = document.createElement("label");
        label.setAttribute("for", id);
        label.textContent = FIELD_NAMES[key];
        var select = document.createElement("select");
        select.id = id;
        select.setAttribute("data-side", String(n));
        select.setAttribute("data-field", key);
        var chosen = filters[key] ? filters[key].join("|") : "";
        option(select, "", "Any", chosen === "");
        var known = false;
        values.forEach(function (v) {
          known = known || fieldText(v) === chosen.toLowerCase();
          option(select, String(v), valueWords(data, key, v), fieldText(v) === chosen.toLowerCase());
        });
        if (chosen && !known) { option(select, chosen, chosen.split("|").join(" or "), true); }
        select.addEventListener("change", function () {
          var side = state.sides[n];
          if (select.value) { side[key] = select.value.split("|"); } else { delete side[key]; }
          state.targets = null;
          update(true);
          document.getElementById(id).focus(); // the redrawn select: a keyboard reader stays on it
          announce("Side " + (n + 1) + " is now " + sideLabel(data, side) + ".");
        });
        var pair = document.createElement("span");
        pair.className = "explore-field";
        pair.appendChild(label);
        pair.appendChild(select);
        box.appendChild(pair);
      });
      var count = document.createElement("span");
      count.className = "hint explore-count";
      count.id = "side-" + n + "-count";
      box.appendChild(count);
      if (state.sides.length > 1) {
        var remove = document.createElement("button");
        remove.type = "button";
        remove.textContent = "Remove side " + (n + 1);
        remove.addEventListener("click", function () {
          state.sides.splice(n, 1);
          state.targets = null;
          update(true);
          document.getElementById("explore-add").focus();
          announce("Side " + (n + 1) + " removed.");
        });
        box.appendChild(remove);
      }
      return box;
    }

    function buildControls() {
      modelSelect.value = data.model;
      seqSelect.textContent = "";
      data.sequences.forEach(function (s) { option(seqSelect, s[0], s[0], s[0] === state.seq); });
      metricSelect.value = state.metric;
      sidesBox.textContent = "";
      state.sides.forEach(function (filters, n) { sidesBox.appendChild(sideEditor(filters, n)); });
      document.getElementById("explore-add").disabled = state.sides.length >= MAX_SIDES;
      showBases();
    }

    /* The basis switch, where the workload's points give a percentile (else it could do nothing),
       with the median and the percentiles they give. */
    function showBases() {
      var basis = document.getElementById("explore-basis");
      if (!basis) { return; }
      var offered = ["median"].concat(current.bases);
      Array.prototype.forEach.call(basis.options, function (o) {
        o.hidden = o.disabled = offered.indexOf(o.value) < 0;
      });
      basis.value = current.basis;
      basis.hidden = !current.bases.length;
      var label = document.querySelector("label[for='explore-basis']");
      if (label) { label.hidden = basis.hidden; }
    }

    function targetInputs() {
      targetsBox.textContent = "";
      current.targets.forEach(function (target, col) {
        var made = C.targetInput("explore-target-" + col, "Target " + (col + 1) + " interactivity (tok/s/user)", target,
          function (edited) { retarget(col, edited); pushWhenIdle(); }, announce);
        targetsBox.appendChild(made[0]);
        targetsBox.appendChild(made[1]);
      });
      document.getElementById("explore-target-add").disabled = current.targets.length >= MAX_TARGETS;
    }

    // -- tables --------------------------------------------------------------------------------

    /* A cell's parts, made once with its table: the value, the win mark and its words for a
       screen reader (charts.js winMark), and the note's words for one. An edit writes their
       text and shows or hides them (cellContent), so a new target relays the table out without
       making it again. */
    function emptyCell(td, label) {
      var span = document.createElement("span");
      var value = document.createElement("span");
      value.className = "value";
      value.appendChild(document.createTextNode(""));
      span.appendChild(value);
      C.winMark(span);
      var note = document.createElement("span");
      note.className = "visually-hidden";
      note.appendChild(document.createTextNode(""));
      td.appendChild(span);
      td.appendChild(note);
      td.setAttribute("data-label", label);
    }

    /* A node's text, an attribute or a part's `hidden` written only where it changes: a part
       left as it was is not laid out again (a note's words, long and mostly the same from one
       target to the next, are most of the table's layout). */
    function setText(textNode, text) { if (textNode.data !== text) { textNode.data = text; } }
    function setAttr(element, name, value) {
      if (element.getAttribute(name) !== value) { element.setAttribute(name, value); }
    }
    function setHidden(element, hidden) { if (element.hidden !== hidden) { element.hidden = hidden; } }

    function cellContent(td, cell, side) {
      var span = td.firstChild, parts = span.childNodes, note = td.lastChild;
      setAttr(span, "class", "side-value side-" + side + (cell.win ? " win" : "") + (cell.measured ? "" : " not-measured"));
      if (cell.note) { setAttr(span, "title", cell.note); } else { span.removeAttribute("title"); }
      setText(parts[0].firstChild, cell.text);
      setHidden(parts[2], !cell.win); // the mark (parts[1] is the space before it)
      setHidden(parts[3], !cell.win); // its words
      setText(note.firstChild, cell.note ? " (" + cell.note + ")" : "");
      setHidden(note, !cell.note);
      setAttr(td, "data-text", cell.text);
    }

    function fillTable(table, col) {
      var results = columns[col];
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row, r) {
        var metric = current.page.metrics[r];
        var cells = rowCells(metric, results, current.page);
        for (var i = 0; i < cells.length; i += 1) {
          var td = row.cells[i + 1], value = results[i].measured ? results[i].values[metric.key] : null;
          cellContent(td, cells[i], i);
          setAttr(td, "data-value", typeof value === "number" ? String(value) : "");
        }
      });
      table.caption.textContent = "At " + current.targets[col] + " tok/s/user, " + state.seq +
        ": " + current.sides.map(function (s) { return s.label; }).join(", ");
    }

    function buildTables() {
      tablesBox.textContent = "";
      current.targets.forEach(function (target, col) {
        var wrap = document.createElement("div");
        wrap.className = "table-wrap";
        wrap.tabIndex = 0;
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", "Table: target " + (col + 1));
        var table = document.createElement("table");
        table.className = "matched-table explore-table";
        table.setAttribute("data-target-index", String(col));
        table.appendChild(document.createElement("caption"));
        var head = table.createTHead().insertRow();
        var corner = document.createElement("th");
        corner.scope = "col";
        corner.textContent = "Metric";
        head.appendChild(corner);
        current.sides.forEach(function (side, i) {
          var th = document.createElement("th");
          th.scope = "col";
          th.className = "side-head side-" + i;
          th.textContent = side.label;
          head.appendChild(th);
        });
        var body = table.createTBody();
        current.page.metrics.forEach(function (metric) {
          var row = body.insertRow();
          row.setAttribute("data-metric", metric.key);
          var th = document.createElement("th");
          th.scope = "row";
          th.textContent = metric.label;
          row.appendChild(th);
          current.sides.forEach(function (side) { emptyCell(row.insertCell(), side.label); });
        });
        wrap.appendChild(table);
        tablesBox.appendChild(wrap);
        fillTable(table, col);
      });
    }

    // -- chart ---------------------------------------------------------------------------------

    function theme() {
      if (!themeColors) { themeColors = C.readTheme(MAX_SIDES); }
      return themeColors;
    }

    function chartMetric() {
      for (var i = 0; i < index.chart.metrics.length; i += 1) {
        if (index.chart.metrics[i].key === state.metric) { return index.chart.metrics[i]; }
      }
      return index.chart.metrics[0];
    }

    function metricOf(key) {
      for (var i = 0; i < current.page.metrics.length; i += 1) {
        if (current.page.metrics[i].key === key) { return current.page.metrics[i]; }
      }
      return null;
    }

    function named(role, label) { return C.plotlyText(index.chart.names[role].replace("{label}", label)); }

    function sideTraces() {
      var colors = theme(), metric = metricOf(state.metric), shown = chartMetric();
      var hover = index.chart.x_hover + " · " + shown.hover;
      var traces = [];
      current.sides.forEach(function (side, i) {
        var curves = current.curves[i], color = colors.sides[i];
        if (side.knots.knots.length) {
          var samples = E.curveSamples(curves, metric);
          traces.push({
            type: "scatter", mode: "lines", name: named("curve", side.label), legendgroup: "side" + i,
            x: samples.x, y: samples.y, line: { width: 2.5, color: color },
            hovertemplate: "%{fullData.name}<br>" + hover + "<extra></extra>", meta: { role: "curve", side: i }
          });
        }
        var frontier = E.paretoFrontier(side.points.interactivity, side.points.throughput);
        var on = {};
        frontier.forEach(function (k) { on[k] = true; });
        var xs = [], ys = [], details = [], sizes = [], opacities = [];
        side.points.interactivity.forEach(function (x, k) {
          var quantities = {};
          current.page.quantities.forEach(function (q) { quantities[q] = side.points[q][k]; });
          xs.push(x);
          ys.push(E.evaluate(metric.formula, E.knownValues(curves, quantities)));
          sizes.push(on[k] ? 9 : 7);
          opacities.push(on[k] ? 1 : 0.35);
          details.push([
            C.plotlyText(side.points.configuration[k]),
            C.plotlyText(E.words.pointLine(side.points.concurrency[k], null)),
            on[k] ? "" : "<br>" + C.plotlyText(E.words.offFrontier)
          ]);
        });
        traces.push({
          type: "scatter", mode: "markers", name: named("points", side.label), legendgroup: "side" + i,
          x: xs, y: ys, customdata: details,
          marker: { size: sizes, opacity: opacities, color: color, line: { width: 1, color: colors.bg || "#ffffff" } },
          hovertemplate: "%{fullData.name}<br>%{customdata[0]}<br>%{customdata[1]}<br>" + hover +
            "%{customdata[2]}<extra></extra>",
          meta: { role: "points", side: i }
        });
      });
      return traces;
    }

    function targetTraces() {
      var colors = theme(), shown = chartMetric();
      return current.sides.map(function (side, i) {
        var xs = [], ys = [];
        current.targets.forEach(function (target, col) {
          var m = columns[col] && columns[col][i];
          var value = m && m.measured ? m.values[state.metric] : null;
          if (typeof value === "number") { xs.push(target); ys.push(value); }
        });
        return {
          type: "scatter", mode: "markers", name: named("targets", side.label), legendgroup: "side" + i, showlegend: false,
          x: xs, y: ys, marker: { symbol: "diamond", size: 15, color: colors.sides[i], line: { width: 2, color: colors.fg } },
          hovertemplate: "%{fullData.name}<br>" + index.chart.x_hover + " · " + shown.hover + "<extra></extra>",
          meta: { role: "targets", side: i }
        };
      });
    }

    function layout() {
      var l = C.themedLayout(index.chart.layout, theme());
      l.xaxis.type = "log";
      l.xaxis.tickvals = C.LOG_TICKS;
      l.yaxis.title = { text: chartMetric().axis };
      l.yaxis.automargin = true;
      l.shapes = current.band ? [{
        type: "rect", name: "band", xref: "x", yref: "paper", x0: current.band[0], x1: current.band[1], y0: 0, y1: 1,
        line: { width: 0 }, fillcolor: "rgba(128,128,128,0.14)", layer: "below"
      }] : [];
      return l;
    }

    var config = null;

    function draw() {
      if (!window.Plotly) { return; }
      config = config || C.plotConfig(function () {
        return E.words.chartTitle(data.model_name, state.seq, chartMetric().label);
      }, function () { return C.fileName("explore-" + data.model + "-" + state.seq + "-" + state.metric); });
      window.Plotly.react(chartEl, sideTraces().concat(targetTraces()), layout(), config);
      drawnView = stateQuery(state);
      chartEl.setAttribute("data-sides", String(current.sides.length));
      chartEl.setAttribute("data-marks", current.targets.join(","));
    }

    function moveTargets() {
      if (!window.Plotly || drawnView === null) { return; }
      var traces = targetTraces(), first = chartEl.data.length - traces.length;
      window.Plotly.animate(chartEl, {
        data: traces.map(function (t) { return { x: t.x, y: t.y }; }),
        traces: traces.map(function (t, i) { return first + i; })
      }, { transition: { duration: 0 }, frame: { duration: 0, redraw: false }, mode: "immediate" });
      chartEl.setAttribute("data-marks", current.targets.join(","));
    }

    // -- updates -------------------------------------------------------------------------------

    function describeSides() {
      current.sides.forEach(function (side, n) {
        var count = document.getElementById("side-" + n + "-count");
        if (count) {
          count.textContent = side.points.interactivity.length + " points on " + state.seq + ", " +
            side.knots.knots.length + " on the frontier" +
            (side.points.interactivity.length < side.selected ? " (" + (side.selected - side.points.interactivity.length) +
              " without " + (current.output ? "an output throughput" : "a " + BASES[current.basis]) + " left out)" : "");
        }
      });
      var words = [];
      if (current.band) { words.push("Band " + Math.ceil(current.band[0]) + "–" + Math.floor(current.band[1]) + " tok/s/user."); }
      if (current.output) { words.push("Output tokens only: a side's source gives output tok/s only."); }
      words.push("Interactivity from " + BASES[current.basis] + ".");
      bandText.textContent = words.join(" ");
    }

    /* Everything again: the sides, their knots, the band, the targets, the tables, the chart. */
    function update(pushing) {
      current = view(data, state);
      state.targets = current.targets.slice();
      state.basis = current.basis;
      columns = current.targets.map(function (t) { return resultsAt(current, t); });
      buildControls();
      targetInputs();
      buildTables();
      describeSides();
      draw();
      if (pushing) { push(); }
    }

    /* One edited target: that table now, the diamonds in the frame after, nothing else. */
    function retarget(col, value) {
      state.targets = state.targets.slice();
      state.targets[col] = value;
      current.targets = state.targets.slice();
      columns[col] = resultsAt(current, value);
      fillTable(tablesBox.querySelectorAll("table")[col], col);
      moveTargetsNextFrame();
    }

    var moveTargetsNextFrame = C.inFrameAfter(function () { moveTargets(); });

    /* A model shown once its data file has loaded, unless the reader asked for another since
       (a file still loading must not replace a later choice). */
    var opened = 0;

    function open(asked, pushing) {
      var model = modelOf(asked.model) || index.models[0];
      var asking = opened += 1;
      loadModel(model, function (loaded) {
        if (asking !== opened) { return; }
        data = loaded;
        state = checked(asked);
        form.hidden = false;
        loading.hidden = true;
        update(pushing);
        document.documentElement.setAttribute("data-ready", "true");
        C.loadPlotly(PLOTLY_SRC, function () { draw(); document.documentElement.setAttribute("data-charts", "drawn"); });
      });
    }

    modelSelect.addEventListener("change", function () {
      open({ model: modelSelect.value, seq: null, sides: [], targets: null, metric: state.metric, basis: state.basis }, true);
    });
    seqSelect.addEventListener("change", function () {
      state.seq = seqSelect.value;
      state.targets = null;
      update(true);
      announce(E.words.sequenceShown(state.seq));
    });
    metricSelect.addEventListener("change", function () {
      state.metric = metricSelect.value;
      draw();
      push();
      announce(E.words.metricShown(metricSelect.options[metricSelect.selectedIndex].text));
    });
    var basisSelect = document.getElementById("explore-basis");
    if (basisSelect) {
      basisSelect.addEventListener("change", function () {
        state.basis = basisSelect.value;
        state.targets = null;
        update(true);
        announce("Interactivity from " + BASES[state.basis] + ".");
      });
    }
    document.getElementById("explore-add").addEventListener("click", function () {
      if (state.sides.length >= MAX_SIDES) { return; }
      var last = state.sides[state.sides.length - 1] || {};
      state.sides.push(JSON.parse(JSON.stringify(last)));
      state.targets = current.targets;
      update(true);
      var added = sidesBox.querySelectorAll("fieldset");
      var first = added[added.length - 1].querySelector("select");
      if (first) { first.focus(); }
      announce("Side " + state.sides.length + " added: choose its filters.");
    });
    document.getElementById("explore-target-add").addEventListener("click", function () {
      var last = current.targets[current.targets.length - 1];
      state.targets = current.targets.concat([last ? last + 10 : 50]);
      update(true);
    });
    document.getElementById("explore-target-reset").addEventListener("click", function () {
      state.targets = null;
      update(true);
    });
    var redraw = function () { themeColors = null; if (current) { draw(); } };
    if (window.matchMedia) {
      var scheme = window.matchMedia("(prefers-color-scheme: dark)");
      if (scheme.addEventListener) { scheme.addEventListener("change", redraw); }
    }
    if (window.MutationObserver) {
      new MutationObserver(redraw).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    }
    window.addEventListener("popstate", function () { open(parseQuery(window.location.search), false); });
    open(parseQuery(window.location.search), false);
  }

  return {
    FIELDS: FIELDS,
    MAX_SIDES: MAX_SIDES,
    parseQuery: parseQuery,
    stateQuery: stateQuery,
    selectPoints: selectPoints,
    sidePoints: sidePoints,
    sideLabel: sideLabel,
    view: view,
    resultsAt: resultsAt,
    rowCells: rowCells,
    start: start
  };
}));
