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

  document.addEventListener("DOMContentLoaded", function () { setUp(document); });
  document.addEventListener("htmx:load", function (event) { setUp(event.target); });
  // After a swap, put the keyboard back into the first points field of a fresh deal form, or
  // onto what went wrong: the first invalid field, or the notice of a conflict. (Swapped-in
  // forms carry no autofocus attribute: htmx would apply it a moment later, when settling, and
  // take the keyboard away from a player who has already typed on.)
  document.addEventListener("htmx:afterSwap", function (event) {
    // An outerHTML swap may leave the event on the element it replaced: look in the page then.
    var root = event.target && event.target.isConnected && event.target.querySelector ? event.target : document;
    if (!event.detail.xhr) return;
    var status = event.detail.xhr.status;
    var target = null;
    if (status === 200) target = root.querySelector("form.deal-form input[data-points]");
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
    // What went wrong is shown in the middle of the screen, with its question and message.
    if (status !== 200 && target.scrollIntoView) target.scrollIntoView({ block: "center" });
  });
})();
