// A reader's views of pages, as the page script works them out (templates/assets/site.js
// viewSequence), for tests/test_views.py: reads [{page, views}] (a page's page data and the views
// to work out: {filters: {key: value index}, basis}) from the JSON file named on the command
// line, prints per page, per view, per sequence: each side's knots (engine.js sideKnots), the
// band (bandBounds of bandOf), the default targets and how many points lack the basis; and
// where a case lists latency charts, their series (latencyView).
"use strict";

const fs = require("fs");
const path = require("path");

const E = require(path.resolve(__dirname, "..", "..", "templates", "assets", "engine.js"));

function sequenceView(page, seq, view) {
  const kept = page.view.points[seq].map((side) => E.viewPoints(E.decodePoints(side), view, page.view.configurations));
  const sides = kept.map((side) => E.sideKnots(side, page.quantities));
  const band = E.bandOf(E.knotRange(sides[0]), E.knotRange(sides[1]));
  return {
    sides: sides,
    band: E.bandBounds(band),
    targets: E.defaultTargets(band),
    kept: kept.map((side) => side.positions.length),
    lacking: kept.map((side) => side.lacking),
  };
}

// The latency charts of a view (site.js latencyFigure): per chart asked ({sequence, metric,
// scale}: a latency figure's `view`), each side's series of the points the filters keep, and the
// rows of its table (site.js showLatencyTables).
function latencyView(page, charts, view) {
  const filters = { filters: view.filters, basis: "median" };
  return charts.map((chart) => {
    const kept = page.view.points[chart.sequence].map((side) =>
      E.viewPoints(E.decodePoints(side), filters, page.view.configurations)
    );
    return {
      series: kept.map((side) => E.latencySeries(side, chart.metric, chart.scale)),
      rows: E.latencyRows(kept, chart.metric, chart.scale),
    };
  });
}

const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf-8"));
const answers = cases.map((c) =>
  c.views.map((view) => {
    const found = {};
    Object.keys(c.page.view.points).forEach((seq) => { found[seq] = sequenceView(c.page, seq, view); });
    if (c.latency) { found.latency = latencyView(c.page, c.latency, view); }
    return found;
  })
);
process.stdout.write(JSON.stringify(answers));
