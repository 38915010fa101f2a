// The explorer's URL state and side selection (templates/assets/explore.js), for
// tests/test_explore_js.py: reads a list of cases from the JSON file named on the command line
// and prints one answer per case:
//   {query}        → {state: parseQuery(query), query: stateQuery(state), again: parseQuery(that)}
//                    or {error} where parsing throws
//   {state}        → {query: stateQuery(state), parsed: parseQuery(that)}
//   {query, data}  → as {query}, and per side the positions of the model's points it selects on
//                    the state's sequence (selectPoints; data: a model's explorer data document)
"use strict";

const fs = require("fs");
const path = require("path");

const X = require(path.resolve(__dirname, "..", "..", "templates", "assets", "explore.js"));

function answer(c) {
  if (c.state) {
    const query = X.stateQuery(c.state);
    return { query: query, parsed: X.parseQuery(query) };
  }
  try {
    const state = X.parseQuery(c.query);
    const query = X.stateQuery(state);
    const found = { state: state, query: query, again: X.parseQuery(query) };
    if (c.data) {
      const seq = c.data.sequences.findIndex((s) => s[0] === state.seq);
      found.selected = state.sides.map((filters) => X.selectPoints(c.data, filters, seq));
    }
    return found;
  } catch (e) {
    return { error: String(e && e.stack ? e.stack : e) };
  }
}

const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf-8"));
process.stdout.write(JSON.stringify(cases.map(answer)));
