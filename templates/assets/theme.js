/* The header's light/dark switch (loaded with `defer`). A reader's remembered choice
   (localStorage) is applied before the first paint by the few lines base.html holds inline in
   <head>, which a script file there would delay: the page is not parsed until it has loaded.
   "System" follows the operating system. */
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "site-theme";
  function known(choice) { return choice === "light" || choice === "dark"; }

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
