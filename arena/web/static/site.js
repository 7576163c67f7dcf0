/* The site's pages: sortable tables, the game list's filters, and (under arena serve) a
   reload when new games land. No network beyond the server that sent the page. */
(function () {
  "use strict";
  function cellValue(row, i, numeric) {
    var cell = row.cells[i], raw = cell.getAttribute("data-value");
    var text = raw !== null ? raw : cell.textContent.trim();
    return numeric ? (parseFloat(text) || 0) : text.toLowerCase();
  }
  function sortBy(table, i, th) {
    var numeric = th.getAttribute("data-type") === "num";
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, i, numeric), y = cellValue(b, i, numeric);
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.tabIndex = 0;
      th.classList.add("sort");
      th.addEventListener("click", function () { sortBy(table, i, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, i, th); }
      });
    });
  });

  var form = document.getElementById("filters");
  if (form) {
    var params = new URLSearchParams(location.search);
    ["bot", "round", "size", "category", "failure", "table"].forEach(function (name) {
      if (params.get(name) !== null && form.elements[name]) { form.elements[name].value = params.get(name); }
    });
    // each row's data read once: a big tournament's list has thousands of rows
    var rows = Array.prototype.map.call(document.querySelectorAll("#games tbody tr"), function (tr) {
      var d = tr.dataset;
      return { tr: tr, bots: " " + d.bots + " ", round: d.round, table: d.table, size: d.size,
               categories: d.categories.split("|"), failures: d.failures ? d.failures.split(" ") : [] };
    });
    var apply = function () {
      var f = form.elements, shown = 0;
      var bot = f.bot.value, round = f.round.value, table = f.table ? f.table.value : "";  // none in a league
      var size = f.size.value, category = f.category.value, failure = f.failure.value;
      rows.forEach(function (r) {
        var ok = (!bot || r.bots.indexOf(" " + bot + " ") >= 0) && (!round || r.round === round) &&
          (!table || r.table === table) && (!size || r.size === size) &&
          (!category || r.categories.indexOf(category) >= 0) &&
          (!failure || (failure === "*" ? r.failures.length > 0 : r.failures.indexOf(failure) >= 0));
        if (r.tr.hidden === ok) { r.tr.hidden = !ok; }  // a row left as it is costs nothing
        if (ok) { shown++; }
      });
      document.getElementById("shown").textContent = shown + " of " + rows.length + " games shown";
    };
    var remember = function () {  // the filters in the address: a view to share or come back to
      var chosen = new URLSearchParams();
      Array.prototype.forEach.call(form.elements, function (e) { if (e.name && e.value) { chosen.set(e.name, e.value); } });
      var query = chosen.toString();
      try { history.replaceState(null, "", query ? "?" + query : location.pathname); } catch (e) { /* file:// may refuse */ }
    };
    form.addEventListener("change", function () { apply(); remember(); });
    apply();
  }

  var live = document.body.getAttribute("data-live");
  var state = document.body.getAttribute("data-state");
  if (live !== null && window.fetch) {
    setInterval(function () {
      fetch("api/progress.json", { cache: "no-store" }).then(function (r) { return r.json(); })
        .then(function (p) { if (String(p.games) !== live || p.state !== state) { location.reload(); } })
        .catch(function () { /* the server stopped: keep the page as it is */ });
    }, 5000);
  }
}());
