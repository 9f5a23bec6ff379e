"use strict";
/* How the page looks, as the person chose it, remembered on this device (localStorage):
   the palette (the terminal's --palette: classic, safe — colour-blind safe, Okabe-Ito — or
   none, no colour at all) and bigger cards (the terminal's --big). The colours are CSS
   variables of table.css, one block per palette, the same as lan_demon/seat/palette.py's
   (a test holds them equal). An owner's mark is a letter on the owner's colour; with no
   colour, the letter alone in a box — colour is never the only signal. Nothing stored: the
   classic palette and the usual cards. */
const Looks = (() => {
  const PALETTES = {classic: "Classic", safe: "Colour-blind safe", none: "No colour"};
  const LETTERS = "abcdefghijklmnopqrstuvwxyz";
  const KEY = "lan-demon-looks";

  function stored() {
    try {
      const got = JSON.parse(localStorage.getItem(KEY) || "{}");
      return {palette: PALETTES[got.palette] ? got.palette : "classic", big: got.big === true};
    } catch (e) {  // (storage refused, or not JSON: the defaults)
      return {palette: "classic", big: false};
    }
  }

  let now = stored();

  let ownerCount = null;  // the palette's --owners, read once per palette (not per mark)

  function apply() {
    const root = document.documentElement;
    root.dataset.palette = now.palette;
    root.classList.toggle("big-cards", now.big);
    ownerCount = null;
  }

  function save() {
    try {
      localStorage.setItem(KEY, JSON.stringify(now));
    } catch (e) { /* not remembered, but applied */ }
    apply();
  }

  /** How many owner colours the palette has (its CSS variable --owners). */
  function owners() {
    if (ownerCount === null) {
      const n = parseInt(getComputedStyle(document.documentElement)
        .getPropertyValue("--owners"), 10);
      ownerCount = n > 0 ? n : 1;
    }
    return ownerCount;
  }

  /** The mark of `seat`'s pack: its letter on its colour (RD-2), as on the terminal. */
  function mark(seat) {
    const span = document.createElement("span");
    span.className = "owner";
    if (seat === null || seat === undefined || seat < 0) return span;
    span.textContent = LETTERS[seat % LETTERS.length];
    span.style.setProperty("--mark", "var(--owner" + (seat % owners()) + ")");
    span.setAttribute("aria-hidden", "true");
    return span;
  }

  /** A name marked as its owner's (RD-2): the attributes for a `.name.marked` element, whose
   *  ::before draws the mark (table.css) — beside the name, not in its text. */
  function named(seat) {
    if (seat === null || seat === undefined || seat < 0) return {};
    return {"data-mark": LETTERS[seat % LETTERS.length],
            style: "--mark: var(--owner" + (seat % owners()) + "); --name-ink: " + ink(seat)};
  }

  /** The ink of `seat`'s name (and its line on the chart): its owner colour, darkened in the
   *  safe palette where the mark's colour would not read on the page; one ink with none. */
  function ink(seat) {
    return "var(--ink" + ((seat >= 0 ? seat : 0) % owners()) + ")";
  }

  /** The settings, drawn into `box` (a <details> on the page). */
  function settings(box) {
    if (!box) return;
    box.replaceChildren();
    const summary = document.createElement("summary");
    summary.textContent = "Display";
    const label = document.createElement("label");
    label.textContent = "Colours ";
    const select = document.createElement("select");
    select.id = "palette";
    for (const [name, words] of Object.entries(PALETTES)) {
      const option = document.createElement("option");
      option.value = name;
      option.textContent = words;
      option.selected = name === now.palette;
      select.append(option);
    }
    select.addEventListener("change", () => { now.palette = select.value; save(); });
    label.append(select);
    const big = document.createElement("label");
    const box2 = document.createElement("input");
    box2.type = "checkbox";
    box2.id = "big-cards";
    box2.checked = now.big;
    box2.addEventListener("change", () => { now.big = box2.checked; save(); });
    big.append(box2, " Bigger cards");
    box.append(summary, label, big);
  }

  apply();
  document.addEventListener("DOMContentLoaded", () => settings(document.getElementById("looks")));
  return {mark, named, ink, settings, owners};
})();
