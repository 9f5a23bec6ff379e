"use strict";
/* Racing Demon (classic and German) drawn from the face's `table` (docs/page-protocol.md).

   The stacks are grouped as the terminal groups them: classic, one row per suit (♠ ♥ ♦ ♣)
   ordered by top card (RD-5); German, one run ordered by top card (RG-3). A card of yours is
   played by tapping it (the best place, as the terminal's one key); a long press, or the
   "choose" toggle then the card, lists the face's `places` for it. Lit sources and stacks
   (the face's `lit`) have a border and a ★, not a colour alone. A stack's top card and each
   other player carry the owner's mark (RD-2): a letter on the owner's colour (looks.js). */
const Demon = (() => {
  const ORDER = "A 2 3 4 5 6 7 8 9 10 J Q K".split(" ");
  const rank = (code) => ORDER.indexOf((Cards.parse(code) || {}).rank);

  function draw(f, ctx) {
    const {h} = ctx;
    const t = f.table;
    const out = h("div", {class: "demon" + (t.german ? " german" : "")});
    out.append(stacks(t, ctx));
    if (t.me && !f.spectator) out.append(mine(t, ctx));
    out.append(others(t, ctx));
    return out;
  }

  function stacks(t, ctx) {
    const {h} = ctx;
    const list = t.stacks || [];
    const sec = h("section", {class: "stacks"},
                  h("h2", {}, "Stacks ", h("span", {class: "count"}, String(list.length)),
                    t.rotations ? h("span", {class: "dim"}, " · ↻ " + t.rotations) : null));
    const byTop = (a, b) => rank(a.top) - rank(b.top) || a.id - b.id;
    const groups = t.german ? [["", list.slice().sort(byTop)]] :
      ["S", "H", "D", "C"].map((s) => [s, list.filter((st) =>
        (Cards.parse(st.top) || {}).suit === s).sort(byTop)]);
    for (const [suit, group] of groups) {
      if (!group.length) continue;
      sec.append(h("div", {class: "stack-row", "data-suit": suit},
                   group.map((st) => h("span", {class: "stack" + (st.lit ? " lit" : ""),
                                                "data-stack": st.id},
                                       Looks.mark(st.owner),
                                       Cards.el(st.top, "big" + (st.lit ? " lit" : ""))))));
    }
    return sec;
  }

  function mine(t, ctx) {
    const {h, cardButton, actButton, button, ui} = ctx;
    const me = t.me;
    const lit = new Set(me.lit || []);
    const src = (name, code, label) => cardButton(name, Cards.el(code, "big"),
                                                  lit.has(name) ? "lit" : "", label);
    const sec = h("section", {class: "mine"});
    sec.append(h("div", {class: "pile-row"},
      h("div", {class: "slot"}, h("span", {class: "label"}, "Pile ", h("b", {}, me.pile_count)),
        src("pile", me.pile_top, "Pile: " + Cards.words(me.pile_top))),
      h("div", {class: "slot"}, h("span", {class: "label"}, "waste"),
        src("waste", me.waste_top, "waste: " + Cards.words(me.waste_top))),
      h("div", {class: "slot"}, h("span", {class: "label"}, "Pack ", h("b", {}, me.pack_count)),
        actButton("turn", {do: "turn", label: "Turn"}, "turn"))));
    const cols = h("div", {class: "columns"});
    (me.columns || []).forEach((col, i) => {
      const name = "c" + (i + 1);
      const cards = col.length ? col.map((c) => Cards.el(c)) : [Cards.el(null)];
      const top = col.length ? col[col.length - 1] : null;
      cols.append(h("div", {class: "column"}, h("span", {class: "label"}, String(i + 1)),
                    cardButton(name, h("span", {class: "fan"}, cards),
                               lit.has(name) ? "lit" : "",
                               "column " + (i + 1) + ": " + Cards.words(top))));
    });
    sec.append(cols);
    const score = h("span", {class: "score"}, t.german ? "penalty " : "score ",
                    h("b", {}, String(me.score_so_far)));
    sec.append(h("div", {class: "tools"}, score,
      me.voted ? h("span", {class: "mark ok"}, "✓ stuck") : null,
      button(ui.choose ? "Choose: tap a card" : "Choose a place", () => {
        ui.choose = !ui.choose;
        ctx.render();
      }, "toggle" + (ui.choose ? " on" : ""), {"aria-pressed": String(ui.choose)}),
      actButton("stuck", {do: "stuck", label: "Stuck"}, "stuck")));
    return sec;
  }

  function others(t, ctx) {
    const {h} = ctx;
    const list = t.others || [];
    if (!list.length) return h("span", {});
    return h("section", {class: "others"}, list.map((p) => h("div", {
        class: "other " + (p.status || "here"), "data-seat": p.seat},
      h("div", {class: "who"},
        h("span", {class: "name marked", ...Looks.named(p.seat)}, p.name),
        h("span", {class: "count"}, String(p.pile_count)), Cards.el(p.pile_top),
        p.out ? h("span", {class: "mark ok"}, "OUT") :
          p.status && p.status !== "here" ? h("span", {class: "mark away"}, "⚠ " + p.status) :
          p.voted ? h("span", {class: "mark ok"}, "✓") : null),
      h("div", {class: "tops", ...Looks.named(p.seat)},
        (p.columns_tops || []).map((c) => Cards.el(c, "small"))))));
  }

  return {draw};
})();
