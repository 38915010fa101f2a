/* The index page's controls: the scorecards' metric switch and filters, and the search over the
   page list. Every value and word is in the page, made by the build (site_builder/present/
   scorecard.py); this file only shows and hides elements. Without it the index shows the first
   metric, every row and every page. */
(function () {
  "use strict";

  function all(selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); }

  function showMetric(key) {
    all(".scorecards [data-metric]").forEach(function (el) { el.hidden = el.getAttribute("data-metric") !== key; });
  }

  function rowPasses(row, chosen) {
    return chosen.every(function (pick) {
      return (row.getAttribute("data-" + pick[0]) || "").split("|").indexOf(pick[1]) >= 0;
    });
  }

  function filterRows(selects, status) {
    var chosen = selects.filter(function (s) { return s.value; }).map(function (s) {
      return [s.getAttribute("data-filter"), s.value];
    });
    var rows = all(".scorecard-table tbody tr");
    var shown = 0;
    rows.forEach(function (row) {
      row.hidden = !rowPasses(row, chosen);
      shown += row.hidden ? 0 : 1;
    });
    status.textContent = shown + " of " + rows.length + " rows shown";
  }

  function scorecardControls() {
    var form = document.getElementById("scorecard-controls");
    if (!form) { return; }
    var metric = document.getElementById("scorecard-metric");
    var status = document.getElementById("scorecard-status");
    var selects = all("select[data-filter]", form);
    form.hidden = false;
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    metric.addEventListener("change", function () { showMetric(metric.value); });
    selects.forEach(function (s) { s.addEventListener("change", function () { filterRows(selects, status); }); });
    showMetric(metric.value);
  }

  function pageSearch() {
    var input = document.getElementById("page-search");
    if (!input) { return; }
    var status = document.getElementById("page-search-status");
    var items = all(".index-list li");
    input.parentNode.parentNode.hidden = false;
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      items.forEach(function (li) {
        var text = li.textContent.toLowerCase();
        li.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
        shown += li.hidden ? 0 : 1;
      });
      status.textContent = words.length ? shown + " of " + items.length + " pages match" : "";
    });
  }

  scorecardControls();
  pageSearch();
})();
