// Deals entered with no network (issue #15): kept on the phone (IndexedDB) with their own
// one-time entry key, scored at once by kozel-rules.js from the board's data (#board-data),
// shown as "waiting to be saved", and sent in order when the phone is back online (the online
// event, a page load, Background Sync). The server's entry keys make a resend safe: a deal is
// recorded once, whatever was lost on the way. If another phone recorded deals meanwhile, the
// player chooses: keep mine after theirs, or drop mine. A game that closed meanwhile (a club
// night's round: the server says so, "stop" in the board's data) takes none of them: each is
// sent to the organiser as a proposal (table/proposals.py), and the phone says what became of
// it. Words come from #offline-words.
import { Deal, Series, rulesFrom, dealerSeat } from "./kozel-rules.js";

const fill = (text, params) => (text || "").replace(/%\((\w+)\)s/g, (_, name) => String(params[name]));
// sending: a send() running (one at a time); posting: a waiting deal on its way to the server
// (a deal typed meanwhile waits behind it); again: a send() asked for while one ran; trouble:
// what the server said of the first waiting deal; over: theirs ended the round or the series.
// told: what the server said of deals it recorded (sent again with other points, say).
// proposed: how many deals wait for the organiser's word (sent as proposals).
const page = { waiting: [], sending: false, posting: false, again: false, trouble: null, over: false, ticket: 0, told: [], retry: null, proposed: 0 };
// The header on an answer whose deal is on the record (scoring/table/offline.py), and on one
// whose deal went to the organiser as a proposal.
const RECORDED = "X-Kozel-Recorded";
const PROPOSED = "X-Kozel-Proposed";
// After an answer that did not record a deal (a server busy or away, 503): tried again then.
const RETRY_SECONDS = 15;
function retryLater() {
  clearTimeout(page.retry);
  page.retry = setTimeout(send, RETRY_SECONDS * 1000);
}

// IndexedDB: one store of waiting deals, by entry key.
let opened = null;
function store(mode, work) {
  opened = opened || new Promise((resolve, reject) => {
    const open = indexedDB.open("kozel", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("deals", { keyPath: "key" });
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  return opened.then((db) => new Promise((resolve, reject) => {
    // A change is on the disk before it is shown: a browser closed (or killed) at once keeps it.
    const transaction = db.transaction("deals", mode, { durability: mode === "readwrite" ? "strict" : "default" });
    const request = work(transaction.objectStore("deals"));
    transaction.oncomplete = () => resolve(request && request.result);
    transaction.onerror = transaction.onabort = () => reject(transaction.error);
  }));
}
const byNumber = (a, b) => a.number - b.number || a.at - b.at;
// Deals to send as deals: this board's, not yet proposed to the organiser.
const waitingOf = (series) => store("readonly", (deals) => deals.getAll())
  .then((all) => all.filter((deal) => deal.series === series && !deal.proposed).sort(byNumber));
// Deals sent to the organiser, of any game (a table's phone moves on to the next round).
const proposedAll = () => store("readonly", (deals) => deals.getAll())
  .then((all) => all.filter((deal) => deal.proposed).sort(byNumber));

function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 15) | 64;
  b[8] = (b[8] & 63) | 128;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const data = () => {
  const element = document.getElementById("board-data");
  return element ? JSON.parse(element.textContent) : null;
};
const words = () => (document.getElementById("offline-words") || { dataset: {} }).dataset;
// Whether this board has deals waiting is also noted in localStorage: app.js loads this module
// at once on a page that has some (it is loaded only when needed, to keep the first load small).
function note(count) {
  const board = data();
  if (!board) return;
  try {
    if (count) localStorage.setItem(`kozel-waiting:${board.series}`, String(count));
    else localStorage.removeItem(`kozel-waiting:${board.series}`);
  } catch (error) { /* storage refused: the module is then loaded when the phone is offline */ }
}
const announce = (count, kind) => {
  note(count);
  document.dispatchEvent(new CustomEvent("kozel:waiting", { detail: { count, kind } }));
};

// The recorded deals and then the waiting ones, through the engine (throws InvalidDeal).
function score(board, waiting) {
  const series = new Series(board.sides, rulesFrom(board.rules));
  board.deals.forEach(([points, tricks]) => series.add(new Deal(points, tricks)));
  const outcomes = waiting.map((deal) => series.add(new Deal(deal.points, deal.tricks)));
  return { state: series.state, outcomes };
}

// Why a board takes no deal after its own, if it takes none: a club night's round closed (its
// deals go to the organiser), its round of N deals is played, or the series is over. Waiting
// deals can otherwise only be dropped: kept after theirs, the server would refuse them again.
function closed(board) {
  if (!board) return null;
  if (proposable(board)) return words().roundClosed; // a club night's: to the organiser
  if (board.stop === "over") return words().seriesOver;
  if (board.limit && board.next > board.limit) return words().roundOver;
  try {
    if (score(board, []).state.finished) return words().seriesOver;
  } catch (error) { /* the board's own deals always score */ }
  return null;
}

// Whether the board's game is closed (its round over, the server says: what the phone cannot
// tell alone), so that deals kept on the phone go to the organiser as proposals.
const proposable = (board) => Boolean(board && board.proposeUrl && (board.stop === "limit" || board.stop === "closed"));

// A deal form read as the server's DealForm reads it: the counter, the rest of 120, the tricks.
function readForm(form) {
  const inputs = [...form.querySelectorAll("input[data-points]")];
  const values = inputs.map((input) => (input.value.trim() === "" ? null : Number(input.value)));
  const counted = [...form.querySelectorAll("input[data-card-points]")].filter((input) => input.value !== "");
  if (values[0] === null && counted.length) {
    values[0] = counted.reduce((sum, input) => sum + Number(input.dataset.cardPoints) * Number(input.value), 0);
  }
  const missing = values.flatMap((value, index) => (value === null ? [index] : []));
  if (missing.length > 1) return null;
  if (missing.length === 1) values[missing[0]] = Math.max(120 - values.reduce((sum, v) => sum + (v || 0), 0), 0);
  const answers = inputs.map((input) => {
    const checked = form.querySelector(`input[name="tricks_${input.name.split("_")[1]}"]:checked`);
    return checked ? checked.value : null;
  });
  const tricks = values.some((value, index) => value === 0 && answers[index] === null)
    ? null : values.map((value, index) => (answers[index] ? answers[index] === "yes" : value > 0));
  const fields = {};
  new FormData(form).forEach((value, name) => {
    if (!["csrfmiddlewaretoken", "number", "entry_key"].includes(name)) fields[name] = value;
  });
  return { points: values, tricks, fields };
}

function formError(form, text) {
  let box = form.querySelector(".errors");
  if (!box) {
    box = document.createElement("div");
    box.className = "errors";
    box.setAttribute("role", "alert");
    form.querySelector("h2").after(box);
  }
  box.textContent = text;
}

// Deals are kept one after the other (a second tap while the first is being stored waits).
let queued = Promise.resolve();
// What the form holds as typed: its points, counted cards and trick answers.
const typed = (form) => [...form.querySelectorAll("input[data-points], input[data-card-points], input[type=radio]")]
  .map((input) => (input.type === "radio" ? input.checked : input.value)).join("|");

// ``closing``: the form's points were typed but not sent when the game closed under them (a
// board without a deal form came in): they are kept all the same, to go to the organiser.
function queue(form, { closing = false } = {}) {
  // What was typed and the form's key are taken now: the form may be used again at once.
  const deal = readForm(form);
  const taken = typed(form);
  // The board holds the key, by the form's id (gone with a board replaced meanwhile).
  const keyInput = form.elements.namedItem("entry_key");
  const key = (keyInput && keyInput.value) || newKey();
  if (keyInput) keyInput.value = newKey();
  queued = queued.then(() => keep(form, deal, key, taken, closing)).catch(() => formError(form, words().bad));
  return queued;
}

async function keep(form, deal, key, taken, closing) {
  const board = data();
  if (!board || (closing && !deal)) return;
  const waiting = await waitingOf(board.series);
  if (!closing && board.limit && board.next + waiting.length > board.limit) {
    formError(form, words().limit); // the round's deals are played: nothing to keep
    return;
  }
  try {
    if (!deal) throw new Error("missing points");
    if (!closing) score(board, [...waiting, deal]);
  } catch (error) {
    formError(form, words().bad);
    return;
  }
  // The form's key: a post that failed on the way may have been recorded, and its resend must
  // then find it. The next deal typed into this form has a key of its own.
  let kept = null;
  if (!waiting.some((held) => held.key === key)) {
    kept = board.next + waiting.length;
    const record = { ...deal, key, number: kept, series: board.series, url: board.url, csrf: csrf(), at: Date.now() };
    await store("readwrite", (deals) => deals.put(record));
  }
  // Emptied for the next deal, unless the next deal is already being typed into it (a slow
  // phone: the store took a moment, the player did not wait).
  if (typed(form) === taken) {
    form.querySelectorAll("input[data-points], input[data-card-points]").forEach((input) => { input.value = ""; input.classList.remove("computed"); });
    form.querySelectorAll("input[type=radio]").forEach((radio) => { radio.checked = false; });
    form.querySelectorAll(".errors, .error, .kept").forEach((element) => element.remove());
    form.querySelectorAll("[aria-invalid]").forEach((element) => element.removeAttribute("aria-invalid"));
    form.querySelectorAll("fieldset[data-tricks-for]").forEach((set) => { set.hidden = true; });
  }
  await render();
  // Said once the board the sending brings is in (its own words beside these), or at once
  // when nothing is sent now.
  if (closing && kept !== null) {
    page.told.push(fill(words().keptAtClose, { n: kept }));
    if (!navigator.onLine || page.trouble) await render();
  }
  announce(page.waiting.length, navigator.onLine ? "sending" : "offline");
  const first = form.querySelector("input[data-points]");
  const typing = document.activeElement && document.activeElement.matches("input") && form.contains(document.activeElement);
  if (first && !typing) {
    // The totals and the deals waiting in view, just below the status line that sticks to
    // the top of the screen; the keyboard back in the first field for the next deal.
    first.focus({ preventScroll: true });
    const scoreboard = document.getElementById("scoreboard");
    const line = document.getElementById("net-status");
    const above = line && !line.hidden ? line.getBoundingClientRect().height : 0;
    if (scoreboard) window.scrollBy(0, scoreboard.getBoundingClientRect().top - above);
  }
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.ready.then((r) => r.sync && r.sync.register("kozel-deals")).catch(() => {});
  }
  send();
}

const element = (tag, attributes, text) => {
  const node = document.createElement(tag);
  Object.entries(attributes || {}).forEach(([name, value]) => node.setAttribute(name, value));
  if (text !== undefined) node.textContent = text;
  return node;
};

function describe(outcome, names) {
  const w = words();
  const points = outcome.inPlay.map((side, index) => `${names[side]} ${outcome.deal.points[index]}`).join(", ");
  const parts = [fill(w.deal, { n: outcome.number, points })];
  if (outcome.eggs) parts.push(w.eggs);
  outcome.defeat.forEach((value, side) => {
    if (value > 0) parts.push(fill(w.lost, { side: names[side], points: value }) + (outcome.naked.includes(side) ? ` (${w.naked})` : ""));
  });
  if (outcome.multiplier > 1 && outcome.defeat.some((value) => value > 0)) parts.push(fill(w.times, { multiplier: outcome.multiplier }));
  return parts.join(" ");
}

// The waiting deals on the board: their rows, the totals, dealer, eggs and goat with them.
async function render() {
  const ticket = ++page.ticket;
  const asked = data();
  if (!asked || !document.getElementById("scoreboard")) return;
  const waiting = await waitingOf(asked.series);
  if (ticket !== page.ticket) return;
  // The board as it is now: a fresh one may have been swapped in while the phone's store was
  // read (a deal just recorded), and the form must get its number, not the old board's.
  const board = data();
  const scoreboard = document.getElementById("scoreboard");
  if (!board || !scoreboard || board.series !== asked.series) return;
  page.waiting = waiting;
  const proposed = await settle(board, await proposedAll());
  if (ticket !== page.ticket) return;
  page.proposed = proposed.length;
  try {
    // app.js loads this module on any board while deals wait for the organiser's word.
    if (proposed.length) localStorage.setItem("kozel-proposed", String(proposed.length));
    else localStorage.removeItem("kozel-proposed");
  } catch (error) { /* storage refused: the store itself is looked into (app.js) */ }
  scoreboard.querySelectorAll(".waiting").forEach((old) => old.remove());
  scoreboard.dataset.waitingFor = `${board.version}:${waiting.length}:${page.trouble ? 1 : 0}`;
  const form = scoreboard.querySelector("form.deal-form");
  const w = words();
  let result = null;
  try {
    result = score(board, waiting);
  } catch (error) {
    result = null; // they no longer fit after theirs: the choice below says what to do
  }
  if (result) {
    // The board's totals with the waiting deals (as recorded when none wait).
    const { state } = result;
    scoreboard.querySelectorAll(".sides .side").forEach((side, index) => {
      const total = side.querySelector(".side-total");
      total.textContent = String(state.totals[index]);
      total.classList.toggle("pending", waiting.length > 0);
      const bar = side.querySelector("progress");
      if (bar) bar.value = Math.min(state.totals[index], state.rules.target);
      side.classList.toggle("goat", state.goats.includes(index));
      const left = side.querySelector(".side-left");
      if (left) left.hidden = waiting.length > 0;
    });
    if (form) {
      const next = board.next + waiting.length;
      const played = Boolean(board.limit) && next > board.limit; // a round of N deals, all kept
      form.hidden = state.finished || Boolean(page.trouble) || played;
      if (played && !scoreboard.querySelector("#limit-reached")) {
        const line = element("p", { class: "limit-reached", id: "limit-reached", role: "status", "data-offline": "" });
        line.textContent = w.limit;
        form.after(line);
      } else if (!played) {
        const line = scoreboard.querySelector("#limit-reached[data-offline]");
        if (line) line.remove(); // a waiting deal dropped: room for it again
      }
      form.querySelector("input[name=number]").value = String(next);
      form.setAttribute("data-number", String(next));
      form.querySelector("h2").textContent = fill(w.formHeading, { n: next });
      // A round of N deals: "Deal k of N" above the form says the form's deal too.
      const of = scoreboard.querySelector(".deal-of strong");
      if (of) of.textContent = String(next);
    }
  }
  if (result) showFacts(scoreboard, board, result, waiting);
  showProposed(scoreboard, board, proposed);
  showTold(scoreboard);
  if (!waiting.length && !page.trouble) return;
  const section = element("section", { class: "waiting", "aria-labelledby": "waiting-heading" });
  section.append(element("h2", { id: "waiting-heading" }, `${w.heading} (${waiting.length})`));
  const list = element("ol");
  waiting.forEach((deal, index) => {
    // Not scored after theirs (they ended the series): the points as typed, named when every
    // side was in play.
    const named = deal.points.length === board.names.length;
    const text = result ? describe(result.outcomes[index], board.names)
      : fill(w.deal, { n: deal.number, points: named ? deal.points.map((p, side) => `${board.names[side]} ${p}`).join(", ") : deal.points.join(" : ") });
    list.append(element("li", { "data-waiting": deal.number }, text));
  });
  section.append(list);
  if (result && !page.trouble && waiting.length) {
    const { state } = result;
    const totals = board.names.map((name, side) => `${name} ${state.totals[side]}`).join(", ");
    const facts = [fill(w.totals, { totals })];
    if (state.finished && state.goats.length) {
      facts.push(fill(w.goat, { side: state.goats.map((side) => board.names[side]).join(", ") }));
    }
    section.append(element("p", { class: "waiting-facts" }, facts.join(" ")));
    const last = waiting[waiting.length - 1];
    section.append(element("button", { type: "button", class: "button", "data-drop-last": last.key }, fill(w.drop, { n: last.number })));
  }
  if (page.trouble) {
    section.append(element("p", { class: "notice", role: "alert" }, page.trouble));
    if (!page.over) section.append(element("button", { type: "button", class: "button primary", "data-keep-mine": "" }, w.keep));
    // A renewed link: the deals wait for the new one (nothing to choose, dropping them aside).
    section.append(element("button", { type: "button", class: "button danger", "data-drop-mine": "" }, w.dropMine));
    if (form) form.hidden = true;
  }
  const sides = scoreboard.querySelector("ul.sides");
  if (sides) sides.after(section); else scoreboard.prepend(section);
}

// The board's own lines say the score with the waiting deals, as the board will once they are
// saved: who deals and leads next, the eggs, the multiplier, the newest deal in words. The
// server's words come back with the next board (a swap, or a render with nothing waiting).
function showFacts(scoreboard, board, result, waiting) {
  const w = words();
  const { state } = result;
  const dealer = scoreboard.querySelector("[data-fact=dealer] strong");
  const leader = scoreboard.querySelector("[data-fact=leader]");
  const multiplier = scoreboard.querySelector("[data-fact=multiplier]");
  const last = scoreboard.querySelector(".last-result");
  if (!waiting.length) {
    // Nothing waits (any more): the server's own line again, or none where it had none.
    if (last && last.dataset.server !== undefined) last.textContent = last.dataset.server;
    else if (last && last.hasAttribute("data-offline")) last.remove();
    return;
  }
  if (dealer && !state.finished) dealer.textContent = board.seats[dealerSeat(board.firstDealer, board.seatSides, state)];
  if (leader) leader.textContent = w.leadsLast; // after a deal, whoever took its last trick leads
  if (multiplier) {
    multiplier.hidden = state.multiplier <= 1 || state.finished;
    multiplier.textContent = fill(w.next, { m: state.multiplier });
  }
  const text = `${describe(result.outcomes[result.outcomes.length - 1], board.names)} (${w.notSaved})`;
  if (last) {
    if (last.dataset.server === undefined && !last.hasAttribute("data-offline")) last.dataset.server = last.textContent;
    last.textContent = text;
  } else {
    const line = element("p", { class: "last-result", role: "status", "data-offline": "" }, text);
    const facts = scoreboard.querySelector(".table-facts");
    if (facts) facts.after(line);
  }
}

// What became of the deals proposed to the organiser, by the board's word (``proposals``: the
// table's, of any round): those decided are taken off the phone and said once; the rest are
// returned, still waiting for the organiser.
async function settle(board, proposed) {
  if (!board.proposals || !proposed.length) return proposed;
  const states = new Map(board.proposals.map((item) => [item.key, item]));
  const w = words();
  const decided = proposed.filter((deal) => states.has(deal.key) && states.get(deal.key).state !== "pending");
  if (decided.length) {
    await store("readwrite", (deals) => decided.forEach((deal) => deals.delete(deal.key)));
    decided.forEach((deal) => {
      const item = states.get(deal.key);
      page.told.push(item.state === "accepted" ? fill(w.accepted, { n: deal.number, m: item.deal })
        : fill(w.declined, { n: deal.number }));
    });
  }
  return proposed.filter((deal) => !decided.includes(deal));
}

function showProposed(scoreboard, board, proposed) {
  scoreboard.querySelectorAll(".proposed").forEach((old) => old.remove());
  if (!proposed.length) return;
  const w = words();
  const section = element("section", { class: "waiting proposed", "aria-labelledby": "proposed-heading" });
  section.append(element("h2", { id: "proposed-heading" }, `${w.proposedHeading} (${proposed.length})`));
  const list = element("ol");
  proposed.forEach((deal) => {
    const named = deal.points.length === board.names.length && deal.series === board.series;
    const points = named ? deal.points.map((p, side) => `${board.names[side]} ${p}`).join(", ") : deal.points.join(" : ");
    list.append(element("li", { "data-proposed": deal.number }, `${fill(w.deal, { n: deal.number, points })} ${w.proposedWait}`));
  });
  section.append(list);
  const sides = scoreboard.querySelector("ul.sides");
  if (sides) sides.after(section); else scoreboard.prepend(section);
}

// What happened to this phone's deals, said once on the board (``page.told``).
function showTold(scoreboard) {
  if (!page.told.length || page.sending) return;
  const told = element("p", { class: "notice", role: "alert", "data-told": "" }, page.told.join(" "));
  page.told = [];
  scoreboard.querySelectorAll("[data-told]").forEach((old) => old.remove());
  scoreboard.prepend(told);
}

// A kept deal's form sent to ``url`` as htmx sends it: the answer, or null without a network.
async function posted(deal, url) {
  const body = new URLSearchParams(deal.fields);
  body.set("number", String(deal.number));
  body.set("entry_key", deal.key);
  body.set("csrfmiddlewaretoken", csrf());
  try {
    return await fetch(url, {
      method: "POST", body, credentials: "same-origin", headers: { "HX-Request": "true", "X-CSRFToken": csrf() },
    });
  } catch (error) {
    return null;
  }
}

// Send the waiting deals of a closed game to the organiser, one at a time; each proposed is
// kept on the phone (marked) until the board says what became of it.
async function propose(waiting) {
  for (const deal of waiting) {
    const board = data();
    if (!proposable(board)) return false;
    const response = await posted(deal, board.proposeUrl);
    if (response === null) {
      announce(waiting.length, "offline");
      return false;
    }
    const html = await response.text();
    if (response.status === 200 && response.headers.get(PROPOSED)) {
      await store("readwrite", (deals) => deals.put({ ...deal, proposed: true }));
    } else if (response.status === 200 && response.headers.get(RECORDED)) {
      await store("readwrite", (deals) => deals.delete(deal.key)); // it was recorded after all
    } else {
      const holder = document.createElement("div");
      holder.innerHTML = html;
      const reason = holder.querySelector("#scoreboard .notice");
      page.trouble = fill(words().refused, { n: deal.number, reason: reason ? reason.textContent.trim() : "" });
      page.over = true;
      swapBoard(html);
      return false;
    }
    swapBoard(html);
  }
  return true;
}

const csrf = () => {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
};

// The fresh board the server answered with, in place of this one (the page's script sets it up).
function swapBoard(html) {
  const holder = document.createElement("div");
  holder.innerHTML = html;
  const fresh = holder.querySelector("#scoreboard");
  const board = document.getElementById("scoreboard");
  if (!fresh || !board) return;
  board.replaceWith(fresh);
  if (window.htmx) window.htmx.process(fresh);
  fresh.dispatchEvent(new CustomEvent("htmx:load", { bubbles: true, detail: { elt: fresh } }));
}

// Send the waiting deals of this board, first to last, one at a time.
async function send() {
  const board = data();
  if (page.sending) page.again = true; // a deal kept meanwhile: looked for once this run ends
  if (page.sending || page.trouble || !board || !navigator.onLine) return;
  page.sending = true;
  let sent = 0;
  let proposed = false;
  try {
    for (;;) {
      const waiting = await waitingOf(board.series);
      if (!waiting.length) break;
      if (proposable(data())) {
        // The game is closed: the organiser decides on each of them.
        page.trouble = null;
        page.over = false;
        if (!(await propose(waiting))) return;
        proposed = true;
        continue;
      }
      page.posting = true;
      const deal = waiting[0];
      announce(waiting.length, "sending");
      const response = await posted(deal, deal.url);
      if (response === null) {
        announce(waiting.length, "offline");
        return;
      }
      // Recorded only on an answer that says so: any other keeps the deal on the phone.
      if (response.status === 200 && response.headers.get(RECORDED)) {
        const html = await response.text();
        await store("readwrite", (deals) => deals.delete(deal.key)); // recorded: not waiting
        swapBoard(html);
        const told = document.querySelector("#scoreboard > .notice");
        if (told) page.told.push(told.textContent.trim()); // e.g. resent with other points
        sent += 1;
        continue;
      }
      if (response.status === 409 || response.status === 422) {
        const holder = document.createElement("div");
        holder.innerHTML = await response.text();
        const reason = holder.querySelector("#scoreboard .errors, #scoreboard .error, #scoreboard .notice, #scoreboard #limit-reached");
        swapBoard(holder.innerHTML);
        if (proposable(data())) continue; // the round closed meanwhile: to the organiser
        // Theirs ended the series: mine cannot follow them, only be dropped.
        const over = closed(data());
        page.over = Boolean(over);
        page.trouble = over || (response.status === 409 ? words().conflict
          : fill(words().refused, { n: deal.number, reason: reason ? reason.textContent.trim() : "" }));
        await render();
        announce(waiting.length, null);
        return;
      }
      if (response.status === 410) {
        // The scoring link this phone opened was renewed: the deals wait for the new one.
        page.trouble = words().renewed;
        page.over = true;
        await render();
        announce(waiting.length, null);
        return;
      }
      // Not saved yet (the server could not do it just now): tried again in a while.
      announce(waiting.length, response.status === 403 ? "forbidden" : "failed");
      if (response.status !== 403) retryLater();
      return;
    }
    page.sending = false; // said once every waiting deal is sent (a later board replaces it)
    await render();
    // Deals sent to the organiser are not saved: the board says where they are, the status
    // line no longer says they are being saved.
    announce(0, sent ? "saved" : proposed ? null : undefined);
  } finally {
    page.sending = false;
    page.posting = false;
    if (page.again) {
      page.again = false;
      send();
    }
  }
}

// Keep mine after theirs: renumbered after the board's deals, each with a fresh key (the server
// answered 409 for the first, so it never recorded it; the later ones were never sent), written
// to the phone before anything is sent again.
async function keepMine() {
  const board = data();
  if (page.over || closed(board)) return; // no room after theirs (the button is not offered)
  const waiting = await waitingOf(board.series);
  const renumbered = waiting.map((deal, index) => ({ ...deal, key: newKey(), number: board.next + index, at: Date.now() + index }));
  try {
    score(board, renumbered);
  } catch (error) {
    page.trouble = fill(words().refused, { n: waiting[0].number, reason: words().bad });
    return render();
  }
  await store("readwrite", (deals) => {
    waiting.forEach((deal) => deals.delete(deal.key));
    renumbered.forEach((deal) => deals.put(deal));
  });
  page.trouble = null;
  await render();
  send();
}

async function dropMine() {
  const board = data();
  const waiting = await waitingOf(board.series);
  await store("readwrite", (deals) => waiting.forEach((deal) => deals.delete(deal.key)));
  page.trouble = null;
  page.over = false;
  await render();
  announce(0, null);
}

document.addEventListener("click", async (event) => {
  const target = event.target.closest ? event.target : null;
  if (!target) return;
  const last = target.closest("[data-drop-last]");
  if (last) {
    await store("readwrite", (deals) => deals.delete(last.getAttribute("data-drop-last")));
    await render();
    announce(page.waiting.length, page.waiting.length ? undefined : navigator.onLine ? null : "offline");
    const first = document.querySelector("#scoreboard form.deal-form input[data-points]");
    if (first) first.focus();
    return;
  }
  if (target.closest("[data-keep-mine]")) return keepMine();
  if (target.closest("[data-drop-mine]")) return dropMine();
  // A saved deal is changed on the server only.
  const edit = target.closest("#scoreboard td.actions a");
  if (edit && (!navigator.onLine || page.waiting.length)) {
    event.preventDefault();
    announce(page.waiting.length, "network");
  }
});

document.addEventListener("htmx:beforeRequest", (event) => {
  const form = event.detail.elt;
  if (!form || !form.matches) return;
  if (form.matches("form[data-undo], form[data-redo]") && (!navigator.onLine || page.waiting.length)) {
    event.preventDefault();
    announce(page.waiting.length, "network");
    return;
  }
  // Online with nothing waiting, a deal goes as usual (htmx), even while send() looks for
  // waiting deals and finds none: only a deal behind waiting ones waits its turn.
  if (!form.matches("form.deal-form") || (navigator.onLine && !page.waiting.length && !page.posting)) return;
  event.preventDefault();
  queue(form);
});
// A post that could not reach the server (or whose answer was lost), or that the server could
// not take just now (503: its database away), waits on the phone.
["htmx:sendError", "htmx:timeout", "htmx:responseError"].forEach((name) => document.addEventListener(name, (event) => {
  const form = event.detail.elt;
  const status = event.detail.xhr ? event.detail.xhr.status : 0;
  if (name === "htmx:responseError" && status !== 503) return;
  if (form && form.matches && form.matches("form.deal-form")) queue(form);
}));

// A board replaced (news from another phone, a swap) gets its waiting deals back.
// The board gone (its link renewed: the page says so in its place): the deals still waiting on
// the phone are said there too, with what to do.
function renderGone(scoreboard) {
  if (scoreboard.querySelector(".waiting")) return;
  const w = words();
  const section = element("section", { class: "waiting", "aria-labelledby": "waiting-heading" });
  section.append(element("h2", { id: "waiting-heading" }, `${w.heading} (${page.waiting.length})`));
  const list = element("ol");
  page.waiting.forEach((deal) => {
    list.append(element("li", { "data-waiting": deal.number }, fill(w.deal, { n: deal.number, points: deal.points.join(" : ") })));
  });
  section.append(list, element("p", { class: "notice", role: "alert" }, w.renewed));
  scoreboard.append(section);
}

new MutationObserver(() => {
  const board = data();
  const scoreboard = document.getElementById("scoreboard");
  if (!scoreboard) return;
  if (!board) {
    if (page.waiting.length) renderGone(scoreboard);
    return;
  }
  if (scoreboard.dataset.waitingFor === undefined && (page.waiting.length || page.trouble || page.proposed)) render();
}).observe(document.getElementById("main") || document.body, { childList: true, subtree: true });

window.addEventListener("online", () => send());
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data && event.data.type === "send-waiting") send();
  });
}
render().then(() => {
  if (page.waiting.length) announce(page.waiting.length, navigator.onLine ? "sending" : "offline");
  else note(0);
  send();
});

// app.js loads this module on demand and hands it the deal form it was asked to keep.
export { queue, send };
