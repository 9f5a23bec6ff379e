"use strict";
/* Gin Solitaire drawn from the face's `table`: the hand in the solver's melds (the face's
   `meld` numbers) then the deadwood, each card with the letter the terminal gives it, so a
   keyboard and the screen agree; the drawn card, Draw, Knock (a toggle, then a card, then a
   confirm), Big Gin, the hint, the other seats. Tapping a card sends `card`: the seat
   discards it when a discard is due and says why not otherwise. */
const Gin = (() => {
  function draw(f, ctx) {
    const {h, button, actButton, send, ui} = ctx;
    const t = f.table;
    const out = h("div", {class: "gin"});
    out.append(h("p", {class: "prompt"}, t.prompt || ""));
    if (t.hand) {
      out.append(h("p", {class: "facts"}, "deadwood ", h("b", {}, String(t.deadwood)),
                   t.drawn ? [" · drawn ", Cards.el(t.drawn)] : null));
      const melds = new Map();
      for (const c of t.hand) {
        const key = c.meld === null || c.meld === undefined ? "dw" : c.meld;
        if (!melds.has(key)) melds.set(key, []);
        melds.get(key).push(c);
      }
      const keys = [...melds.keys()].filter((k) => k !== "dw").sort((a, b) => a - b);
      if (melds.has("dw")) keys.push("dw");
      const hand = h("div", {class: "hand"});
      for (const k of keys) {
        hand.append(h("div", {class: "group " + (k === "dw" ? "deadwood" : "meld")},
          h("span", {class: "label"}, k === "dw" ? "deadwood" : "meld"),
          melds.get(k).map((c) => button([h("span", {class: "letter"}, c.letter), Cards.el(c.card)],
            () => tap(c, ctx), "gcard" + (c.card === t.drawn ? " drawn" : ""),
            {"data-card": c.card, "aria-label": c.letter + ": " + Cards.words(c.card)}))));
      }
      out.append(hand);
      const tools = h("div", {class: "tools"},
        actButton("draw", {do: "draw", label: "Draw"}, "draw"),
        t.can_knock || ctx.offered("knock") ?
          button(ui.knock ? "Knock: tap a card" : (ctx.offered("knock") || {}).label || "Knock",
                 () => { ui.knock = !ui.knock; ctx.render(); },
                 "toggle" + (ui.knock ? " on" : ""), {"data-do": "knock",
                                                      "aria-pressed": String(ui.knock)}) : null,
        actButton("big_gin", null, "big-gin"),
        actButton("hint", null, "hint-btn"));
      ctx.used.add("knock");
      out.append(tools);
      if (f.hint) out.append(h("p", {class: "hint"}, f.hint));
    }
    const others = (t.others || []).map((p) => h("li", {}, h("span", {class: "name"}, p.name),
                                                 " ", h("span", {class: "dim"}, p.state)));
    if (others.length) out.append(h("section", {class: "others-list"}, h("ul", {}, others)));
    return out;
  }

  function tap(c, ctx) {
    if (!ctx.ui.knock) return ctx.send({t: "act", do: "card", card: c.card});
    ctx.ui.knock = false;
    ctx.openDialog({kind: "confirm", words: "Knock with " + Cards.text(c.card) + "?",
                    yesLabel: "Knock", yes: () => ctx.send({t: "act", do: "knock", card: c.card})});
  }

  return {draw};
})();
