/* The header's light/dark switch. Loaded in <head> without `defer`, so a reader's remembered
   choice (localStorage) applies before the first paint; "System" follows the operating system. */
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "site-theme";
  function known(choice) { return choice === "light" || choice === "dark"; }
  try {
    var stored = window.localStorage.getItem(KEY);
    if (known(stored)) { root.setAttribute("data-theme", stored); }
  } catch (e) { /* storage refused: follow the system */ }

  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("theme-select");
    if (!select) { return; }
    select.value = root.getAttribute("data-theme") || "system";
    select.parentNode.hidden = false;
    select.addEventListener("change", function () {
      var choice = select.value;
      try {
        if (known(choice)) { window.localStorage.setItem(KEY, choice); }
        else { window.localStorage.removeItem(KEY); }
      } catch (e) { /* storage refused: the choice lasts for this page only */ }
      /* site.js watches this attribute and repaints the charts in the new colours. */
      if (known(choice)) { root.setAttribute("data-theme", choice); }
      else { root.removeAttribute("data-theme"); }
    });
  });
})();
