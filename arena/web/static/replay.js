/* The replay viewer: every step's table is precomputed in the page's JSON (arena/web/replay.py);
   stepping only redraws. No network, no library. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("game-data").textContent);
  var steps = data.steps, n = steps.length, players = data.players;
  var at = 0, view = "all", timer = null;
  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }
  /* a line naming bots: its parts are text, and {name: ...} for a name, isolated in a <bdi>
     so a right-to-left one does not reorder the words beside it */
  function named(tag, cls, parts) {
    var node = el(tag, cls);
    parts.forEach(function (part) {
      node.appendChild(typeof part === "string" ? document.createTextNode(part) : el("bdi", "", part.name));
    });
    return node;
  }
  function player(seat) { return { name: players[seat] }; }
  function card(name, extra) {
    var li = el("li", "card k-" + String(name).split("-")[0] + (extra ? " " + extra : ""), name);
    li.setAttribute("data-card", name);
    return li;
  }
  function back(label) {
    var li = el("li", "card back", label || "?");
    li.setAttribute("data-card", "");
    li.setAttribute("aria-label", "face down");
    return li;
  }
  function sees(seat) { return view === "all" || Number(view) === seat; }
  /* the viewed seat's forfeit ({step, reason}) when it has happened by step i: a forfeited
     bot is sent nothing more, so its view keeps the table as it left it */
  function gone(i) {
    var l = view === "all" ? null : (data.left || [])[Number(view)];
    return l && i >= l.step ? l : null;
  }
  function leftNote(l) {
    return [player(Number(view)), " forfeited (" + l.reason + ") at step " + (l.step + 1) +
      " and was shown nothing more: this view keeps the table as it left it."];
  }

  function hand(s, seat) {
    var ul = el("ul", "cards hand"), i, shown = s.revealed[seat].slice();
    if (sees(seat)) {
      for (i = 0; i < s.hands[seat].length; i++) {
        var name = s.hands[seat][i], k = shown.indexOf(name);
        if (k >= 0) { shown.splice(k, 1); }
        ul.appendChild(card(name, k >= 0 ? "revealed" : ""));
      }
      return ul;
    }
    /* from the showdown on every hand is public (after an Ascension the ascender's alone) */
    var whole = s.shown_hands && s.shown_hands[seat];
    if (whole) {
      for (i = 0; i < whole.length; i++) {
        var was = shown.indexOf(whole[i]);
        if (was >= 0) { shown.splice(was, 1); }
        ul.appendChild(card(whole[i], was >= 0 ? "revealed" : ""));
      }
      return ul;
    }
    for (i = 0; i < shown.length; i++) { ul.appendChild(card(shown[i], "revealed")); }
    for (i = shown.length; i < s.hands[seat].length; i++) { ul.appendChild(back()); }
    return ul;
  }
  function traps(s, seat) {
    var ul = el("ul", "cards traps"), i;
    if (sees(seat)) {
      for (i = 0; i < s.traps[seat].length; i++) {
        var t = s.traps[seat][i], li = card(t[0], "trap");
        li.title = "face down in \u2068" + players[seat] + "\u2069's Arena";  /* isolated, as a <bdi> */
        li.appendChild(el("span", "left", " " + t[1] + " turn" + (t[1] === 1 ? "" : "s") +
                          " left" + (t[2] ? ", ready" : "")));
        ul.appendChild(li);
      }
    } else {
      for (i = 0; i < s.trap_counts[seat]; i++) { ul.appendChild(back("trap")); }
    }
    if (!ul.children.length) { ul.appendChild(el("li", "none", "none")); }
    return ul;
  }
  function drawSeats(s) {
    var box = $("seats"), seat;
    var turnOf = s.phase === "over" ? -1 : s.active;  /* a finished game is nobody's turn */
    box.textContent = "";
    for (seat = 0; seat < players.length; seat++) {
      var sec = el("section", "seat");
      sec.setAttribute("data-seat", seat);
      if (turnOf === seat) { sec.classList.add("active"); }
      if (s.decision && s.decision.seat === seat) { sec.classList.add("deciding"); }
      var h = named("h3", "", ["seat " + seat + ": ", player(seat)]);
      if (data.bots[seat] && data.bots[seat] !== players[seat]) {
        h.appendChild(named("span", "bot", [" ", { name: data.bots[seat] }]));
      }
      if (turnOf === seat) { h.appendChild(el("span", "tag", "turn")); }
      if (s.decision && s.decision.seat === seat) { h.appendChild(el("span", "tag deciding", "deciding")); }
      sec.appendChild(h);
      sec.appendChild(hand(s, seat));
      sec.appendChild(el("p", "label", "Arena (traps)"));
      sec.appendChild(traps(s, seat));
      box.appendChild(sec);
    }
  }
  function pile(id, cards) {
    var ul = $(id), i;
    ul.textContent = "";
    for (i = 0; i < cards.length; i++) { ul.appendChild(card(cards[i])); }
    if (!cards.length) { ul.appendChild(el("li", "none", "empty")); }
  }
  function drawDecision(s) {
    var box = $("decision"), d = s.decision, i, l = gone(at);
    box.textContent = "";
    if (l) { box.appendChild(named("p", "left-note", leftNote(l))); return; }
    if (!d) { box.appendChild(el("p", "", "The game is over.")); return; }
    /* its reason may name a card only its seat has seen (Hermes: the card it takes) */
    box.appendChild(named("p", "who", [player(d.seat), " chooses: " + d.kind + (d.why && sees(d.seat) ? " (" + d.why + ")" : "")]));
    if (!sees(d.seat)) {
      box.appendChild(el("p", "hidden-note", "Options not shown: this view is seat " + view + "'s."));
      return;
    }
    var ol = el("ol", "options");
    ol.setAttribute("start", "0");
    for (i = 0; i < d.options.length; i++) {
      var li = el("li", i === d.chosen ? "chosen" : "", d.options[i]);
      if (i === d.chosen) { li.setAttribute("aria-current", "true"); li.appendChild(el("b", "mark", " \u2714 chosen")); }
      ol.appendChild(li);
    }
    box.appendChild(ol);
  }
  function visibleAtEnd(seat) {
    var sd = data.showdown;
    if (view === "all" || Number(view) === seat) { return true; }
    if (sd.ascension) { return sd.placements[seat] === 1; }
    return true;
  }
  function drawShowdown() {
    var box = $("showdown-box"), sd = data.showdown, seat, i, l = gone(at);
    box.hidden = !(sd && at === n - 1);
    if (box.hidden) { return; }
    if (l) {  /* a forfeited seat was shown no showdown: no hands, categories or places */
      $("showdown-h").textContent = "The end";
      $("showdown").textContent = "";
      $("showdown").appendChild(named("p", "left-note", leftNote(l)));
      return;
    }
    var table = el("table", "showdown-table"), head = el("tr");
    ["seat", "hand", "category", "tie key", "place"].forEach(function (h) {
      var th = el("th", "", h); th.setAttribute("scope", "col"); head.appendChild(th);
    });
    var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    var body = el("tbody");
    for (seat = 0; seat < players.length; seat++) {
      var tr = el("tr", sd.placements[seat] === 1 ? "first" : ""), ul = el("ul", "cards small");
      var open = visibleAtEnd(seat);
      for (i = 0; i < sd.hands[seat].length; i++) {
        ul.appendChild(open ? card(sd.hands[seat][i]) : back());
      }
      var cell = el("td"); cell.appendChild(ul);
      tr.appendChild(named("td", "", [seat + ": ", player(seat),
                                      sd.forfeits[String(seat)] ? " (forfeited: " + sd.forfeits[String(seat)] + ")" : ""]));
      tr.appendChild(cell);
      tr.appendChild(el("td", "", sd.categories[seat]));
      tr.appendChild(el("td", "mono", open ? sd.keys[seat].join(" ") : ""));
      tr.appendChild(el("td", "", String(sd.placements[seat])));
      body.appendChild(tr);
    }
    table.appendChild(body);
    $("showdown-h").textContent = sd.ascension ? "The end: The Ascension (no showdown)" : "Showdown";
    var out = $("showdown");
    out.textContent = "";
    out.appendChild(table);
    out.appendChild(el("p", "tiebreak", "First place: " + sd.tiebreak_text));
  }
  function told(s) {  /* what the viewer was told at this step: the whole game or one seat's */
    if (view === "all") { return s.lines; }
    var own = s.seat_lines[Number(view)];
    return own === null ? s.lines : own;
  }
  function draw() {
    var s = steps[at], l = gone(at), t = l ? steps[l.step] : s;  /* t: the table shown */
    drawSeats(t);
    $("draw").textContent = String(t.draw_pile);
    pile("effect-gy", t.effect_graveyard);
    pile("discard-gy", t.discard_graveyard);
    drawDecision(s);
    var before = [], i;
    for (i = 0; i < at; i++) { before = before.concat(told(steps[i])); }
    var box = $("lines"), fresh = el("b", "", told(s).join("\n"));
    fresh.id = "new-lines";
    box.textContent = before.join("\n") + (before.length ? "\n" : "");
    box.appendChild(fresh);
    box.scrollTop = box.scrollHeight;
    drawShowdown();
    $("where").textContent = "step " + (at + 1) + " of " + n + ", round " + Math.min(s.round, data.rounds) +
      (at === n - 1 ? ", end" : ", turn " + (s.turn + 1));
    $("table").setAttribute("data-step", String(at));
    $("table").setAttribute("data-view", view);
    var focused = document.activeElement;
    $("prev").disabled = at === 0; $("first").disabled = at === 0;
    $("next").disabled = at === n - 1; $("last").disabled = at === n - 1;
    /* a button disabled under the focus would drop it to the page: keep it in the controls */
    if (focused && focused.disabled) { $(at === 0 ? "next" : "prev").focus(); }
    try { history.replaceState(null, "", "#step=" + (at + 1) + "&view=" + view); } catch (e) { /* file:// may refuse */ }
  }
  function go(i) { at = Math.max(0, Math.min(n - 1, i)); draw(); }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    $("play").innerHTML = "&#x25B6;&#xFE0E; play"; $("play").setAttribute("aria-label", "Play");
  }
  function toggle() {
    if (timer !== null) { stop(); return; }
    if (at === n - 1) { go(0); }
    timer = setInterval(function () { if (at >= n - 1) { stop(); } else { go(at + 1); } }, 700);
    $("play").textContent = "\u2016 pause"; $("play").setAttribute("aria-label", "Pause");
  }
  function roundStart(r) {
    for (var i = 0; i < n; i++) { if (steps[i].round >= r) { return i; } }
    return n - 1;
  }
  function setView(v) { view = v; $("view").value = v; draw(); }
  function buildJumps() {
    var box = $("rounds"), r;
    for (r = 1; r <= data.rounds; r++) {
      var b = el("button", "jump", "R" + r);
      b.type = "button"; b.title = "Round " + r + " (key " + r + ")";
      b.setAttribute("data-round", r);
      b.addEventListener("click", (function (round) { return function () { stop(); go(roundStart(round)); }; })(r));
      box.appendChild(b);
    }
    var sd = el("button", "jump", "Showdown");
    sd.type = "button"; sd.id = "to-showdown"; sd.addEventListener("click", function () { stop(); go(n - 1); });
    box.appendChild(sd);
  }
  $("first").addEventListener("click", function () { stop(); go(0); });
  $("prev").addEventListener("click", function () { stop(); go(at - 1); });
  $("next").addEventListener("click", function () { stop(); go(at + 1); });
  $("last").addEventListener("click", function () { stop(); go(n - 1); });
  $("play").addEventListener("click", toggle);
  $("view").addEventListener("change", function () { setView($("view").value); });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) { return; }
    var k = e.key;
    if (k === "ArrowRight" || k === "j") { stop(); go(at + 1); }
    else if (k === "ArrowLeft" || k === "k") { stop(); go(at - 1); }
    /* Space on a button or a summary is that control's own: it presses it, or opens it */
    else if (k === " " && tag !== "BUTTON" && tag !== "SUMMARY") { toggle(); }
    else if (k === "Home") { stop(); go(0); }
    else if (k === "End" || k === "s") { stop(); go(n - 1); }
    else if (k === "v") { var opts = ["all"].concat(players.map(function (_, i) { return String(i); })); setView(opts[(opts.indexOf(view) + 1) % opts.length]); }
    else if (/^[1-9]$/.test(k) && Number(k) <= data.rounds) { stop(); go(roundStart(Number(k))); }
    else { return; }
    e.preventDefault();
  });
  function fromAddress() {  // #step=N&view=V: at the start, and when the address is changed
    var m = /step=(\d+)/.exec(location.hash), v = /view=(all|\d+)/.exec(location.hash);
    if (v && (v[1] === "all" || Number(v[1]) < players.length)) { view = v[1]; $("view").value = view; }
    stop();
    go(m ? Number(m[1]) - 1 : 0);
  }
  buildJumps();
  window.addEventListener("hashchange", function () {  // a step the page writes itself fires none
    /* an anchor of the page's own (the skip link's #table) names no place: stay at this one */
    if (!/step=|view=/.test(location.hash) && document.getElementById(location.hash.slice(1))) { return; }
    fromAddress();
  });
  fromAddress();
}());
