"use strict";
/* Gin Solitaire drawn from the face's `table`: the hand in the solver's melds (the face's
   `meld` numbers) then the deadwood, each card with the letter the terminal gives it, so a
   keyboard and the screen agree; the drawn card, Draw, Knock (a toggle, then a card, then a
   confirm), Big Gin, the hint, the other seats. Tapping a card sends `card`: the seat
   discards it when a discard is due and says why not otherwise. */
const Gin = (() => {
  const GROUPS = {meld: "meld", deadwood: "deadwood", discard: "spare card", hand: "hand"};
  function draw(f, ctx) {
    const {h, button, actButton, send, ui} = ctx;
    const t = f.table;
    const out = h("div", {class: "gin"});
    if (t.phase_words) out.append(h("p", {class: "dim"}, t.phase_words));
    out.append(h("p", {class: "prompt"}, t.result || t.prompt || ""));
    if (t.hand) {
      out.append(h("p", {class: "facts"}, "deadwood ",
                   h("b", {}, t.deadwood === null || t.deadwood === undefined ? "…" :
                     String(t.deadwood)),
                   t.drawn ? [" · drawn ", Cards.el(t.drawn)] : null));
      // the solver's groups in its order (each meld, the deadwood, the best discard), kept
      // apart by the face's `meld` number, else its `group` kind
      const groups = [];
      for (const c of t.hand) {
        const key = c.meld === null || c.meld === undefined ? c.group || "deadwood" : c.meld;
        const last = groups[groups.length - 1];
        if (last && last.key === key) last.cards.push(c);
        else groups.push({key, kind: c.group || (typeof key === "number" ? "meld" : key),
                          cards: [c]});
      }
      const hand = h("div", {class: "gin-hand"});
      for (const g of groups) {
        hand.append(h("div", {class: "group g-" + g.kind},
          h("span", {class: "label"}, GROUPS[g.kind] || g.kind),
          g.cards.map((c) => button([h("span", {class: "letter"}, c.letter || ""),
                                     Cards.el(c.card)],
            () => tap(c, ctx), "gcard" + (c.card === t.drawn ? " drawn" : ""),
            {"data-card": c.card, "aria-label": (c.letter || "") + ": " + Cards.words(c.card)}))));
      }
      if (t.unknown) hand.append(h("div", {class: "group"}, Cards.el("??")));
      out.append(hand);
      const tools = h("div", {class: "tools"},
        actButton("draw", null, "draw"),
        t.can_knock || ctx.offered("knock") ?
          button(ui.knock ? "Knock: tap a card" : (ctx.offered("knock") || {}).label || "Knock",
                 () => { ui.knock = !ui.knock; ctx.render(); },
                 "toggle" + (ui.knock ? " on" : ""), {"data-do": "knock",
                                                      "aria-pressed": String(ui.knock)}) : null,
        actButton("big_gin", null, "big-gin"),
        actButton("hint", null, "hint-btn"));
      ctx.used.add("knock");
      out.append(tools);
      if (f.hint) out.append(ctx.hintBlock(f));
    }
    const others = (t.others || []).map((p) => h("li", {}, h("span", {class: "name"}, p.name),
                                                 " ", h("span", {class: "dim"}, p.state),
                                                 p.draw !== undefined && p.draw !== null ?
                                                   h("span", {class: "dim"}, " · ▤ " + p.draw) :
                                                   null));
    if (others.length) out.append(h("section", {class: "others-list"}, h("ul", {}, others)));
    return out;
  }

  /** A tap on a card: discard it, or (Knock on) knock with it: the seat asks "Knock with
   *  4♠ face down, deadwood 3?" in the face's question before anything is sent. */
  function tap(c, ctx) {
    if (!ctx.ui.knock) return ctx.send({t: "act", do: "card", card: c.card});
    ctx.ui.knock = false;
    ctx.send({t: "act", do: "knock", card: c.card});
    ctx.render();
  }

  return {draw};
})();
