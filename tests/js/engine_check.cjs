// The page engine's answers for tests/test_engine_js.py: reads the cases (a JSON file named on the
// command line, or stdin for "-"), runs them through templates/assets/engine.js and prints the answers as JSON.
//
// Cases: {"fixed": [{value, decimals}], "spline": [{xs, ys, at}], "evaluate": [{formula, values}],
// "winner": [{a, b, better, tie}], "page": [{page, targets}] (a page's data and the
// targets its table is worked out at), "curve": [{side, constants, metrics}] (a chart's samples of
// each metric along a side's frontier), "knots": [{sides, quantities}] (two sides' measured
// points, a column each: their frontiers, knots, band and default targets)}; fixed's
// value is Python's repr text ("nan", "inf" and "-0.0" included), so every float arrives exactly.
"use strict";

const fs = require("fs");
const path = require("path");
const vm = require("vm");

const ENGINE = path.resolve(__dirname, "..", "..", "templates", "assets", "engine.js");
const E = require(ENGINE);

function number(text) {
  if (text === "nan") return NaN;
  if (text === "inf") return Infinity;
  if (text === "-inf") return -Infinity;
  return Number(text);
}

function attempt(fn) {
  try {
    return { ok: fn() };
  } catch (error) {
    return { error: String(error && error.message) };
  }
}

function fixedCase(c) {
  const value = number(c.value);
  const text = attempt(() => E.fixed(value, c.decimals));
  const rounded = attempt(() => E.roundHalfUp(value, c.decimals));
  return {
    text: "ok" in text ? text.ok : null,
    rounded: "ok" in rounded ? rounded.ok : null,
  };
}

function splineCase(c) {
  const spline = new E.MonotoneSpline(c.xs, c.ys);
  return { tangents: E.steffenTangents(c.xs, c.ys), values: c.at.map((x) => spline.value(x)) };
}

/* A page's table at the targets: per target each side's numbers and, per shown metric
   (page.metrics), each side's cell, from the page data alone. */
function pageCase(c) {
  const page = c.page;
  const sequence = page.sequences[page.default_sequence];
  const curves = sequence.sides.map((side, i) => new E.SideCurves(side, page.quantities, page.sides[i].constants));
  return c.targets.map((target) => {
    const results = curves.map((side) => E.metricsAt(side, target, page.metrics, page.sparse_ratio));
    return {
      sides: results.map((m) => ({
        measured: m.measured,
        range: m.range,
        values: m.measured ? m.values : {},
        missing: m.missing,
        brackets: m.brackets.map((knot) => knot.interactivity),
        sparse: m.sparse,
        bounds: m.measured ? m.bounds : {},
      })),
      cells: page.metrics.map((metric) => E.cells(metric, results, page)),
    };
  });
}

/* Two sides' measured points: each side's frontier and knots, their band and default targets. */
function knotsCase(c) {
  const sides = c.sides.map((points) => E.sideKnots(points, c.quantities));
  const band = E.bandOf(E.knotRange(sides[0]), E.knotRange(sides[1]));
  return {
    frontiers: c.sides.map((points) => E.paretoFrontier(points.interactivity, points.throughput)),
    targets: E.defaultTargets(band),
    band: E.bandBounds(band),
    sides: sides,
  };
}

function curveCase(c) {
  const curves = new E.SideCurves(c.side, undefined, c.constants);
  return c.metrics.map((metric) => E.curveSamples(curves, metric));
}

/* The same file as a browser loads it: a plain script defining window.SiteEngine. */
function browserGlobal() {
  const sandbox = { window: {} };
  vm.runInNewContext(fs.readFileSync(ENGINE, "utf8"), sandbox, { filename: ENGINE });
  const engine = sandbox.window.SiteEngine;
  return engine ? Object.keys(engine).sort() : null;
}

const source = process.argv[2];
const input = JSON.parse(fs.readFileSync(source === undefined || source === "-" ? 0 : source, "utf8"));
const out = {
  fixed: (input.fixed || []).map(fixedCase),
  spline: (input.spline || []).map(splineCase),
  evaluate: (input.evaluate || []).map((c) => E.evaluate(c.formula, c.values)),
  winner: (input.winner || []).map((c) => E.winner(c.a, c.b, c.better, c.tie)),
  page: (input.page || []).map(pageCase),
  curve: (input.curve || []).map(curveCase),
  knots: (input.knots || []).map(knotsCase),
  node_exports: Object.keys(E).sort(),
  browser_global: browserGlobal(),
};
process.stdout.write(JSON.stringify(out));
