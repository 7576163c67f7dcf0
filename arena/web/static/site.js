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
    // equal values go by a Swiss's standings (a row's data-standing, its place there), so
    // the points column sorted down lists bots of equal points in Buchholz order, as the
    // standings do, not in the order the board was in
    function standing(row) { return parseFloat(row.getAttribute("data-standing")) || 0; }
    rows.sort(function (a, b) {
      var x = cellValue(a, i, numeric), y = cellValue(b, i, numeric);
      var order = (x < y ? -1 : x > y ? 1 : 0) || standing(b) - standing(a);
      return order * (asc ? 1 : -1);
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

  // a table wider than its box scrolls sideways inside it, and a phone shows no scroll bar
  // until it is touched: a line above the table says so, while (and only while) it is wider
  var hints = Array.prototype.map.call(document.querySelectorAll("main .scroll"), function (box) {
    var hint = document.createElement("p");
    hint.className = "scroll-hint";
    hint.textContent = "\u2194 Swipe the table sideways for more columns.";
    hint.hidden = true;
    box.parentNode.insertBefore(hint, box);
    return { box: box, hint: hint };
  });
  // a box that scrolls is a stop for the keyboard too (its arrows scroll it), named after the
  // heading above it
  function title(box) {
    for (var node = box.previousElementSibling; node; node = node.previousElementSibling) {
      if (/^(H2|H3|SUMMARY)$/.test(node.tagName)) { return node.textContent; }
    }
    var heading = box.closest("section") && box.closest("section").querySelector("h2");
    return heading ? heading.textContent : "The table";
  }
  var checkScroll = function () {
    hints.forEach(function (h) {
      var wide = h.box.scrollWidth > h.box.clientWidth + 1;
      h.hint.hidden = !wide;
      if (wide && !h.box.hasAttribute("tabindex")) {
        h.box.setAttribute("tabindex", "0");
        h.box.setAttribute("role", "region");
        h.box.setAttribute("aria-label", title(h.box) + " (scrolls sideways)");
      } else if (!wide && h.box.hasAttribute("tabindex")) {
        ["tabindex", "role", "aria-label"].forEach(function (a) { h.box.removeAttribute(a); });
      }
    });
  };
  if (window.ResizeObserver) {  // a window turned, a details opened, rows drawn
    var observer = new ResizeObserver(checkScroll);
    hints.forEach(function (h) { observer.observe(h.box); if (h.box.firstElementChild) { observer.observe(h.box.firstElementChild); } });
  } else {
    window.addEventListener("resize", checkScroll);
  }
  checkScroll();

  // a line's name at its end shows what fits between the line and the chart's edge (the
  // names are cut in letters, and only the browser knows their width in the system's fonts):
  // cut further, letter by letter, with an ellipsis; whole in its tooltip and the legend
  var chart = document.querySelector("svg.chart"), picks = document.querySelectorAll(".legend .pick");
  var fit = function (labels) {
    Array.prototype.forEach.call(labels, function (label) {
      var room = chart.viewBox.baseVal.width - label.x.baseVal[0].value - 4, text = label.lastChild;
      if (!label.getComputedTextLength() || label.getComputedTextLength() <= room) { return; }  // not drawn, or fits
      var letters = text.data.replace(/[\u2068\u2069\u2026]/g, "").match(/\P{M}\p{M}*/gu) || [];
      while (letters.length > 1 && label.getComputedTextLength() > room) {
        letters.pop();
        text.data = "\u2068" + letters.join("") + "\u2026\u2069";  // isolated, as made
      }
    });
  };
  if (chart) {
    var fitAll = function () { fit(chart.querySelectorAll(".end-label")); };
    fitAll();
    window.addEventListener("resize", fitAll);  // a phone turned: the other names are drawn
  }

  // a big field's rating chart names only its top lines at their ends: pointing at a line or
  // at its legend entry (or focusing the entry) names that line and draws it over the others,
  // and pressing the entry keeps it so
  if (chart && picks.length) {
    var pinned = "", caption = document.getElementById("picked-name");
    var pick = function (key) {
      Array.prototype.forEach.call(chart.querySelectorAll("g.bot.picked"), function (g) { g.classList.remove("picked"); });
      var line = key ? chart.querySelector('g.bot[data-bot="' + CSS.escape(key) + '"]') : null;
      chart.classList.toggle("picking", !!line);
      if (line) { line.classList.add("picked"); chart.appendChild(line); fit(line.querySelectorAll(".end-label")); }
      var entry = line ? document.querySelector('.legend .pick[data-bot="' + CSS.escape(key) + '"]') : null;
      caption.textContent = "";
      if (entry) {  // its swatch and whole name, as the legend has them
        Array.prototype.forEach.call(entry.childNodes, function (node) { caption.appendChild(node.cloneNode(true)); });
      }
    };
    var back = function () { pick(pinned); };
    Array.prototype.forEach.call(chart.querySelectorAll("g.bot"), function (g) {
      g.addEventListener("mouseenter", function () { pick(g.getAttribute("data-bot")); });
      g.addEventListener("mouseleave", back);
    });
    // the legend is one stop of the Tab key, not one per bot (a class's legend is long): a
    // toolbar with a roving tabindex, entered at the entry last used; the arrow keys move
    // between the entries (round from the last to the first), Home and End go to the ends
    var roveTo = function (button) {
      Array.prototype.forEach.call(picks, function (b) { b.tabIndex = b === button ? 0 : -1; });
    };
    roveTo(picks[0]);
    var moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    Array.prototype.forEach.call(picks, function (button, i) {
      button.addEventListener("keydown", function (e) {
        var to = e.key === "Home" ? 0 : e.key === "End" ? picks.length - 1
          : e.key in moves ? (i + moves[e.key] + picks.length) % picks.length : -1;
        if (to < 0 || e.altKey || e.ctrlKey || e.metaKey) { return; }
        e.preventDefault();
        roveTo(picks[to]);
        picks[to].focus();
      });
    });
    Array.prototype.forEach.call(picks, function (button) {
      var key = button.getAttribute("data-bot");
      button.addEventListener("focus", function () { roveTo(button); });
      ["mouseenter", "focus"].forEach(function (e) { button.addEventListener(e, function () { pick(key); }); });
      ["mouseleave", "blur"].forEach(function (e) { button.addEventListener(e, back); });
      button.addEventListener("click", function () {
        pinned = pinned === key ? "" : key;
        Array.prototype.forEach.call(picks, function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-bot") === pinned)); });
        pick(pinned || key);
      });
    });
  }

  var form = document.getElementById("filters");
  var listing = document.getElementById("games-data");
  if (form) {
    // the filters apply as they change: Enter must not send the form (a handler in the
    // markup would be refused by the served pages' policy, which runs no inline script)
    form.addEventListener("submit", function (event) { event.preventDefault(); });
  }
  if (form && listing) {
    // every game as data; the list draws a page of the matching ones at a time, since a big
    // tournament's thousands of rows take the browser seconds to lay out
    var data = JSON.parse(listing.textContent);
    var body = document.querySelector("#games tbody");
    var step = parseInt(document.getElementById("games").getAttribute("data-step"), 10) || 500;
    var moreBox = document.querySelector("p.more"), moreButton = document.getElementById("more-games");
    var games = data.rows.map(function (g) {
      return { slug: g[0], round: String(g[1]), table: String(g[2]), size: String(g[3].length),
               bots: g[3].map(function (i) { return data.bots[i]; }),
               labels: g[3].map(function (i) { return data.labels[i]; }), places: g[4],
               categories: g[5].map(function (i) { return data.categories[i]; }),
               tiebreak: g[6], failures: g[7], failedSeats: g[8] || [] };
    });
    var matching = games, drawn = 0;
    var cell = function (tr, text) { var td = tr.insertCell(); td.textContent = text; return td; };
    var drawRow = function (g) {
      var tr = document.createElement("tr"), first = tr.insertCell(), a = document.createElement("a");
      a.href = "games/" + g.slug + ".html"; a.textContent = g.slug; first.appendChild(a);
      cell(tr, g.round);
      var seats = tr.insertCell();
      g.labels.forEach(function (label, i) {
        if (i) { seats.appendChild(document.createTextNode(" · ")); }
        var span = document.createElement("span");
        span.className = g.places[i] === 1 ? "seat-entry first" : "seat-entry";
        // the name isolated: a right-to-left one keeps the place and category after it
        var name = document.createElement("bdi");
        name.textContent = label;
        span.appendChild(name);
        span.appendChild(document.createTextNode(" (" + g.places[i] + ", " + (i < g.categories.length ? g.categories[i] : "?") + ")"));
        seats.appendChild(span);
      });
      cell(tr, g.tiebreak);
      cell(tr, g.failures.join(", "));
      return tr;
    };
    var count = function (n) { return n.toLocaleString("en"); };
    var drawMore = function () {
      var end = Math.min(matching.length, drawn + step), rows = document.createDocumentFragment();
      for (var i = drawn; i < end; i++) { rows.appendChild(drawRow(matching[i])); }
      body.appendChild(rows);
      drawn = end;
      var left = matching.length - drawn;
      document.getElementById("shown").textContent = left === 0 || matching.length === games.length
        ? count(drawn) + " of " + count(games.length) + " games shown"
        : count(drawn) + " of " + count(matching.length) + " matching games shown (" + count(games.length) + " in all)";
      moreBox.hidden = left === 0;
      moreButton.textContent = left > step ? "Show " + count(step) + " more" : "Show the last " + count(left);
    };
    var apply = function () {
      var f = form.elements;
      var bot = f.bot.value, round = f.round.value, table = f.table ? f.table.value : "";  // none in a league
      var size = f.size.value, category = f.category.value, failure = f.failure.value;
      matching = games.filter(function (g) {
        return (!bot || g.bots.indexOf(bot) >= 0) && (!round || g.round === round) &&
          (!table || g.table === table) && (!size || g.size === size) &&
          (!category || g.categories.indexOf(category) >= 0) &&
          (!failure || g.failures.some(function (type, i) {
            // with a bot chosen, its own failure: not one of its table's other bots'
            var seat = g.failedSeats[i], own = !bot || seat === null || seat === undefined ||
              g.bots[seat] === bot;
            return own && (failure === "*" || type === failure);
          }));
      });
      body.textContent = "";
      drawn = 0;
      drawMore();
      // the failures listed above follow the bot and failure filters: a leaderboard's
      // failure count opens its bot's games, and its failures come first, not everyone's
      var items = document.querySelectorAll("ul.failures li[data-failure]"), matched = 0;
      Array.prototype.forEach.call(items, function (li) {
        li.hidden = !((!bot || li.getAttribute("data-bot") === bot) &&
          (!failure || failure === "*" || li.getAttribute("data-failure") === failure));
        matched += li.hidden ? 0 : 1;
      });
      var said = document.getElementById("failures-shown");
      if (said) {
        said.textContent = !(bot || failure) || !items.length ? "" : (matched ? matched : "None") +
          " of the " + count(items.length) + " failures listed match the filters below.";
      }
    };
    var params = new URLSearchParams(location.search);
    // a link's value that no option holds (a stale link: a bot not in this tournament) stays
    // chosen, as its own option, so the list matches what the link asked (nothing), and a
    // line says why instead of the select going blank and the filter being dropped unsaid
    var stale = document.createElement("p"), staleSaid = [];
    stale.id = "stale-filter";
    stale.className = "stale";
    stale.setAttribute("role", "status");
    form.parentNode.insertBefore(stale, form);
    ["bot", "round", "size", "category", "failure", "table"].forEach(function (name) {
      var value = params.get(name), select = form.elements[name];
      if (value === null || !select) { return; }
      select.value = value;
      if (value && select.value !== value) {
        var shown = "\u2068" + value + "\u2069";  // isolated: a right-to-left key keeps the line's order
        select.add(new Option(shown + " (not here)", value));
        select.value = value;
        var label = select.parentNode.firstChild.data.trim().toLowerCase();
        staleSaid.push({ select: select, value: value,
          text: "No " + label + " " + shown + " is in this tournament" });
      }
    });
    var sayStale = function () {
      var still = staleSaid.filter(function (s) { return s.select.value === s.value; });
      stale.textContent = still.length ? still.map(function (s) { return s.text; }).join("; ") +
        ": no games match (choose \u201cany\u201d to see them all)." : "";
      stale.hidden = !still.length;
    };
    sayStale();
    var remember = function () {  // the filters in the address: a view to share or come back to
      var chosen = new URLSearchParams();
      Array.prototype.forEach.call(form.elements, function (e) { if (e.name && e.value) { chosen.set(e.name, e.value); } });
      var query = chosen.toString();
      try { history.replaceState(null, "", query ? "?" + query : location.pathname); } catch (e) { /* file:// may refuse */ }
    };
    form.addEventListener("change", function () { apply(); remember(); sayStale(); });
    moreButton.addEventListener("click", drawMore);
    apply();
  }

  var live = document.body.getAttribute("data-live");
  var state = document.body.getAttribute("data-state");
  var entries = document.body.getAttribute("data-entries");  // a league's: a bot retired, entering or being vetted
  if (live !== null && window.fetch) {
    // a reload takes the keyboard's focus (and a screen reader) back to the page's top: a
    // reader at work on the page pauses it, and the note says what they are not seeing
    var note = document.getElementById("live"), pause = document.getElementById("live-pause");
    var paused = false, behind = false;
    var held = null;  // the note's text before the updates were held, while they are
    // the games list only says that games landed: a reload would undo its reader's filters
    // and the pages drawn (the address keeps the filters, which the reload button keeps)
    var telling = document.body.hasAttribute("data-telling");
    var reload = document.getElementById("live-reload");
    if (reload) { reload.addEventListener("click", function () { location.reload(); }); }
    // the note again at the top of the window, while updates are on hold or the page is
    // behind: a reader high on a long page never sees the footer; announced politely, and
    // its button waits to be chosen (no focus is taken)
    var alertBox = document.getElementById("live-alert");
    var alertText = document.getElementById("live-alert-text");
    var alertAct = document.getElementById("live-alert-act");
    var tell = function (text, label) {
      if (!alertBox) { return; }
      if (alertText.textContent !== text) { alertText.textContent = text; }
      alertBox.classList.toggle("shown", !!text);
      alertAct.hidden = !label;
      alertAct.textContent = label || "";
    };
    if (alertAct) { alertAct.addEventListener("click", function () { location.reload(); }); }
    // the bar's height, shown or not and however many lines it wraps to, for the page's
    // scroll padding (site.css): what a jump brings to the top lands below the bar
    if (alertBox && window.ResizeObserver) {
      new ResizeObserver(function () {
        document.documentElement.style.setProperty(
          "--live-alert-height", alertBox.offsetHeight + "px");
      }).observe(alertBox);
    }
    // a finished tournament has no note to show (it is still watched: a continued run
    // reloads the page as its games land)
    if (pause) {
      pause.hidden = false;
      pause.addEventListener("click", function () {
        paused = !paused;
        if (!paused && behind) { location.reload(); return; }
        pause.textContent = paused ? "Resume updates" : "Pause updates";
        var text = paused ? "live updates paused" : "live: refreshes as games land";
        if (held !== null) { held = text; } else { note.textContent = text; }
      });
    }
    setInterval(function () {
      fetch("api/progress.json", { cache: "no-store" }).then(function (r) {
        // the server's one line of why it cannot read the tournament now (503)
        if (!r.ok) { return r.text().then(function (t) { throw { reason: t.trim() }; }); }
        return r.json();
      })
        .then(function (p) {
          if (held !== null) { note.textContent = held; held = null; }
          tell("", "");
          if (String(p.games) !== live || p.state !== state ||
              (entries !== null && String(p.entries) !== entries)) {
            if (telling) {
              if (note) {
                note.textContent = "the tournament has moved on since this list was loaded (" +
                  p.games + " games, " + p.state + ")";
                reload.hidden = false;
                tell(note.textContent, "Reload");
              }
              return;
            }
            if (!paused) { location.reload(); return; }
            behind = true;
            // a league's budget beside its games, as the footer says it
            var budget = p.budget_games ? ", budget " + p.budget_games +
              (p.budget_spent ? " spent" : "") : "";
            note.textContent = "live updates paused; the tournament has moved on (" + p.games +
              (p.games === 1 ? " game" : " games") + budget + ", " + p.state +
              "): resume to see it";
            tell(note.textContent, "Resume updates");
          }
        })
        .catch(function (e) {
          // the page stays as it is, and says why nothing can come (a locked or missing
          // database, the server stopped) until the tournament can be read again
          if (!note) { return; }
          if (held === null) { held = note.textContent; }
          note.textContent = "live updates on hold: " +
            (e && e.reason ? e.reason : "the server does not answer");
          tell(note.textContent, "");
        });
    }, 5000);
  }
}());
