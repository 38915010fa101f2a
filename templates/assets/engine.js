/* The comparison page's computational engine: the Python engine's arithmetic, operation for
   operation, so a number the page computes for a reader's own target equals the one the build
   would have written.

   Mirrors:
   - fixed / roundHalfUp: site_builder/numbers.py (half-up on the shortest decimal representation,
     Python's Decimal(repr(value)).quantize(..., ROUND_HALF_UP), written out as str(Decimal) does);
   - steffenTangents / MonotoneSpline: site_builder/engine/spline.py (Steffen interior tangents,
     d3's one-sided end rule, evaluated as scipy's CubicHermiteSpline does: power-basis
     coefficients per interval, summed term by term);
   - evaluate: site_builder/metrics.py (expression trees, folded left to right, null in = null out);
   - metricsAt / winner / isTie: site_builder/engine/compare.py;
   - curveSamples: where the charts draw a frontier (the interactivity chart's curves, sampled
     with the same spline; tests/test_engine_js.py holds them to the Python engine's values);
   - notMeasuredText: range_reason in site_builder/comparison_json.py.

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

  /* Half-up rounded, fixed-point text (site_builder/numbers.py fixed): 12.25 -> "12.3",
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

  /* The half-up rounded number (site_builder/numbers.py round_half_up). */
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

  // The curve quantities a side's knots carry: [interactivity, throughput, concurrency(, output)].
  /* The curve quantities in knot-column order after the interactivity (metrics.CURVE_QUANTITIES);
     the page sends its own list as page.quantities. */
  var QUANTITIES = ["throughput", "concurrency", "output_throughput", "users_per_gpu"];

  /* A side's splines, one per curve quantity on the same knots (compare.py SideCurves). A quantity
     some knot lacks has no spline, so its value is null. `side.joins` (per stretch between knots)
     says where concurrency is interpolated: within one deployment whose concurrency falls. */
  function SideCurves(side, names) {
    if (!(this instanceof SideCurves)) { return new SideCurves(side, names); }
    var knots = side.knots || [];
    var xs = knots.map(function (k) { return k[0]; });
    this.side = side;
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

  function constantOf(side, name) {
    var v = side[name];
    return isNumber(v) ? v : null;
  }

  /* One side at one target (compare.py metrics_at): {measured, range, values: {key: number|null},
     missing: {key: [constant names it lacks]}}. `side` is a page-data side ({knots,
     usd_per_gpu_hour, watts_all_in}) or its SideCurves; `metrics` is page.metrics. Values are
     unrounded (concurrency too). Not measured: every value null and `range` says why. */
  function metricsAt(side, target, metrics) {
    var curves = side instanceof SideCurves ? side : new SideCurves(side);
    var values = {}, missing = {};
    var i;
    var quantities = curves.quantities(target);
    if (quantities === null) {
      for (i = 0; i < metrics.length; i += 1) { values[metrics[i].key] = null; }
      return { measured: false, range: curves.range, values: values, missing: missing };
    }
    var known = knownValues(curves.side, quantities);
    var gaps = curves.gaps(target);
    for (i = 0; i < metrics.length; i += 1) {
      var metric = metrics[i];
      values[metric.key] = evaluate(metric.formula, known);
      var lacking = variables(metric.formula).filter(function (name) {
        return name in gaps || ((name === "usd_per_gpu_hour" || name === "watts_all_in") && (known[name] === null || known[name] === undefined));
      }).map(function (name) { return name in gaps ? gaps[name] : name; });
      if (lacking.length) { missing[metric.key] = lacking; }
    }
    return { measured: true, range: curves.range, values: values, missing: missing };
  }

  /* What a formula may read: the curve quantities at one x (or a measured point's) and the side's
     constants (page-data side: usd_per_gpu_hour, watts_all_in). */
  function knownValues(side, quantities) {
    var known = {};
    Object.keys(quantities).forEach(function (name) { known[name] = quantities[name]; });
    known.usd_per_gpu_hour = constantOf(side, "usd_per_gpu_hour");
    known.watts_all_in = constantOf(side, "watts_all_in");
    return known;
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
     y null where the metric is unavailable (a constant the side lacks). `side` is a page-data
     side or its SideCurves; `metric` a page.metrics entry. */
  function curveSamples(side, metric, count) {
    var curves = side instanceof SideCurves ? side : new SideCurves(side);
    var knots = curves.side.knots || [];
    var xs = sampleXs(knots.map(function (k) { return k[0]; }), count === undefined ? CURVE_SAMPLES : count);
    var ys = xs.map(function (x) {
      var quantities = curves.quantities(x);
      return quantities === null ? null : evaluate(metric.formula, knownValues(curves.side, quantities));
    });
    return { x: xs, y: ys };
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

  /* Why a side has no value at a target: the table's tooltip and comparison.json's reason. */
  function notMeasuredText(label, range) {
    if (!range) {
      return "not measured at this interactivity: " + label + " has no measured points on this workload";
    }
    return "not measured at this interactivity: " + label + "'s frontier spans " + fixed(range[0], 1) +
      "–" + fixed(range[1], 1) + " tok/s/user";
  }

  return {
    TIE_TOLERANCE: TIE_TOLERANCE,
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
    notMeasuredText: notMeasuredText
  };
}));
