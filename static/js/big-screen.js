// The club night's big screen (?present=1): the leaderboard as large as the screen lets it be,
// nothing cut off. The type is sized by measuring the board itself, since only the browser
// knows how wide a name is: names wrap between their words, never inside one, so the widest
// word and the rows' height decide. The board tries one, two and three columns of rows and keeps
// the largest type (another column only for clearly larger type). When even the smallest type
// read across a room does not hold every row, it shows the rows a page at a time, as few pages
// as hold them, turns the page every few seconds and says which page it shows. The round's
// tables at the side get the largest type that fits them above the public link's code: their
// state lines go first, then they too are shown a part at a time. A remote's arrow keys turn
// the page at once.
// Without this script the board is one long page that scrolls (events.css). The poll (htmx)
// swaps a new board in: it is sized again before the screen shows it.
(function () {
  "use strict";

  var LARGEST = 0.054; // of the screen's height: the type of a short evening
  var SMALLEST = 28; // px: the smallest type read across a room, before pages
  var SIDE_LARGEST = 0.03; // of the height: the round's tables at the side
  var SIDE_READABLE = 17; // px: below this their state lines give way
  var SIDE_SMALLEST = 13; // px: below this the tables are shown a part at a time
  var MORE_COLUMNS = 1.1; // another column only for type this much larger
  var TURN = 10000; // ms a page stays on the screen

  var tick = 0; // the pages turned since the screen opened
  var timer = null;
  var kept = {}; // the last board's layout, tried first on the next (rows: the leaderboard's)

  function fits(box) {
    return box.scrollHeight <= box.clientHeight + 1 && box.scrollWidth <= box.clientWidth + 1;
  }

  // The largest type (whole px, from ``low`` to below ``high``) at which ``box`` holds what it
  // shows; 0 when it does not even at ``low``.
  function largest(board, name, box, low, high) {
    board.style.setProperty(name, low + "px");
    if (!fits(box)) return 0;
    while (high - low > 1) {
      var middle = Math.floor((low + high) / 2);
      board.style.setProperty(name, middle + "px");
      if (fits(box)) low = middle;
      else high = middle;
    }
    board.style.setProperty(name, low + "px");
    return low;
  }

  // ``items`` cut into ``count`` parts of (nearly) the same length.
  function parts(items, count) {
    var per = Math.ceil(items.length / count);
    var found = [];
    for (var at = 0; at < items.length; at += per) found.push(items.slice(at, at + per));
    return found;
  }

  function fill(parent, children) {
    parent.textContent = "";
    children.forEach(function (child) { parent.appendChild(child); });
  }

  // The leaderboard as ``count`` tables side by side holding ``rows``, a column after another.
  function layOut(standings, model, rows, count) {
    standings.textContent = "";
    parts(rows, count).forEach(function (column, at) {
      var table = model.cloneNode(true);
      fill(table.querySelector("tbody"), column);
      var caption = table.querySelector("caption[data-continued]");
      if (caption && at > 0) caption.textContent = caption.getAttribute("data-continued");
      standings.appendChild(table);
    });
  }

  // The columns that hold these rows in the largest type: [type, columns] (type 0: none do).
  function columns(board, standings, model, rows, high) {
    var found = [0, 1];
    for (var count = 1; count <= Math.min(3, rows.length); count++) {
      layOut(standings, model, rows, count);
      var size = largest(board, "--size", standings, SMALLEST, high);
      if (size > found[0] * MORE_COLUMNS) found = [size, count];
      if (found[0] >= high - 1) break; // the largest type already: no column makes it larger
    }
    return found;
  }

  // Whether these rows fit the screen at the smallest type in one, two or three columns.
  function held(board, standings, model, rows) {
    for (var count = 1; count <= Math.min(3, rows.length); count++) {
      layOut(standings, model, rows, count);
      board.style.setProperty("--size", SMALLEST + "px");
      if (fits(standings)) return true;
    }
    return false;
  }

  // Whether ``box`` holds what it shows at ``size`` and not at one px more (below ``high``): the
  // last board's layout is still the best for the next one, which the poll brings every few
  // seconds with a deal or two more. Checked in two layouts rather than searched in twenty.
  function still(board, name, box, size, high) {
    if (size + 1 < high) {
      board.style.setProperty(name, size + 1 + "px");
      if (fits(box)) return false;
    }
    board.style.setProperty(name, size + "px");
    return fits(box);
  }

  function sayPage(board, pages, page) {
    var line = board.querySelector(".board-page");
    if (pages < 2) {
      if (line) line.remove();
      return;
    }
    if (!line) {
      line = document.createElement("p");
      line.className = "board-page";
      board.querySelector(".board-foot").prepend(line);
    }
    line.textContent = (board.getAttribute("data-page-words") || "%(page)s / %(pages)s")
      .replace("%(page)s", String(page + 1)).replace("%(pages)s", String(pages));
  }

  // The leaderboard's rows: every row at the largest type that holds them all, else a page at
  // a time. How many pages. The last board's layout is tried first (its pages, and each page's
  // columns and type).
  function fitRows(board) {
    var standings = board.querySelector(".standings");
    var model = standings.querySelector("table.leaderboard");
    // Every row of the board, once: a page's layout keeps the others out of the page.
    if (!board.kozelRows) board.kozelRows = Array.prototype.slice.call(standings.querySelectorAll("tbody tr"));
    var rows = board.kozelRows;
    var high = Math.round(window.innerHeight * LARGEST) + 1;
    var hint = kept.rows && kept.rows.count === rows.length ? kept.rows : null;
    var pages = null;
    if (hint && hint.pages === 1) {
      sayPage(board, 1, 0);
      layOut(standings, model, rows, hint.layouts[0].columns);
      if (still(board, "--size", standings, hint.layouts[0].size, high)) return 1;
    } else if (hint) {
      sayPage(board, hint.pages, tick % hint.pages);
      if (!held(board, standings, model, rows)) pages = parts(rows, hint.pages);
    }
    if (!pages) {
      pages = [rows];
      if (!columns(board, standings, model, rows, high)[0] && rows.length > 1) {
        sayPage(board, 2, 0); // the page's line takes its room before the pages are sized
        for (var count = 2; count <= rows.length; count++) {
          pages = parts(rows, count);
          if (pages.every(function (page) { return held(board, standings, model, page); })) break;
        }
      }
    }
    var page = tick % pages.length;
    sayPage(board, pages.length, page);
    var layouts = hint && hint.pages === pages.length ? hint.layouts : {};
    var last = layouts[page];
    if (last) {
      layOut(standings, model, pages[page], last.columns);
      if (still(board, "--size", standings, last.size, high)) return pages.length;
    }
    var shown = columns(board, standings, model, pages[page], high);
    layOut(standings, model, pages[page], shown[1]);
    var size = largest(board, "--size", standings, SMALLEST, high) || SMALLEST;
    board.style.setProperty("--size", size + "px");
    layouts[page] = { columns: shown[1], size: size };
    kept.rows = { count: rows.length, pages: pages.length, layouts: layouts };
    return pages.length;
  }

  // The round's tables at the side, above the public link's code. How many parts they take.
  function fitSide(board) {
    var side = board.querySelector(".board-now");
    var list = side && side.querySelector(".live-tables");
    if (!list) return 1;
    if (!board.kozelTables) board.kozelTables = Array.prototype.slice.call(list.children);
    var tables = board.kozelTables;
    var high = Math.round(window.innerHeight * SIDE_LARGEST) + 1;
    var last = kept.side;
    if (last && last.count === tables.length && last.shares === 1) {
      side.classList.toggle("compact", last.compact);
      fill(list, tables);
      if (still(board, "--now", side, last.size, high)) return 1;
    }
    var shares = [tables];
    side.classList.remove("compact");
    fill(list, tables);
    var size = largest(board, "--now", side, SIDE_READABLE, high);
    if (!size) {
      side.classList.add("compact"); // the tables' state lines give way first
      size = largest(board, "--now", side, SIDE_SMALLEST, high);
    }
    if (!size) {
      for (var count = 2; count <= tables.length; count++) {
        shares = parts(tables, count);
        var whole = shares.every(function (share) {
          fill(list, share);
          return fits(side);
        });
        if (whole) break;
      }
      fill(list, shares[tick % shares.length]);
      size = largest(board, "--now", side, SIDE_SMALLEST, high) || SIDE_SMALLEST;
      board.style.setProperty("--now", size + "px");
    }
    kept.side = { count: tables.length, shares: shares.length, compact: side.classList.contains("compact"), size: size };
    return shares.length;
  }

  function fit() {
    var board = document.querySelector(".board-present");
    if (!board || !board.querySelector(".standings table.leaderboard")) return;
    board.classList.add("fitted");
    var shares = fitSide(board);
    var pages = fitRows(board);
    board.setAttribute("data-pages", String(pages));
    board.setAttribute("data-side-parts", String(shares));
    var turns = Math.max(shares, pages);
    if (timer) clearTimeout(timer);
    timer = turns > 1 ? setTimeout(function () { tick += 1; fit(); }, TURN) : null;
  }

  // A remote's arrows turn the page at once (the next turn comes a full while later).
  document.addEventListener("keydown", function (event) {
    var board = document.querySelector(".board-present[data-pages]");
    if (!board || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowRight" || event.key === "ArrowDown" || event.key === "PageDown") tick += 1;
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp" || event.key === "PageUp") tick = Math.max(0, tick - 1);
    else return;
    event.preventDefault();
    fit();
  });
  document.addEventListener("DOMContentLoaded", fit);
  // The poll's new board, sized before the screen shows it.
  document.addEventListener("htmx:afterSwap", fit);
  window.addEventListener("resize", fit);
})();
