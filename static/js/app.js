// Small helpers for deal entry; the forms work without them (the server fills the rest of 120).
(function () {
  "use strict";

  // What one deal hands out (120): the engine's number, rendered on the form.
  function dealTotal(form) {
    return Number(form.getAttribute("data-deal-total"));
  }

  function pointsInputs(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input[data-points]"));
  }

  function number(input) {
    if (input.value === "") return null;
    var value = Number(input.value);
    return Number.isInteger(value) ? value : NaN;
  }

  // Fill the one side left empty (or computed earlier) with what is left of 120. A computed
  // value belongs to the script: it is cleared again as soon as it cannot be worked out.
  function complete(form, changed) {
    var TOTAL = dealTotal(form);
    var inputs = pointsInputs(form);
    if (changed) changed.classList.remove("computed");
    var open = inputs.filter(function (i) { return i.value === "" || i.classList.contains("computed"); });
    var sum = 0, ok = open.length === 1;
    inputs.forEach(function (i) {
      if (open.indexOf(i) !== -1) return;
      var v = number(i);
      if (v === null || isNaN(v)) ok = false; else sum += v;
    });
    if (ok && sum >= 0 && sum <= TOTAL) {
      open[0].value = String(TOTAL - sum);
      open[0].classList.add("computed");
      return;
    }
    open.forEach(function (i) {
      if (i.classList.contains("computed")) { i.value = ""; i.classList.remove("computed"); }
    });
  }

  // Ask about tricks only for a side with 0 points; a hidden question keeps no stale answer.
  function showTricks(form) {
    var inputs = pointsInputs(form);
    form.querySelectorAll("fieldset[data-tricks-for]").forEach(function (set) {
      var input = inputs[Number(set.getAttribute("data-tricks-for"))];
      var zero = input && input.value !== "" && Number(input.value) === 0;
      var hasError = set.querySelector(".error") !== null;
      set.hidden = !(zero || hasError);
      if (set.hidden) {
        set.querySelectorAll("input[type=radio]").forEach(function (radio) { radio.checked = false; });
      }
    });
  }

  // The card counter fills the first side's points; emptied again, it gives the field back.
  function count(form) {
    var sum = 0, any = false;
    // What one card of each rank is worth comes from the engine, in data-card-points.
    form.querySelectorAll("input[data-card-points]").forEach(function (i) {
      if (i.value !== "") { any = true; sum += Number(i.getAttribute("data-card-points")) * Number(i.value); }
    });
    var first = pointsInputs(form)[0];
    if (!first) return;
    if (any && Number.isFinite(sum)) {
      first.value = String(sum);
      first.setAttribute("data-counted", "");
      complete(form, first);
    } else if (!any && first.hasAttribute("data-counted")) {
      first.value = "";
      first.removeAttribute("data-counted");
      complete(form, first);
    }
  }

  function setUp(root) {
    setUpSharing(root.querySelectorAll ? root : document);
    (root.querySelectorAll ? root : document).querySelectorAll("form.deal-form").forEach(function (form) {
      // A form shown again (a refusal) holds what was sent: when it adds up to 120, the last
      // side counts as computed, so changing another side fixes it up again.
      var inputs = pointsInputs(form), sum = 0, full = inputs.length > 0;
      inputs.forEach(function (input) {
        input.classList.remove("computed");
        var v = number(input);
        if (v === null || isNaN(v)) full = false; else sum += v;
      });
      if (full && sum === dealTotal(form)) inputs[inputs.length - 1].classList.add("computed");
      showTricks(form);
    });
    document.querySelectorAll("form.new-game").forEach(setUpNewGame);
  }

  document.addEventListener("input", function (event) {
    var form = event.target.closest && event.target.closest("form.deal-form");
    if (!form) return;
    if (event.target.hasAttribute("data-points")) {
      event.target.removeAttribute("data-counted");
      complete(form, event.target);
    }
    if (event.target.hasAttribute("data-card-points")) count(form);
    showTricks(form);
  });

  // New game: hints that are about one mode (North and South are a team game's) show for it.
  function setUpModeHints() {
    document.querySelectorAll("form.new-game").forEach(function (form) {
      var checked = form.querySelector("input[name=mode]:checked");
      var mode = checked ? checked.value : "teams";
      form.querySelectorAll("[data-for-modes]").forEach(function (hint) {
        hint.hidden = hint.getAttribute("data-for-modes").split(" ").indexOf(mode) === -1;
      });
    });
  }

  // New game: label the seats for the chosen mode and hide the seats it does not use.
  var SEATS = { teams: 4, duel: 2, three: 3 };
  function setUpNewGame(form) {
    var checked = form.querySelector("input[name=mode]:checked");
    var mode = checked ? checked.value : "teams";
    form.querySelectorAll(".seat").forEach(function (seat) {
      var index = Number(seat.getAttribute("data-seat"));
      seat.hidden = index >= SEATS[mode];
      var label = seat.querySelector("label[data-labels]");
      label.getAttribute("data-labels").split(";").forEach(function (pair) {
        var parts = pair.split("=");
        if (parts[0] === mode) label.textContent = parts.slice(1).join("=");
      });
    });
    form.querySelectorAll(".dealer [data-seat]").forEach(function (choice) {
      var index = Number(choice.getAttribute("data-seat"));
      choice.hidden = index >= SEATS[mode];
      var radio = choice.querySelector("input");
      // The dealer must sit at the table: fall back to the first seat.
      if (choice.hidden && radio && radio.checked) {
        radio.checked = false;
        var first = form.querySelector(".dealer [data-seat='0'] input");
        if (first) first.checked = true;
      }
      var input = form.querySelector(".seat[data-seat='" + index + "'] input");
      var span = choice.querySelector("span");
      if (input && input.value.trim()) span.textContent = input.value.trim();
    });
    var custom = form.querySelector("input[name=preset][value=custom]");
    var details = form.querySelector("details.custom-rules");
    if (custom && details && custom.checked) details.open = true;
    setUpModeHints();
  }
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("form.new-game");
    if (!form) return;
    // Touching a custom house rule means playing custom rules.
    if (event.target.closest("details.custom-rules")) {
      var custom = form.querySelector("input[name=preset][value=custom]");
      if (custom) custom.checked = true;
    }
    setUpNewGame(form);
  });
  document.addEventListener("focusout", function (event) {
    var form = event.target.closest && event.target.closest("form.new-game");
    if (form) setUpNewGame(form);
  });

  // A value the page filled in (the rest of 120) is replaced by what is typed into it, not
  // added to: "70", then "50" typed into the 50 filled in, is 50, not 5500.
  document.addEventListener("focusin", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches("form.deal-form input[data-points]")) return;
    if (input.classList.contains("computed") && input.select) input.select();
  });
  document.addEventListener("beforeinput", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches("form.deal-form input.computed[data-points]")) return;
    if (event.inputType && event.inputType.indexOf("insert") === 0) {
      input.value = "";
      input.classList.remove("computed");
    }
  });

  // Links and results to hand on (a share link's address; a result's text for a chat, with its
  // link in data-share-url): Copy (the Clipboard API, else the text selected to copy by hand)
  // and the share sheet where the browser has one. Without a script the text is there to copy.
  function setUpSharing(root) {
    root.querySelectorAll("button[data-copy]").forEach(function (button) { button.hidden = false; });
    if (navigator.share) {
      root.querySelectorAll("button[data-share]").forEach(function (button) { button.hidden = false; });
    }
  }
  document.addEventListener("click", function (event) {
    var copy = event.target.closest && event.target.closest("button[data-copy]");
    var share = event.target.closest && event.target.closest("button[data-share]");
    if (!copy && !share) return;
    var input = document.getElementById((copy || share).getAttribute(copy ? "data-copy" : "data-share"));
    if (!input) return;
    if (share) {
      var url = share.getAttribute("data-share-url");
      var shared = { title: share.getAttribute("data-share-title"), url: url || input.value };
      if (url) shared.text = input.value.replace(url, "").trim();
      navigator.share(shared).catch(function () {});
      return;
    }
    var status = copy.closest(".share-link, .share-result").querySelector(".copied");
    function selectIt() { input.focus(); input.select(); }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(input.value).then(function () {
        if (status) status.textContent = copy.getAttribute("data-copied");
      }, selectIt);
    } else {
      selectIt();
    }
  });

  // Every open scoreboard keeps up with the other phones: it asks the live view every few
  // seconds (data-every) whether the series changed since its version. Nothing new is an empty
  // 204. News replaces the board around a deal form the player is using; when that form's
  // deal was taken meanwhile, the typed points stay, renumbered, and a notice says so. Hidden
  // pages do not ask; coming back asks at once. An asking that hangs (a phone between cells
  // keeps a dead connection open) is given up after ASK_TIMEOUT and said like no connection,
  // so the board never stops keeping up without saying so.
  var poll = { timer: null, busy: false };
  var ASK_TIMEOUT = 10000;
  function liveBoard() { return document.querySelector("#scoreboard[data-live]"); }

  function schedule(delay) {
    clearTimeout(poll.timer);
    var board = liveBoard();
    if (!board || document.hidden) return;
    var every = Number(board.getAttribute("data-every")) || 2;
    poll.timer = setTimeout(ask, delay === undefined ? every * 1000 : delay);
  }

  function ask() {
    var board = liveBoard();
    if (!board || document.hidden || poll.busy) return;
    // A deal being sent: its answer brings the news (and a poll could cross it).
    if (board.querySelector(".htmx-request") || board.classList.contains("htmx-request")) return schedule();
    poll.busy = true;
    var url = board.getAttribute("data-live") + "?version=" + encodeURIComponent(board.getAttribute("data-version"));
    var options = { headers: { "HX-Request": "true" }, credentials: "same-origin" };
    if (window.AbortSignal && AbortSignal.timeout) options.signal = AbortSignal.timeout(ASK_TIMEOUT);
    fetch(url, options).then(function (response) {
      if (response.status >= 400) say(response.status === 403 ? "forbidden" : "failed", "poll");
      else answered();
      if (response.status === 204) return null;
      if (response.status === 200 || response.status === 286) {
        return response.text().then(function (html) { return { status: response.status, html: html }; });
      }
      return null;
    }).then(function (answer) {
      poll.busy = false;
      if (answer) update(answer.html, answer.status === 286);
      if (!answer || answer.status !== 286) schedule();
    }, function () { poll.busy = false; say("offline", "poll"); schedule(); });
  }

  // A board's version (table.live): the evening's, the game's id and the game's own, each only
  // growing (a table's next game has a higher id), compared in that order.
  function newer(a, b) {
    var x = (a || "").split("."), y = (b || "").split(".");
    for (var i = 0; i < 3; i++) if (+x[i] !== +y[i]) return +x[i] > +y[i];
    return false;
  }

  function inUse(form) {
    if (!form) return false;
    return form.contains(document.activeElement) || typed(form);
  }
  // Points or an answer the player typed (not the rest of 120 the page filled in).
  function typed(form) {
    return Array.prototype.some.call(form.querySelectorAll("input"), function (input) {
      if (input.type === "hidden" || input.classList.contains("computed")) return false;
      if (input.type === "radio") return input.checked;
      return input.value !== "";
    });
  }

  function update(html, gone) {
    var board = document.getElementById("scoreboard");
    if (!board) return;
    var holder = document.createElement("div");
    holder.innerHTML = html;
    var fresh = holder.querySelector("#scoreboard");
    if (!fresh) return;
    var title = holder.querySelector("title");
    if (!gone && !newer(fresh.getAttribute("data-version"), board.getAttribute("data-version"))) return; // older news
    // A poll that crossed a deal being sent: that deal's answer brings the news. Taken here, the
    // deal's own form would be kept as if another phone had taken its deal, and the answer,
    // swapped in a moment later, would empty the next deal being typed.
    if (!gone && (board.querySelector(".htmx-request") || board.classList.contains("htmx-request"))) return;
    // The next round's game at a club night's table: not while deals of this one wait on the
    // phone (they are sent, or refused and dropped, first).
    var another = fresh.getAttribute("data-series") !== board.getAttribute("data-series");
    if (!gone && another && net.waiting) return;
    var ended = !board.querySelector(".the-end") && fresh.querySelector(".the-end");
    var oldForm = board.querySelector("form.deal-form");
    var newForm = fresh.querySelector("form.deal-form");
    // The game closed under points typed but not sent (a club night's round ended): they are
    // kept on the phone, said in words, and go to the organiser (offline.js).
    if (!gone && !another && !newForm && oldForm && typed(oldForm)) keepOffline(oldForm, true);
    clearFlash();
    if (title) document.title = title.textContent; // the score, on the tab
    if (!gone && newForm && inUse(oldForm) && !another) {
      keepForm(board, fresh, oldForm, newForm);
    } else {
      board.replaceWith(fresh);
      board = fresh;
    }
    if (window.htmx) window.htmx.process(board);
    setUp(board);
    if (ended) showTheEnd(board);
    // The table's next game (a rematch, the next round): the address says the table's page (its
    // live view's, less "live/"), so a reload shows the game the table plays now.
    var page = another && (fresh.getAttribute("data-live") || "").replace(/live\/$/, "");
    if (page && location.pathname !== page) history.replaceState(history.state, "", page);
  }

  // The board's news around the form in use: everything but the form is replaced; the form
  // takes the new deal number, key, labels, and says why when its deal number changed.
  function keepForm(board, fresh, oldForm, newForm) {
    Array.prototype.slice.call(board.attributes).forEach(function (a) { board.removeAttribute(a.name); });
    Array.prototype.slice.call(fresh.attributes).forEach(function (a) { board.setAttribute(a.name, a.value); });
    Array.prototype.slice.call(board.childNodes).forEach(function (node) { if (node !== oldForm) node.remove(); });
    var before = true;
    Array.prototype.slice.call(fresh.childNodes).forEach(function (node) {
      if (node === newForm) { before = false; return; }
      if (before) board.insertBefore(node, oldForm); else board.appendChild(node);
    });
    var names = function (form) {
      return pointsInputs(form).map(function (i) { return i.name; }).join(" ");
    };
    var oldNumber = Number(oldForm.getAttribute("data-number"));
    var newNumber = Number(newForm.getAttribute("data-number"));
    if (names(oldForm) !== names(newForm)) {
      // Other sides in play now (a player is out): the fresh form, with what still fits.
      pointsInputs(oldForm).forEach(function (input) {
        var twin = newForm.querySelector("input[name='" + input.name + "']");
        if (twin && !input.classList.contains("computed")) twin.value = input.value;
      });
      oldForm.replaceWith(newForm);
      oldForm = newForm;
    } else {
      // The next deal's number; its one-time key came with the board (an input of the form's).
      oldForm.querySelector("input[name=number]").value = newForm.querySelector("input[name=number]").value;
      ["data-number", "data-kept-recorded", "data-kept-undone"].forEach(function (name) {
        oldForm.setAttribute(name, newForm.getAttribute(name));
      });
      var pairs = [["h2", "h2"], ["label[for]", "label[for]"], ["legend", "legend"], ["summary", "summary"]];
      pairs.forEach(function (pair) {
        var olds = oldForm.querySelectorAll(pair[0]), news = newForm.querySelectorAll(pair[1]);
        for (var i = 0; i < olds.length && i < news.length; i++) {
          if (olds[i].innerHTML !== news[i].innerHTML) olds[i].innerHTML = news[i].innerHTML;
        }
      });
    }
    if (newNumber !== oldNumber) {
      var old = oldForm.querySelector(".kept");
      if (old) old.remove();
    }
    // Said only where points were typed: a form merely focused has nothing of its own to keep.
    if (newNumber !== oldNumber && typed(oldForm)) {
      var notice = document.createElement("p");
      notice.className = "notice kept";
      notice.setAttribute("role", "alert");
      notice.textContent = oldForm.getAttribute(newNumber > oldNumber ? "data-kept-recorded" : "data-kept-undone");
      var heading = oldForm.querySelector("h2");
      heading.parentNode.insertBefore(notice, heading.nextSibling);
    }
  }

  // A notice of the page's last load ("Deal 1 changed.") belongs to that moment, not to the
  // deals after it.
  function clearFlash() {
    document.querySelectorAll("main > .flash").forEach(function (flash) { flash.remove(); });
  }

  // The deciding deal: the goat, the final score and the tally come into view.
  function showTheEnd(root) {
    var end = root.querySelector(".the-end");
    if (!end) return;
    end.scrollIntoView({ block: "start" });
    end.focus({ preventScroll: true });
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) clearTimeout(poll.timer); else schedule(0);
  });

  // The scores and the deal's points fields on one screen (large text makes the page long):
  // scroll the page's header away when that is what it takes.
  function keepInView() {
    var board = document.getElementById("scoreboard");
    var input = board && board.querySelector("form.deal-form input[data-points]");
    if (!input) return;
    // The status line sticks to the top of the screen: the board goes just below it.
    var status = document.getElementById("net-status");
    var above = status && !status.hidden ? status.getBoundingClientRect().height : 0;
    var top = board.getBoundingClientRect().top - above, bottom = input.getBoundingClientRect().bottom;
    if (bottom <= window.innerHeight && top >= 0) return;
    if (bottom - top <= window.innerHeight) window.scrollBy(0, top);
    else input.scrollIntoView({ block: "end" });
  }

  // The language picker goes as soon as a language is picked with a pointer or Enter; its
  // button is only for pages without the script. Arrow keys only move through the list (Chrome
  // fires "change" for each), so a keyboard does not leave the page on the first key.
  function setUpLanguagePicker() {
    var form = document.querySelector("form[data-language-picker]");
    if (!form) return;
    var select = form.querySelector("select");
    var button = form.querySelector("button");
    var byKey = false;
    if (button) button.hidden = true;
    select.addEventListener("keydown", function (event) {
      if (event.key === "Enter") { event.preventDefault(); form.submit(); return; }
      byKey = event.key !== "Tab";
    });
    select.addEventListener("pointerdown", function () { byKey = false; });
    select.addEventListener("change", function () {
      if (!byKey) form.submit();
    });
  }

  // Never a silent failure: a request that failed (no connection, a timeout, a refusal, a
  // server error) is said at once in #net-status, in the page's words (its data-* attributes).
  // The offline deals module (offline.js) says how many deals wait with a "kozel:waiting" event.
  // by: "poll" when the board's own asking failed (its next answer ends the message), else a
  // request of the player's, whose failure stays said until another of theirs goes through.
  var net = { kind: null, waiting: 0, by: null, fade: null };
  // What a player's own request was told stays said over the board's asking failing.
  var OWN = ["network", "forbidden"];
  // Said, then let go: good news needs no answer.
  var FADES = { saved: 5000 };
  function say(kind, by) {
    var status = document.getElementById("net-status");
    if (!status) return;
    if (kind === "offline" && net.waiting) kind = "waiting";
    if (by === "poll" && OWN.indexOf(net.kind) !== -1 && kind) return;
    net.kind = kind;
    net.by = by || null;
    clearTimeout(net.fade);
    if (FADES[kind]) net.fade = setTimeout(function () { if (net.kind === kind) say(null); }, FADES[kind]);
    if (!kind) {
      status.hidden = true;
      status.textContent = "";
      return;
    }
    var text = (status.getAttribute("data-" + kind) || "").replace("%(n)s", String(net.waiting));
    if (status.textContent !== text) status.textContent = text;
    status.setAttribute("data-kind", kind);
    status.hidden = false;
  }
  function answered() {
    // The board's asking went through: the connection is back, and a failure of the asking
    // itself is over. A player's undo or deal the server failed is not: they try again.
    if (net.kind === "offline" || (net.kind === "failed" && net.by === "poll")) say(null);
  }
  // detail: {count: deals waiting, kind: what to say now (null: nothing, undefined: as before)}.
  document.addEventListener("kozel:waiting", function (event) {
    net.waiting = event.detail.count;
    if (event.detail.kind === undefined) say(net.kind, net.by);
    else say(event.detail.kind);
  });
  // An undo or a put back lost on the way was not done (a deal form's deal waits on the phone,
  // offline.js): said until the player's next request goes through, not ended by the board's
  // asking getting an answer a moment later.
  function lost(event) {
    var elt = event.detail && event.detail.elt;
    say(elt && elt.matches && elt.matches("form[data-undo], form[data-redo]") ? "network" : "offline");
  }
  document.addEventListener("htmx:sendError", lost);
  document.addEventListener("htmx:timeout", lost);
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    say(status === 403 ? "forbidden" : "failed");
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    // The player's own request went through: what was said about the earlier ones is over.
    if (event.detail.successful && net.kind !== "waiting" && net.kind !== "sending") say(null);
  });
  window.addEventListener("offline", function () { say("offline"); });
  window.addEventListener("online", function () { if (net.kind === "offline" || net.kind === "network") say(null); });

  // The installable app's service worker (scoring/offline.py) keeps the shell and this phone's
  // games for offline use.
  function registerWorker() {
    var status = document.getElementById("net-status");
    var url = status && status.getAttribute("data-sw");
    if (!url || !("serviceWorker" in navigator) || !window.isSecureContext) return;
    navigator.serviceWorker.register(url, { scope: "/" }).catch(function () {});
  }

  // Deals kept on the phone without a network (offline.js, with the rules engine it imports: 12
  // KB) load only when they may be needed, not with every scoreboard: when the player types into
  // a deal form, when the phone goes offline, on a page whose board has deals waiting (noted
  // in localStorage by offline.js, else found in its IndexedDB store), and when a deal form
  // cannot be sent (the module then keeps
  // that form's deal). Once loaded, the module handles these events itself.
  var offline = { loading: null, ready: false };
  function offlineDeals() {
    var words = document.getElementById("offline-words");
    var src = words && words.getAttribute("data-module");
    if (!src) return null;
    if (!offline.loading) {
      offline.loading = import(src);
      offline.loading.then(function () { offline.ready = true; }, function () { offline.loading = null; });
    }
    return offline.loading;
  }
  function dealsWaiting() {
    var element = document.getElementById("board-data");
    try {
      var series = element && JSON.parse(element.textContent).series;
      return Boolean(series && localStorage.getItem("kozel-waiting:" + series));
    } catch (error) {
      return false;
    }
  }
  // The note can be lost (a browser killed before it wrote it down): the phone's store itself
  // is asked then, so that deals waiting there are sent as the page opens.
  function lookForWaiting() {
    var proposed = null;
    try { proposed = localStorage.getItem("kozel-proposed"); } catch (error) { /* refused */ }
    if (dealsWaiting() || proposed) { offlineDeals(); return; }
    var element = document.getElementById("board-data");
    var series;
    try {
      series = element && JSON.parse(element.textContent).series;
    } catch (error) {
      return;
    }
    if (!series || !window.indexedDB) return;
    var open = indexedDB.open("kozel", 1);
    open.onupgradeneeded = function () { open.result.createObjectStore("deals", { keyPath: "key" }); };
    open.onsuccess = function () {
      var db = open.result;
      var all = db.transaction("deals", "readonly").objectStore("deals").getAll();
      all.onsuccess = function () {
        db.close();
        if (all.result.some(function (deal) { return deal.series === series || deal.proposed; })) offlineDeals();
      };
    };
  }
  function isDealForm(element) {
    return Boolean(element && element.matches && element.matches("form.deal-form"));
  }
  // The form is held (read-only, its buttons off) until the module has taken its deal: the
  // next deal cannot be typed over this one, nor sent with this one's entry key.
  function keepOffline(form, closing) {
    var loading = offlineDeals();
    if (!loading) return;
    var fields = [].slice.call(form.querySelectorAll("input:not([type=hidden]):not([readonly])"));
    var buttons = [].slice.call(form.querySelectorAll("button:not([disabled])"));
    fields.forEach(function (field) { field.readOnly = true; });
    buttons.forEach(function (button) { button.disabled = true; });
    function release() {
      fields.forEach(function (field) { field.readOnly = false; });
      buttons.forEach(function (button) { button.disabled = false; });
    }
    loading
      .then(function (module) { return module.queue(form, { closing: Boolean(closing) }); })
      .then(release, function () { release(); say("offline"); });
  }
  document.addEventListener("input", function (event) {
    // Typing, not focus: the deal form's first field is focused as the page opens.
    if (!offline.loading && event.target.closest && isDealForm(event.target.closest("form"))) offlineDeals();
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (offline.ready || navigator.onLine || !isDealForm(event.detail.elt)) return;
    event.preventDefault(); // no network: the deal waits on the phone
    keepOffline(event.detail.elt);
  });
  // A deal the server could not take just now (503: its database away) waits on the phone too.
  ["htmx:sendError", "htmx:timeout", "htmx:responseError"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var status = event.detail.xhr ? event.detail.xhr.status : 0;
      if (name === "htmx:responseError" && status !== 503) return;
      if (!offline.ready && isDealForm(event.detail.elt)) keepOffline(event.detail.elt);
    });
  });
  window.addEventListener("offline", function () { offlineDeals(); });
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (event.data && event.data.type === "send-waiting") offlineDeals();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpLanguagePicker();
    if (!navigator.onLine) say("offline");
    if (!navigator.onLine) offlineDeals();
    else lookForWaiting();
    registerWorker();
    setUp(document);
    keepInView();
    setUpModeHints();
    schedule();
  });
  document.addEventListener("htmx:load", function (event) { setUp(event.target); });
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "scoreboard") clearFlash();
  });
  // After a swap, put the keyboard back into the first points field of a fresh deal form, or
  // onto what went wrong: the first invalid field, or the notice of a conflict.
  document.addEventListener("htmx:afterSwap", function (event) {
    // An outerHTML swap may leave the event on the element it replaced: look in the page then.
    var root = event.target && event.target.isConnected && event.target.querySelector ? event.target : document;
    // The board is the page's too (kept once for both): its fresh form's autofocus is for a page
    // that loads, and htmx would apply it when settling, after the player had typed on.
    root.querySelectorAll("[autofocus]").forEach(function (field) { field.removeAttribute("autofocus"); });
    if (!event.detail.xhr) return;
    var status = event.detail.xhr.status;
    var target = null;
    var sent = event.detail.requestConfig && event.detail.requestConfig.elt;
    schedule(); // the board is new: ask again from now (a rematch's board asks nothing)
    if (status === 200 && root.querySelector(".the-end") && sent && sent.matches("form.deal-form")) {
      showTheEnd(root);
      return;
    }
    if (status === 200 && sent && sent.matches("form[data-undo]")) target = root.querySelector("#undone");
    else if (status === 200) target = root.querySelector("form.deal-form input[data-points]");
    else if (status === 422) {
      var trickError = root.querySelector("form.deal-form fieldset.tricks .error");
      target = root.querySelector("form.deal-form [aria-invalid=true]") ||
        (trickError && trickError.parentNode.querySelector("input[type=radio]")) ||
        root.querySelector(".errors, .notice");
    }
    else if (status === 409) target = root.querySelector(".notice");
    if (!target) return;
    if (!target.matches("input")) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
    if (status === 200 && target.matches("input")) keepInView();
    // What went wrong (or what an undo removed) is shown in the middle of the screen.
    if ((status !== 200 || target.id === "undone") && target.scrollIntoView) target.scrollIntoView({ block: "center" });
  });
})();
