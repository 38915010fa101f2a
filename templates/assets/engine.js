/* The comparison page's computational engine: the Python engine's arithmetic, operation for
   operation, so a number the page computes for a reader's own target equals the one the build
   would have written.

   Mirrors:
   - fixed / roundHalfUp: site_builder/formatting.py (half-up on the shortest decimal representation,
     Python's Decimal(repr(value)).quantize(..., ROUND_HALF_UP), written out as str(Decimal) does);
   - steffenTangents / MonotoneSpline: site_builder/engine/spline.py (Steffen interior tangents,
     d3's one-sided end rule, evaluated as scipy's CubicHermiteSpline does: power-basis
     coefficients per interval, summed term by term);
   - evaluate: site_builder/metrics.py (expression trees, folded left to right, null in = null out);
   - metricsAt / winner / isTie / knotBounds / claim: site_builder/engine/compare.py (claimWords:
     present/tables.py _claim_words);
   - paretoFrontier: site_builder/engine/frontier.py; sideKnots: a side's page data from its
     measured points (site_builder/render/pages.py _side_data, the frontier and concurrency joins
     of compare.py SideCurves); bandOf / bandBounds / defaultTargets: compare.py band_of,
     Band.bounds, default_targets;
   - curveSamples: where the charts draw a frontier (the interactivity chart's curves, sampled
     with the same spline; tests/test_engine_js.py holds them to the Python engine's values);
   - cells and the words it uses (grouped, valueText, deploymentText, notMeasuredText, reason):
     a table cell's text and note as site_builder/present/tables.py target_cells writes it, with
     the reasons of site_builder/present/result.py (range_reason, deployment_text,
     constant_reason); what only the build knows (labels, GPU names, cost tiers, configuration
     labels, the constants' "no … for <GPU>" templates) comes in the page data
     (site_builder/render/pages.py page_data);
   - measuredPoints: the measured points as site_builder/present/charts.py chart_data lists them;
     decodePoints: measured points in the site's columnar encoding (site_builder/present/columns.py);
   - latencyAt / latencySeries / markerValue / latencyRows: site_builder/engine/latency.py
     by_concurrency, the latency chart's traces (site_builder/present/charts.py _latency_trace,
     marker_value) and a latency table's rows (site_builder/present/latency.py _rows);
     words: the controls', live region's and charts' other words.

   Loads as a plain browser script (window.SiteEngine) and under Node (module.exports), with no
   dependencies. tests/test_engine_js.py checks it against the Python engine. */
(function (factory) {
  "use strict";
  var engine = factory();
  if (typeof window !== "undefined") { window.SiteEngine = engine; }
  if (typeof module !== "undefined" && module && module.exports) { module.exports = engine; }
}(function () {
  "use strict";

  var TIE_TOLERANCE = 0.01; // site_builder/engine/compare.py; pages send their own as page.tie
  var SPARSE_RATIO = 2.0; // the same file; pages send their own as page.sparse_ratio
  var SPREAD_LIMIT = 2.0; // the same file; pages send their own as page.spread_limit
  var DECIMAL_PRECISION = 28; // Python's default decimal context: quantize fails beyond it

  // -- numbers ---------------------------------------------------------------------------------

  function repeat(text, count) {
    var out = "";
    for (var i = 0; i < count; i += 1) { out += text; }
    return out;
  }

  /* A finite number's shortest round-trip decimal form (what Python's repr gives) as
     {negative, digits, exponent}: value = ±digits × 10^exponent, digits without leading zeros. */
  function shortestDecimal(value) {
    var negative = value < 0 || (value === 0 && 1 / value < 0); // String(-0) is "0"; repr keeps "-0.0"
    var text = String(Math.abs(value));
    var match = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(text);
    if (!match) { throw new Error("unexpected number text " + text); }
    var frac = match[2] || "";
    var digits = (match[1] + frac).replace(/^0+/, "") || "0";
    var exponent = (match[3] ? parseInt(match[3], 10) : 0) - frac.length;
    return { negative: negative, digits: digits, exponent: exponent };
  }

  /* Add one to a string of decimal digits. */
  function increment(digits) {
    var out = digits.split("");
    var i = out.length - 1;
    while (i >= 0 && out[i] === "9") { out[i] = "0"; i -= 1; }
    if (i < 0) { out.unshift("1"); } else { out[i] = String(Number(out[i]) + 1); }
    return out.join("");
  }

  /* str(Decimal) of ±coefficient × 10^exponent: plain unless the exponent is positive or the
     number is below 1e-6, then scientific ("1E-7", "0E-7", "1.2E+3"), as Python writes it. */
  function decimalText(negative, coefficient, exponent) {
    var leftdigits = exponent + coefficient.length;
    var dotplace = exponent <= 0 && leftdigits > -6 ? leftdigits : 1;
    var intpart, fracpart;
    if (dotplace <= 0) {
      intpart = "0";
      fracpart = "." + repeat("0", -dotplace) + coefficient;
    } else if (dotplace >= coefficient.length) {
      intpart = coefficient + repeat("0", dotplace - coefficient.length);
      fracpart = "";
    } else {
      intpart = coefficient.slice(0, dotplace);
      fracpart = "." + coefficient.slice(dotplace);
    }
    var shift = leftdigits - dotplace;
    var exp = shift === 0 ? "" : "E" + (shift > 0 ? "+" : "-") + Math.abs(shift);
    return (negative ? "-" : "") + intpart + fracpart + exp;
  }

  /* Half-up rounded, fixed-point text (site_builder/formatting.py fixed): 12.25 -> "12.3",
     0.125 -> "0.13", -0.04 -> "-0.0" (Decimal keeps the sign), 1e-7 at 1 decimal -> "0.0".
     Like Python it gives "NaN" for NaN and throws where Decimal's quantize fails (infinities, or
     a result of more than 28 digits such as 1e21 to 10 decimals). */
  function fixed(value, decimals) {
    if (typeof value !== "number") { throw new TypeError("fixed needs a number, not " + value); }
    if (value !== value) { return "NaN"; }
    if (!isFinite(value)) { throw new RangeError("cannot round " + value + " to a fixed number of decimals"); }
    var d = shortestDecimal(value);
    var quantum = -decimals;
    var coefficient;
    if (d.exponent >= quantum) {
      coefficient = d.digits === "0" ? "0" : d.digits + repeat("0", d.exponent - quantum);
    } else {
      var drop = quantum - d.exponent;
      var padded = repeat("0", Math.max(0, drop + 1 - d.digits.length)) + d.digits;
      var kept = padded.slice(0, padded.length - drop);
      coefficient = padded.charAt(padded.length - drop) >= "5" ? increment(kept) : kept;
      coefficient = coefficient.replace(/^0+/, "") || "0";
    }
    if (coefficient.length > DECIMAL_PRECISION) {
      throw new RangeError(value + " to " + decimals + " decimals needs more than " + DECIMAL_PRECISION + " digits");
    }
    return decimalText(d.negative, coefficient, quantum);
  }

  /* The half-up rounded number (site_builder/formatting.py round_half_up). */
  function roundHalfUp(value, decimals) {
    if (typeof value !== "number" || !isFinite(value)) {
      throw new RangeError("cannot round non-finite value " + value);
    }
    return Number(fixed(value, decimals === undefined ? 0 : decimals));
  }

  // -- interpolation ---------------------------------------------------------------------------

  function sign(v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

  /* Tangents at each knot: Steffen (1990) inside, d3's (3·secant − neighbour) / 2 at the ends;
     xs strictly increasing. */
  function steffenTangents(xs, ys) {
    var n = xs.length, i;
    var tangents = [];
    if (n < 2) {
      for (i = 0; i < n; i += 1) { tangents.push(0); }
      return tangents;
    }
    var secants = [];
    for (i = 0; i < n - 1; i += 1) { secants.push((ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])); }
    if (n === 2) { return [secants[0], secants[0]]; }
    for (i = 0; i < n; i += 1) { tangents.push(0); }
    for (i = 1; i < n - 1; i += 1) {
      var h0 = xs[i] - xs[i - 1], h1 = xs[i + 1] - xs[i];
      var s0 = secants[i - 1], s1 = secants[i];
      var p = (s0 * h1 + s1 * h0) / (h0 + h1);
      tangents[i] = (sign(s0) + sign(s1)) * Math.min(Math.abs(s0), Math.abs(s1), 0.5 * Math.abs(p));
    }
    tangents[0] = (3 * secants[0] - tangents[1]) / 2;
    tangents[n - 1] = (3 * secants[n - 2] - tangents[n - 2]) / 2;
    return tangents;
  }

  /* y(x) through the knots: exact at the knots, null outside [x_first, x_last], one knot = a value
     at that x only, two knots = the straight line. */
  function MonotoneSpline(xs, ys) {
    if (!(this instanceof MonotoneSpline)) { return new MonotoneSpline(xs, ys); }
    var n = xs.length, i;
    if (ys.length !== n) { throw new Error("xs and ys differ in length"); }
    for (i = 0; i < n; i += 1) {
      if (typeof xs[i] !== "number" || typeof ys[i] !== "number" || !isFinite(xs[i]) || !isFinite(ys[i])) {
        throw new Error("knots must be finite");
      }
      if (i > 0 && !(xs[i] > xs[i - 1])) { throw new Error("knots must have strictly increasing x"); }
    }
    this.xs = xs.slice();
    this.ys = ys.slice();
    this.tangents = steffenTangents(this.xs, this.ys);
    // scipy's CubicHermiteSpline: c0·s³ + c1·s² + c2·s + c3 on each interval, s = x − x_i.
    this.coefficients = [];
    for (i = 0; i < n - 1; i += 1) {
      var dx = this.xs[i + 1] - this.xs[i];
      var slope = (this.ys[i + 1] - this.ys[i]) / dx;
      var t = (this.tangents[i] + this.tangents[i + 1] - 2 * slope) / dx;
      this.coefficients.push([t / dx, (slope - this.tangents[i]) / dx - t, this.tangents[i], this.ys[i]]);
    }
  }

  MonotoneSpline.prototype.covers = function (x) {
    var n = this.xs.length;
    return n > 0 && this.xs[0] <= x && x <= this.xs[n - 1];
  };

  MonotoneSpline.prototype.value = function (x) {
    if (!this.covers(x)) { return null; }
    var xs = this.xs, n = xs.length, i;
    if (n === 1) { return this.ys[0]; }
    for (i = 0; i < n; i += 1) { if (x === xs[i]) { return this.ys[i]; } }
    i = 0;
    while (i < n - 2 && x >= xs[i + 1]) { i += 1; }
    var c = this.coefficients[i];
    var s = x - xs[i];
    // The order of scipy's evaluate_poly1: ascending powers, z = 1, s, s·s, s·s·s.
    var z = 1, result = 0;
    for (var k = 3; k >= 0; k -= 1) {
      result = result + c[k] * z;
      z = z * s;
    }
    return result;
  };

  // -- metrics ---------------------------------------------------------------------------------

  function isNumber(v) { return typeof v === "number"; }

  /* Names a formula reads, in order of first use (metrics.variables). */
  function variables(formula) {
    if (typeof formula === "string") { return [formula]; }
    var names = [];
    if (Array.isArray(formula)) {
      for (var i = 1; i < formula.length; i += 1) {
        variables(formula[i]).forEach(function (name) { if (names.indexOf(name) < 0) { names.push(name); } });
      }
    }
    return names;
  }

  /* A metric formula's value (site_builder/metrics.py evaluate): a string is a name looked up in
     `values`, a number a constant, [op, a, b, ...] folds left to right; a missing name gives null. */
  function evaluate(formula, values) {
    if (typeof formula === "string") {
      var v = Object.prototype.hasOwnProperty.call(values, formula) ? values[formula] : null;
      return v === undefined ? null : v;
    }
    if (isNumber(formula)) { return formula; }
    var op = formula[0];
    var result = evaluate(formula[1], values);
    for (var i = 2; i < formula.length; i += 1) {
      var right = evaluate(formula[i], values);
      if (result === null || right === null) { return null; }
      if (op === "+") { result = result + right; }
      else if (op === "-") { result = result - right; }
      else if (op === "*") { result = result * right; }
      else { result = result / right; }
    }
    return result;
  }

  /* The curve quantities in knot-column order after the interactivity (metrics.CURVE_QUANTITIES);
     the page sends its own list as page.quantities. */
  var QUANTITIES = ["throughput", "concurrency", "output_throughput", "users_per_gpu"];

  /* A side's splines, one per curve quantity on the same knots (compare.py SideCurves). A quantity
     some knot lacks has no spline, so its value is null. `side` is a page-data sequence side:
     `joins` (per stretch between knots) says where concurrency is interpolated, within one
     deployment whose concurrency falls; `gpus` and `deployments` (an index into
     `configurations`) describe each knot. `constants` are the GPU's ({usd_per_gpu_hour: 1.95,
     watts_all_in: null}, page-data side.constants): a formula name that is not a curve quantity
     is one of them. */
  function SideCurves(side, names, constants) {
    if (!(this instanceof SideCurves)) { return new SideCurves(side, names, constants); }
    var knots = side.knots || [];
    var xs = knots.map(function (k) { return k[0]; });
    this.side = side;
    this.constants = constants || {};
    this.names = names || QUANTITIES;
    this.range = xs.length ? [xs[0], xs[xs.length - 1]] : null;
    this.splines = {};
    for (var q = 0; q < this.names.length; q += 1) {
      var column = q + 1;
      var ys = knots.map(function (k) { return k.length > column && isNumber(k[column]) ? k[column] : null; });
      var complete = xs.length > 0 && ys.every(isNumber);
      this.splines[this.names[q]] = complete ? new MonotoneSpline(xs, ys) : null;
    }
    this.xs = xs;
    this.joins = side.joins || [];
  }

  /* Why a curve quantity has no value at x inside the range (compare.py SideCurves.gaps). */
  SideCurves.prototype.gaps = function (x) {
    var found = {};
    if (this.splines.users_per_gpu === null) { found.users_per_gpu = "gpu_count"; }
    for (var i = 0; i < this.xs.length; i += 1) {
      if (this.xs[i] === x) { break; }
      if (this.xs[i] > x) {
        if (i > 0 && this.joins[i - 1] === false) { found.concurrency = "deployment"; }
        break;
      }
    }
    return found;
  };

  /* Every curve quantity at x, or null outside the measured range. */
  SideCurves.prototype.quantities = function (x) {
    var throughput = this.splines.throughput;
    if (throughput === null || throughput.value(x) === null) { return null; }
    var out = {};
    var gaps = this.gaps(x);
    for (var q = 0; q < this.names.length; q += 1) {
      var spline = this.splines[this.names[q]];
      out[this.names[q]] = spline && !(this.names[q] in gaps) ? spline.value(x) : null;
    }
    return out;
  };

  /* The knots a target sits between (or the one it sits on), as a reason names them: their
     interactivity, throughput, concurrency, GPU count, deployment and its configuration label
     (compare.py SideCurves.brackets). */
  SideCurves.prototype.bracketKnots = function (x) {
    var xs = this.xs;
    for (var i = 0; i < xs.length; i += 1) {
      if (xs[i] === x) { return [i]; }
      if (xs[i] > x) { return i > 0 ? [i - 1, i] : []; }
    }
    return [];
  };

  SideCurves.prototype.brackets = function (x) {
    var side = this.side, names = this.names;
    var at = this.bracketKnots(x);
    var throughput = names.indexOf("throughput") + 1, concurrency = names.indexOf("concurrency") + 1;
    return at.map(function (k) {
      var knot = side.knots[k], deployment = (side.deployments || [])[k];
      return {
        interactivity: knot[0],
        throughput: knot[throughput],
        concurrency: concurrency > 0 ? knot[concurrency] : null,
        gpus: (side.gpus || [])[k],
        deployment: deployment,
        configuration: (side.configurations || [])[deployment]
      };
    });
  };

  /* Whether a value between these knots rests on sparse data: a two-knot frontier, or knots more
     than `ratio` apart in throughput (compare.py SideCurves.sparse). */
  SideCurves.prototype.sparse = function (brackets, ratio) {
    if (brackets.length !== 2) { return false; }
    var low = Math.min(brackets[0].throughput, brackets[1].throughput);
    var high = Math.max(brackets[0].throughput, brackets[1].throughput);
    return this.xs.length === 2 || high / low > (ratio === undefined || ratio === null ? SPARSE_RATIO : ratio);
  };

  function isConstant(curves, name) {
    return Object.prototype.hasOwnProperty.call(curves.constants, name) && curves.names.indexOf(name) < 0;
  }

  /* One side at one target (compare.py metrics_at): {measured, range, values: {key: number|null},
     missing: {key: [names it lacks]}, brackets, sparse}. `curves` is a SideCurves (or a page-data
     side, without constants); `metrics` is page.metrics; `sparseRatio` page.sparse_ratio. Values
     are unrounded (concurrency too). Not measured: every value null and `range` says why. */
  function metricsAt(curves, target, metrics, sparseRatio) {
    if (!(curves instanceof SideCurves)) { curves = new SideCurves(curves); }
    var values = {}, missing = {};
    var i;
    var quantities = curves.quantities(target);
    if (quantities === null) {
      for (i = 0; i < metrics.length; i += 1) { values[metrics[i].key] = null; }
      return { measured: false, range: curves.range, values: values, missing: missing, brackets: [], sparse: false };
    }
    var known = knownValues(curves, quantities);
    var gaps = curves.gaps(target);
    for (i = 0; i < metrics.length; i += 1) {
      var metric = metrics[i];
      values[metric.key] = evaluate(metric.formula, known);
      var lacking = variables(metric.formula).filter(function (name) {
        return name in gaps || (isConstant(curves, name) && known[name] === null);
      }).map(function (name) { return name in gaps ? gaps[name] : name; });
      if (lacking.length) { missing[metric.key] = lacking; }
    }
    var brackets = curves.brackets(target);
    return {
      measured: true, range: curves.range, values: values, missing: missing,
      brackets: brackets, sparse: curves.sparse(brackets, sparseRatio),
      bounds: knotBounds(curves, curves.bracketKnots(target), gaps, metrics, values)
    };
  }

  /* Each metric with a value, as [lowest, highest] over the bracketing knots (compare.py
     knot_bounds): the curves are monotone between two knots, so the value lies in between. */
  function knotBounds(curves, at, gaps, metrics, values) {
    var atKnots = at.map(function (k) {
      var knot = curves.side.knots[k], quantities = {};
      curves.names.forEach(function (name, q) {
        quantities[name] = curves.splines[name] && !(name in gaps) ? knot[q + 1] : null;
      });
      var known = knownValues(curves, quantities);
      var out = {};
      metrics.forEach(function (metric) { out[metric.key] = evaluate(metric.formula, known); });
      return out;
    });
    var bounds = {};
    metrics.forEach(function (metric) {
      var ends = atKnots.map(function (v) { return v[metric.key]; });
      if (isNumber(values[metric.key]) && ends.length && ends.every(isNumber)) {
        bounds[metric.key] = [Math.min.apply(null, ends), Math.max.apply(null, ends)];
      }
    });
    return bounds;
  }

  /* What one metric's comparison can claim given each side's bounds (compare.py claim):
     {ratio, lo, hi, leader, grade, worst, best}, or null where a value, a bound or the rule
     is missing or a value is not positive. */
  function claim(a, b, aBounds, bBounds, better, tie, spread) {
    if (!better || !isNumber(a) || !isNumber(b) || !aBounds || !bBounds) { return null; }
    if (Math.min(a, b, aBounds[0], bBounds[0]) <= 0) { return null; }
    var ratio = a / b, lo = aBounds[0] / bBounds[1], hi = aBounds[1] / bBounds[0];
    var leader = winner(a, b, better, tie);
    if (leader === null) {
      var tied = isTie(aBounds[0], bBounds[1], tie) && isTie(aBounds[1], bBounds[0], tie);
      return { ratio: ratio, lo: lo, hi: hi, leader: null, grade: tied ? "tied" : "undetermined", worst: null, best: null };
    }
    var w = leader === 0 ? aBounds : bBounds, l = leader === 0 ? bBounds : aBounds;
    var worst, best, held;
    if (better === "higher") {
      worst = w[0] / l[1]; best = w[1] / l[0]; held = winner(w[0], l[1], better, tie);
    } else {
      worst = l[0] / w[1]; best = l[1] / w[0]; held = winner(w[1], l[0], better, tie);
    }
    var limit = spread === undefined || spread === null ? SPREAD_LIMIT : spread;
    var grade = held !== 0 ? "undetermined" : best / worst > limit ? "bounded" : "decided";
    return { ratio: ratio, lo: lo, hi: hi, leader: leader, grade: grade, worst: worst, best: best };
  }

  /* What a formula may read: the curve quantities at one x (or a measured point's) and the side's
     constants (null where the GPU has none). */
  function knownValues(curves, quantities) {
    var known = {};
    Object.keys(curves.constants).forEach(function (name) {
      known[name] = isNumber(curves.constants[name]) ? curves.constants[name] : null;
    });
    Object.keys(quantities).forEach(function (name) { known[name] = quantities[name]; });
    return known;
  }

  // -- a side from its measured points ------------------------------------------------------------

  /* The positions of the points no other point beats or equals on both interactivity and
     throughput, by rising interactivity (site_builder/engine/frontier.py pareto_frontier). Walking
     the points from the highest interactivity down (ties: higher throughput first, then input
     order), a point is on the frontier when its throughput beats every one walked before it; so of
     points at equal interactivity only the highest throughput can survive, and of exact
     duplicates only the first in input order. */
  function paretoFrontier(interactivity, throughput) {
    var walk = interactivity.map(function (x, i) { return i; });
    walk.sort(function (a, b) {
      var xa = interactivity[a], xb = interactivity[b], ya = throughput[a], yb = throughput[b];
      if (xa !== xb) { return xa > xb ? -1 : 1; }
      if (ya !== yb) { return ya > yb ? -1 : 1; }
      return a - b;
    });
    var kept = [], best = -Infinity;
    walk.forEach(function (i) {
      if (throughput[i] > best) { kept.push(i); }
      best = Math.max(best, throughput[i]);
    });
    return kept.reverse();
  }

  function given(column, i) {
    var v = column ? column[i] : null;
    return isNumber(v) && v === v ? v : null; // NaN and a missing value alike: not measured
  }

  /* A side's knots as the page data holds them (site_builder/render/pages.py _side_data), from its
     measured points on one workload, a column each: `interactivity`, the curve quantities
     (`throughput`, `concurrency`, `output_throughput`, `users_per_gpu`; null where a point lacks
     one), `deployment` (equal numbers: the same configuration), `gpus` (null: not recorded) and
     `configuration` (its label). `quantities` names the knot columns after the interactivity
     (page.quantities). Gives {knots, joins, gpus, deployments, configurations}: per knot its
     values, GPU count and deployment (an index into `configurations`, each deployment's label
     as its last knot has it, deployments in order of their first knot); per stretch between two
     knots whether one deployment's concurrency falls across it (compare.py SideCurves). */
  function sideKnots(points, quantities) {
    var names = quantities || QUANTITIES;
    var frontier = paretoFrontier(points.interactivity, points.throughput);
    var deployments = [], configurations = [], seen = [];
    frontier.forEach(function (p) {
      var n = seen.indexOf(points.deployment[p]);
      if (n < 0) { n = seen.length; seen.push(points.deployment[p]); }
      configurations[n] = points.configuration[p];
      deployments.push(n);
    });
    var joins = [];
    for (var k = 0; k + 1 < frontier.length; k += 1) {
      var a = frontier[k], b = frontier[k + 1];
      joins.push(points.concurrency[a] >= points.concurrency[b] && points.deployment[a] === points.deployment[b]);
    }
    return {
      knots: frontier.map(function (p) {
        return [points.interactivity[p]].concat(names.map(function (name) { return given(points[name], p); }));
      }),
      joins: joins,
      gpus: frontier.map(function (p) { return given(points.gpus, p); }),
      deployments: deployments,
      configurations: configurations
    };
  }

  /* A side's measured range: its first and last knot's interactivity, or null without a knot. */
  function knotRange(side) {
    var knots = side.knots || [];
    return knots.length ? [knots[0][0], knots[knots.length - 1][0]] : null;
  }

  /* The intersection of two measured ranges as {lo, hi} (lo ≤ hi, possibly one point), both null
     where a range is missing or they are apart (compare.py band_of). */
  function bandOf(rangeA, rangeB) {
    if (!rangeA || !rangeB) { return { lo: null, hi: null }; }
    var lo = Math.max(rangeA[0], rangeB[0]), hi = Math.min(rangeA[1], rangeB[1]);
    return lo <= hi ? { lo: lo, hi: hi } : { lo: null, hi: null };
  }

  /* [lo, hi] where the band is a matched range (width and a whole tok/s/user inside), else null
     (compare.py Band.bounds); the page data's `band`. */
  function bandBounds(band) {
    if (band.lo === null || band.hi === null || !(band.lo < band.hi)) { return null; }
    return Math.ceil(band.lo) <= Math.floor(band.hi) ? [band.lo, band.hi] : null;
  }

  var TARGET_FRACTIONS = [0.25, 0.50, 0.75]; // compare.py

  /* lo + 25/50/75% of the band width, rounded half-up to whole tok/s/user, never one twice
     (compare.py default_targets). */
  function defaultTargets(band) {
    var bounds = bandBounds(band);
    if (bounds === null) { return []; }
    var found = [];
    TARGET_FRACTIONS.forEach(function (f) {
      var target = roundHalfUp(bounds[0] + f * (bounds[1] - bounds[0]), 0);
      if (found.indexOf(target) < 0) { found.push(target); }
    });
    return found;
  }

  var CURVE_SAMPLES = 64;

  /* Where a chart samples a frontier: `count` evenly spaced interactivities across the measured
     range (clamped into it) and every knot, ascending, each once. One knot: that knot only. */
  function sampleXs(knotXs, count) {
    var n = knotXs.length, i;
    if (n < 2) { return knotXs.slice(); }
    var lo = knotXs[0], hi = knotXs[n - 1];
    var xs = knotXs.slice();
    for (i = 0; i < count; i += 1) { xs.push(Math.min(hi, Math.max(lo, lo + (hi - lo) * i / (count - 1)))); }
    xs.sort(function (a, b) { return a - b; });
    return xs.filter(function (x, j) { return j === 0 || x !== xs[j - 1]; });
  }

  /* A metric along a side's frontier, as the chart draws it: {x: [...], y: [...]} at sampleXs,
     y null where the metric is unavailable (a constant the side lacks). `side` is a SideCurves
     (or a page-data side, without constants); `metric` a page.metrics entry. */
  function curveSamples(side, metric, count) {
    var curves = side instanceof SideCurves ? side : new SideCurves(side);
    var knots = curves.side.knots || [];
    var xs = sampleXs(knots.map(function (k) { return k[0]; }), count === undefined ? CURVE_SAMPLES : count);
    var ys = xs.map(function (x) {
      var quantities = curves.quantities(x);
      return quantities === null ? null : evaluate(metric.formula, knownValues(curves, quantities));
    });
    return { x: xs, y: ys };
  }

  /* A side's measured points as the chart data lists them (site_builder/present/charts.py
     chart_data): per point 1 on the frontier, 0 off it; a point on it is the side's next knot,
     one off it the next of the `off` columns (named by `columns`), which carry a GPU count in
     place of concurrency per GPU. Per point: its interactivity, its curve quantities and whether
     it is on the frontier, in the chart data's order. */
  function measuredPoints(curves, measured, columns) {
    var knots = curves.side.knots || [], names = curves.names, onKnot = 0, offPoint = 0;
    return (measured ? measured.frontier : []).map(function (flag) {
      var quantities = {};
      if (flag === 1) {
        var knot = knots[onKnot];
        onKnot += 1;
        names.forEach(function (name, q) { quantities[name] = knot[q + 1]; });
        return { x: knot[0], quantities: quantities, onFrontier: true };
      }
      var point = {};
      columns.forEach(function (name, c) { point[name] = measured.off[c][offPoint]; });
      offPoint += 1;
      names.forEach(function (name) { quantities[name] = name in point ? point[name] : null; });
      if ("gpus" in point && names.indexOf("users_per_gpu") >= 0) {
        // concurrency ÷ GPUs, as site_builder/read/table.py derives it
        quantities.users_per_gpu = point.gpus ? point.concurrency / point.gpus : null;
      }
      return { x: point.interactivity, quantities: quantities, onFrontier: false };
    });
  }

  function isTie(a, b, tie) {
    var tolerance = tie === undefined || tie === null ? TIE_TOLERANCE : tie;
    return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
  }

  /* 0 or 1 for the side whose value is better ("higher" or "lower" wins), null for a tie (within
     `tie` of the larger magnitude), a missing value, or no rule (better ""). */
  function winner(a, b, better, tie) {
    if (!better || a === null || a === undefined || b === null || b === undefined || isTie(a, b, tie)) { return null; }
    if (better === "higher") { return a > b ? 0 : 1; }
    return a < b ? 0 : 1;
  }

  // -- words: a table cell's text and note --------------------------------------------------------

  /* "12345.6" → "12,345.6": thousands separated (site_builder/formatting.py grouped). */
  function grouped(text) {
    var sign = text.charAt(0) === "-" ? "-" : "";
    var digits = sign ? text.slice(1) : text;
    var dot = digits.indexOf(".");
    var whole = dot < 0 ? digits : digits.slice(0, dot);
    var rest = dot < 0 ? "" : digits.slice(dot);
    var groups = [];
    while (whole.length > 3) {
      groups.unshift(whole.slice(-3));
      whole = whole.slice(0, -3);
    }
    groups.unshift(whole);
    return sign + groups.join(",") + rest;
  }

  /* A metric's value as the table writes it: "$0.123", "~1,024", "12,345.6". */
  function valueText(metric, value) {
    return metric.prefix + grouped(fixed(value, metric.decimals));
  }

  /* Why a side has no value at a target: the table's note and comparison.json's reason
     (result.py range_reason). */
  function notMeasuredText(label, range) {
    if (!range) {
      return "not measured at this interactivity: " + label + " has no measured points on this workload";
    }
    return "not measured at this interactivity: " + label + "'s frontier spans " + fixed(range[0], 1) +
      "–" + fixed(range[1], 1) + " tok/s/user";
  }

  /* "2,253 (22 GPUs)": a measured concurrency and the size of the deployment that ran it
     (result.py deployment_text). */
  function deploymentText(knot) {
    return grouped(String(knot.concurrency)) + " (" + (knot.gpus ? knot.gpus + " GPUs" : "GPU count not recorded") + ")";
  }

  /* "2,253 on sglang TP8 (agg, 8 GPUs) at 41.2": a knot as a stretch's reason names it. */
  function knotWords(knot) {
    return grouped(String(knot.concurrency)) + " on " + knot.configuration + " at " + fixed(knot.interactivity, 1);
  }

  var NOT_DETERMINED = "winner not determined by the measurements";
  var BRACKETING = "given the bracketing measured points";

  /* "2.15×" (narrate.py ratio_text), and bounds rounded outwards (ratio_floor_text, ratio_ceil_text). */
  function ratioText(ratio) { return grouped(fixed(ratio, 2)) + "×"; }
  function ratioFloorText(ratio) { return ratioText(Math.floor(ratio * 100) / 100); }
  function ratioCeilText(ratio) { return ratioText(Math.ceil(ratio * 100) / 100); }
  var NO_GPU_COUNT = "a measured point on this frontier has no GPU count, so there is no per-GPU concurrency";

  /* A template's {name} fields filled in one pass (a value is never read as a template). */
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
  }

  /* Why a metric has no value (result.py constant_reason): `lacking` is the first name it lacks —
     a knot without a GPU count, a target between two deployments, or a constant the GPU lacks,
     worded from its page.constants template with the side's GPU and cost tier (or from the
     side's own `missing`, the explorer's reason for a side whose GPUs' constants differ). */
  function reason(lacking, result, side, constants) {
    if (lacking === "gpu_count") { return NO_GPU_COUNT; }
    if (side.missing && side.missing[lacking]) { return side.missing[lacking]; } // the explorer's: a side's own reason
    if (lacking === "deployment" && result.brackets.length === 2) {
      var low = result.brackets[0], high = result.brackets[1];
      var same = low.deployment === high.deployment ? "the same deployment, whose concurrency rises" : "two deployments";
      return "between " + same + ": measured concurrency " + knotWords(low) + " and " + knotWords(high) +
        " tok/s/user; no deployment ran a concurrency in between";
    }
    for (var i = 0; i < constants.length; i += 1) {
      if (constants[i].key === lacking) { return fill(constants[i].missing, { tier: side.tier, gpu: side.gpu }); }
    }
    return null;
  }

  /* One side's text and note in a metric's cell: its value, or "not measured" with the side's
     range, or the two measured concurrencies a target lies between, or "n/a" with the reason. */
  function sideCell(metric, result, side, constants) {
    if (!result.measured) { return { text: "not measured", note: notMeasuredText(side.label, result.range) }; }
    var value = result.values[metric.key];
    if (isNumber(value)) {
      var bounds = (result.bounds || {})[metric.key];
      if (!bounds || bounds[0] === bounds[1]) { return { text: valueText(metric, value), note: "" }; }
      return {
        text: valueText(metric, value),
        note: "interpolated between measured points: " + valueText(metric, bounds[0]) + " to " + valueText(metric, bounds[1])
      };
    }
    var lacking = result.missing[metric.key];
    var note = lacking ? reason(lacking[0], result, side, constants) : null;
    if (metric.key === "concurrency" && result.brackets.length === 2) {
      return {
        text: "measured: " + deploymentText(result.brackets[0]) + ", " + deploymentText(result.brackets[1]),
        note: note === null ? "" : note
      };
    }
    return { text: "n/a", note: note === null ? "unavailable" : note };
  }

  /* A metric's table cell at one target (present/tables.py target_cells): per side {text, note,
     win, measured}, the better value marked when both sides were measured. `results` are the
     sides' metricsAt answers; `page` the page data (its sides, constants and tie). */
  function cells(metric, results, page) {
    var row = rowClaim(metric, results, page);
    return results.map(function (m, i) {
      var cell = claimWords(sideCell(metric, m, page.sides[i], page.constants), row.made, page, i, row.best === i);
      return { text: cell.text, note: cell.note, win: row.best === i, measured: m.measured };
    });
  }

  /* Which of two sides a metric's row marks better (`best`: 0, 1 or null) and what the
     bracketing knots let it claim (`made`: claim's answer, or null unless both were measured):
     the numbers behind a row's cells, without their words. */
  function rowClaim(metric, results, page) {
    var both = results.every(function (m) { return m.measured; });
    var values = results.map(function (m) { return m.measured && isNumber(m.values[metric.key]) ? m.values[metric.key] : null; });
    var best = both ? winner(values[0], values[1], metric.better, page.tie) : null;
    var made = both ? claim(values[0], values[1], (results[0].bounds || {})[metric.key],
      (results[1].bounds || {})[metric.key], metric.better, page.tie, page.spread_limit) : null;
    if (made && made.grade === "undetermined") { best = null; }
    return { best: best, made: made };
  }

  /* A cell with what the bracketing knots let the row claim (present/tables.py _claim_words). */
  function claimWords(cell, made, page, i, leads) {
    if (!made) { return cell; }
    var said = "", text = cell.text;
    if (made.grade === "undetermined") {
      said = NOT_DETERMINED + ": " + page.sides[0].label + " ÷ " + page.sides[1].label + " between " +
        ratioFloorText(made.lo) + " and " + ratioCeilText(made.hi) + " " + BRACKETING;
      if (i === 1) { text += " (winner not determined)"; }
    } else if (made.grade === "bounded" && leads) {
      said = "leads by between " + ratioFloorText(made.worst) + " and " + ratioCeilText(made.best) + " " + BRACKETING;
    }
    return { text: text, note: [said, cell.note].filter(function (t) { return t; }).join("; ") };
  }

  function metricOf(page, key) {
    for (var i = 0; i < page.metrics.length; i += 1) { if (page.metrics[i].key === key) { return page.metrics[i]; } }
    return null;
  }

  /* What the live region says after a target edit: "At 40 tok/s/user: FP4 1234.5 tok/s/GPU at
     $0.123 per million tokens; FP8 not measured." */
  function columnSummary(target, results, page) {
    var throughput = metricOf(page, "throughput"), cost = metricOf(page, "cost");
    var parts = results.map(function (m, i) {
      var label = page.sides[i].label;
      if (!m.measured) { return label + " not measured"; }
      var text = label;
      if (throughput && isNumber(m.values.throughput)) {
        text += " " + fixed(m.values.throughput, throughput.decimals) + " tok/s/GPU";
      }
      if (cost && isNumber(m.values.cost)) {
        text += " at " + valueText(cost, m.values.cost) + " per million tokens";
      }
      return text;
    });
    return "At " + target + " tok/s/user: " + parts.join("; ") + ".";
  }

  /* The page's other words: the controls' labels, what the live region says, the charts'
     titles and hover lines (plain text: the page script escapes what Plotly reads as markup). */
  var words = {
    targetLabel: function (col, sequence) {
      return "Target " + (col + 1) + " interactivity for " + sequence + " (tok/s/user)";
    },
    invalidTarget: "Enter a positive interactivity in tokens per second per user.",
    sequenceShown: function (sequence) { return "Showing the " + sequence + " workload: table and chart updated."; },
    metricShown: function (label) { return "Chart shows " + label + "."; },
    viewShown: function (sequence, label) { return "Showing " + sequence + ", " + label + "."; },
    axisShown: function (axis, log) { return "The " + axis + " axis is now " + (log ? "logarithmic." : "linear."); },
    sweepShown: function (workload) { return "Sweep chart shows the " + workload + " workload."; },
    sweepCaption: function (workload, sides) {
      return workload + ": output tok/s of " + sides + " at each tested concurrency";
    },
    chartTitle: function () { return Array.prototype.join.call(arguments, " · "); }, // a PNG's title
    pngButton: "Download this chart as a PNG",
    accuracy: "accuracy",
    sweep: "sweep",
    pointLine: function (concurrency, date) {
      return (concurrency === null || concurrency === undefined ? "" : "concurrency " + grouped(String(concurrency))) +
        (date === null || date === undefined ? "" : " · " + date);
    },
    offFrontier: "(not on the frontier)"
  };

  // -- a reader's own view: the points its filters and interactivity basis keep ----------------

  /* The TPOT percentiles a view may read interactivity from, as the page data names their
     columns (site_builder/present/views.py BASES): seconds per output token. */
  var BASIS_COLUMNS = { p90: "tpot_p90", p99: "tpot_p99" };

  /* Measured points in the site's columnar encoding (site_builder/present/columns.py: a page's
     view.points, an explorer data file's points) with each point's interactivity read back: 1 /
     its median TPOT where `tpot` holds it, else `interactivity` as stored (a column holding no
     point's is left out); and its median TPOT, `tpot_median`: where that column holds none, the
     one `tpot` holds (each is written once). The other columns are the document's own (field
     codes under `codes`); `tpot` is left out. */
  function decodePoints(columns) {
    var decoded = {};
    Object.keys(columns).forEach(function (name) { if (name !== "tpot") { decoded[name] = columns[name]; } });
    var tpot = columns.tpot || [], stated = columns.interactivity || [], median = columns.tpot_median || [];
    decoded.interactivity = (columns.tpot || stated).map(function (x, n) {
      return isNumber(tpot[n]) ? 1 / tpot[n] : stated[n];
    });
    if (columns.tpot || columns.tpot_median) {
      decoded.tpot_median = decoded.interactivity.map(function (x, n) {
        return isNumber(median[n]) ? median[n] : isNumber(tpot[n]) ? tpot[n] : null;
      });
    }
    return decoded;
  }

  /* A side's points on one workload (page data view.points, column by column, decodePoints) that a reader's
     view keeps: those whose code of each chosen field is the chosen one (`view.filters`: field
     key → index into that field's values), with an interactivity on the chosen basis — the
     point's own for "median", else 1 / TPOT at that percentile in seconds (DESIGN.md's
     interactivity, at that percentile), which a point without it lacks. The same columns for the
     points kept (interactivity on the basis) with what sideKnots reads besides — concurrency per
     GPU (concurrency ÷ GPUs, as site_builder/read/table.py derives it) and each point's
     configuration label (`configurations`, by deployment) — their `positions` among the side's
     points, and `lacking`: how many points the filters keep that lack the percentile. */
  function viewPoints(points, view, configurations) {
    var column = BASIS_COLUMNS[view.basis] || null;
    var names = Object.keys(points).filter(function (name) { return name !== "codes"; });
    var keys = Object.keys(view.filters);
    var kept = { positions: [], lacking: 0 };
    names.forEach(function (name) { kept[name] = []; });
    points.interactivity.forEach(function (own, n) {
      for (var k = 0; k < keys.length; k += 1) {
        if (points.codes[keys[k]][n] !== view.filters[keys[k]]) { return; }
      }
      var tpot = column ? points[column][n] : null;
      if (column && !(isNumber(tpot) && tpot > 0)) { kept.lacking += 1; return; }
      kept.positions.push(n);
      names.forEach(function (name) { kept[name].push(points[name][n]); });
      kept.interactivity[kept.interactivity.length - 1] = column ? 1 / tpot : own;
    });
    kept.users_per_gpu = kept.concurrency.map(function (users, n) { return kept.gpus[n] ? users / kept.gpus[n] : null; });
    kept.configuration = kept.deployment.map(function (d) { return configurations[d]; });
    return kept;
  }

  /* The points a view keeps (viewPoints) as the chart marks them (measuredPoints' shape): per
     point its interactivity on the view's basis, its curve quantities (`names`), whether it is
     on the side's frontier (paretoFrontier) and its position among all the side's points (the
     chart data's configuration and date are listed by it). */
  function viewMeasuredPoints(kept, names) {
    var on = {};
    paretoFrontier(kept.interactivity, kept.throughput).forEach(function (n) { on[n] = true; });
    return kept.positions.map(function (position, n) {
      var quantities = {};
      names.forEach(function (name) { quantities[name] = name in kept ? kept[name][n] : null; });
      return { x: kept.interactivity[n], quantities: quantities, onFrontier: on[n] === true, position: position };
    });
  }

  // -- the latency view: latency at each tested concurrency --------------------------------------

  var LATENCY_STATISTICS = ["median", "p90", "p99"]; // site_builder/compute.py LATENCY_VIEW_STATISTICS
  var MARKER_DIGITS = 6; // site_builder/present/charts.py

  /* A measured value as a chart marker holds it (charts.py marker_value): 6 significant digits. */
  function markerValue(value) {
    return isNumber(value) ? Number(value.toPrecision(MARKER_DIGITS)) : value;
  }

  /* Per tested concurrency, ascending, the point of highest throughput among those that measured
     any statistic (`values`: a column per statistic, null where not measured), the first on a
     tie, an unknown throughput below any known (site_builder/engine/latency.py by_concurrency):
     [{concurrency, point, values}]; a concurrency where no point measured any is left out. */
  function latencyAt(concurrency, throughput, values) {
    var best = {};
    concurrency.forEach(function (level, n) {
      if (!values.some(function (column) { return isNumber(column[n]); })) { return; }
      var held = best[level];
      var above = held === undefined || (isNumber(throughput[n]) &&
        (!isNumber(throughput[held]) || throughput[n] > throughput[held]));
      if (above) { best[level] = n; }
    });
    return Object.keys(best).map(Number).sort(function (a, b) { return a - b; }).map(function (level) {
      var n = best[level];
      return { concurrency: level, point: n, values: values.map(function (column) { return isNumber(column[n]) ? column[n] : null; }) };
    });
  }

  /* One side's series of a latency chart from its points (view data columns, or the points a
     view keeps: viewPoints), as site_builder/present/charts.py _latency_trace draws them: per
     statistic, at each tested concurrency where it was measured, the concurrency (x), the value
     in the chart's unit (`scale` to a second; y), the configuration that speaks for it (text)
     and its throughput (customdata). `metric`: ttft, e2el or tpot. */
  function latencySeries(points, metric, scale) {
    var values = LATENCY_STATISTICS.map(function (stat) {
      return points[metric + "_" + stat] || points.concurrency.map(function () { return null; });
    });
    var found = latencyAt(points.concurrency, points.throughput, values);
    var series = {};
    LATENCY_STATISTICS.forEach(function (stat, s) {
      var line = { x: [], y: [], text: [], customdata: [] };
      found.forEach(function (at) {
        if (at.values[s] === null) { return; }
        line.x.push(at.concurrency);
        line.y.push(markerValue(at.values[s] * scale));
        line.text.push(points.configuration[at.point]);
        line.customdata.push(markerValue(points.throughput[at.point]));
      });
      series[stat] = line;
    });
    return series;
  }

  /* A latency table's rows from each side's points (site_builder/present/latency.py _rows): a
     row per concurrency either side tested, ascending, each side's statistics there (in
     LATENCY_STATISTICS order, in the table's unit: `scale` to a second; null where not
     measured), or null where that side did not test it. */
  function latencyRows(sides, metric, scale) {
    var found = sides.map(function (points) {
      var values = LATENCY_STATISTICS.map(function (stat) {
        return points[metric + "_" + stat] || points.concurrency.map(function () { return null; });
      });
      var at = {};
      latencyAt(points.concurrency, points.throughput, values).forEach(function (a) { at[a.concurrency] = a; });
      return at;
    });
    var levels = [];
    found.forEach(function (at) { Object.keys(at).forEach(function (level) { if (levels.indexOf(Number(level)) < 0) { levels.push(Number(level)); } }); });
    levels.sort(function (a, b) { return a - b; });
    return levels.map(function (level) {
      return {
        concurrency: level,
        sides: found.map(function (at) {
          return at[level] ? at[level].values.map(function (v) { return v === null ? null : v * scale; }) : null;
        })
      };
    });
  }

  /* A view's words: its status line, the live region's, the axis and the band's heading. */
  var viewWords = {
    status: function (sequence, sides, lacking, basis) {
      var kept = sides.map(function (side) { return side.label + " " + side.kept + " of " + side.total; });
      var text = "On " + sequence + ", points kept: " + kept.join(", ") + ".";
      if (lacking) { text += " " + lacking + (lacking === 1 ? " point lacks " : " points lack ") + basis + "."; }
      return text + " The page's text, findings and provenance describe every point.";
    },
    shown: "Table and chart recomputed for the points kept.",
    reset: "Every point shown again.",
    axis: function (basis) { return "Interactivity from " + basis + " (tok/s/user)"; },
    band: function (sequence, band) {
      return band ? sequence + ": band " + Math.ceil(band[0]) + "–" + Math.floor(band[1]) + " tok/s/user" : sequence;
    },
    noMatch: function (sequence, ranges) {
      return "No matched range at " + sequence + " for the points kept: " + ranges.map(function (side) {
        return side.range ? side.label + "'s frontier spans " + fixed(side.range[0], 1) + "–" + fixed(side.range[1], 1) +
          " tok/s/user" : side.label + " keeps no point";
      }).join("; ") + ".";
    },
    noTable: "The points kept have a matched range here, which the chart shades; the page has no table on this workload."
  };

  return {
    TIE_TOLERANCE: TIE_TOLERANCE,
    SPARSE_RATIO: SPARSE_RATIO,
    SPREAD_LIMIT: SPREAD_LIMIT,
    claim: claim,
    paretoFrontier: paretoFrontier,
    sideKnots: sideKnots,
    knotRange: knotRange,
    bandOf: bandOf,
    bandBounds: bandBounds,
    defaultTargets: defaultTargets,
    fixed: fixed,
    roundHalfUp: roundHalfUp,
    steffenTangents: steffenTangents,
    MonotoneSpline: MonotoneSpline,
    SideCurves: SideCurves,
    evaluate: evaluate,
    metricsAt: metricsAt,
    knownValues: knownValues,
    CURVE_SAMPLES: CURVE_SAMPLES,
    sampleXs: sampleXs,
    curveSamples: curveSamples,
    isTie: isTie,
    winner: winner,
    grouped: grouped,
    valueText: valueText,
    notMeasuredText: notMeasuredText,
    deploymentText: deploymentText,
    reason: reason,
    cells: cells,
    rowClaim: rowClaim,
    sideCell: sideCell,
    columnSummary: columnSummary,
    measuredPoints: measuredPoints,
    words: words,
    decodePoints: decodePoints,
    latencyAt: latencyAt,
    latencySeries: latencySeries,
    latencyRows: latencyRows,
    LATENCY_STATISTICS: LATENCY_STATISTICS,
    markerValue: markerValue,
    viewPoints: viewPoints,
    viewMeasuredPoints: viewMeasuredPoints,
    viewWords: viewWords
  };
}));
