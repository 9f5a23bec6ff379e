"use strict";
/* Cards as the page draws them, from the protocol's codes ("QS", "10H", "TD", "5H@2", "??").
   A suit is told by its glyph (♠♥♦♣, four shapes) and by its colour (♥♦ red, ♠♣ black), so
   nothing depends on colour alone; a face-down card is a hatched back. The page never reads a
   card's rank for a rule: the face says what fits where. */
const Cards = (() => {
  const SUITS = {S: "♠", H: "♥", D: "♦", C: "♣"};
  const NAMES = {S: "spades", H: "hearts", D: "diamonds", C: "clubs"};
  const RANKS = {A: "A", T: "10", J: "J", Q: "Q", K: "K"};
  const RANK_WORDS = {A: "ace", J: "jack", Q: "queen", K: "king", T: "10"};

  /** A card code as {rank, suit, glyph, red, hidden}; null for no card. */
  function parse(code) {
    if (code === null || code === undefined || code === "") return null;
    const text = String(code).split("@")[0];
    if (text === "??") return {hidden: true, rank: "", suit: "", glyph: "", red: false};
    if (text === "JK") return {hidden: false, rank: "Joker", suit: "", glyph: "★", red: false};
    const suit = text.slice(-1).toUpperCase();
    let rank = text.slice(0, -1).toUpperCase();
    rank = RANKS[rank] || rank;
    return {hidden: false, rank, suit, glyph: SUITS[suit] || suit,
            red: suit === "H" || suit === "D"};
  }

  /** A card's face as words a screen reader says: "10 of hearts". */
  function words(code) {
    const c = parse(code);
    if (!c) return "no card";
    if (c.hidden) return "a face-down card";
    if (!c.suit) return c.rank;
    const key = String(code).split("@")[0].slice(0, -1).toUpperCase();
    return `${RANK_WORDS[key] || c.rank} of ${NAMES[c.suit]}`;
  }

  /** A card as text for a line: "10♥". */
  function text(code) {
    const c = parse(code);
    if (!c) return "—";
    if (c.hidden) return "░░";
    return c.rank + c.glyph;
  }

  /** A card as an element: `cls` adds classes ("big", "lit", "small"). */
  function el(code, cls) {
    const c = parse(code);
    const span = document.createElement("span");
    span.className = "card" + (cls ? " " + cls : "");
    span.setAttribute("role", "img");
    span.setAttribute("aria-label", words(code));
    if (!c) {
      span.classList.add("none");
      span.textContent = "·";
      return span;
    }
    if (c.hidden) {
      span.classList.add("back");
      return span;
    }
    span.classList.add(c.red ? "red" : "black");
    const r = document.createElement("b");
    r.textContent = c.rank;
    const s = document.createElement("i");
    s.textContent = c.glyph;
    span.append(r, s);
    return span;
  }

  return {parse, words, text, el, SUITS};
})();
