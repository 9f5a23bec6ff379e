"use strict";
/* Rack-O drawn from the face's `table`: the rack (slot 50 at the top, 5 at the bottom, as the
   terminal draws it), the Discard and the Draw pile, the card you hold, the prompt.
   Taps send the seat's intents: the Discard (`discard_pile`), then a slot (`slot`); the Draw
   pile (`draw`), then a slot or "discard" (`discard`). Which tap means what is the seat's
   ("d, then a slot" lives there), so the page keeps no state of its own here. */
const RackO = (() => {
  function draw(f, ctx) {
    const {h, button, actButton, send, seatName} = ctx;
    const t = f.table;
    const out = h("div", {class: "racko" + (t.rack ? " with-rack" : "")});  // table.css
    const turn = h("p", {class: "prompt" + (t.your_turn ? " yours" : "")},
                   t.your_turn ? "▶ " : "", t.prompt || "");
    out.append(turn);
    const top = t.discard_top;
    if (f.spectator || ctx.ui.tv) {  // the piles to look at, nothing to tap
      out.append(h("div", {class: "piles"},
        h("div", {class: "pile"}, h("span", {class: "label"}, "Discard"),
          h("span", {class: "num big"}, top === null ? "—" : String(top))),
        h("div", {class: "pile"}, h("span", {class: "label"}, "Draw"),
          h("span", {class: "num"}, "▤ " + t.draw_count))));
    } else out.append(h("div", {class: "piles"},
      button(h("span", {}, h("span", {class: "label"}, "Discard"),
               h("span", {class: "num big"}, top === null ? "—" : String(top))),
             () => send({t: "act", do: "discard_pile"}),
             "pile discard" + (t.source === "discard" ? " chosen" : ""),
             {"data-do": "discard_pile", "aria-pressed": String(t.source === "discard")}),
      button(h("span", {}, h("span", {class: "label"}, "Draw"),
               h("span", {class: "num"}, "▤ " + t.draw_count)),
             () => send({t: "act", do: "draw"}), "pile draw", {"data-do": "draw"}),
      t.held !== null && t.held !== undefined ? h("div", {class: "held"},
        h("span", {class: "label"}, "held"), h("span", {class: "num big"}, String(t.held)),
        actButton("discard", {do: "discard", label: "Discard it"}, "discard-held")) : null));
    ctx.used.add("draw");
    if (t.rack) {
      if (t.in_order !== undefined) {
        out.append(h("p", {class: "facts"}, "in order from 5: ", h("b", {}, String(t.in_order))));
      }
      out.append(rack(t, ctx));
    }
    if (f.hint) out.append(ctx.hintBlock(f));
    const hint = actButton("hint", null, "hint-btn");
    const others = (t.others || []).map((p) => h("li", {class: p.seat === t.turn ? "turn" : ""},
      p.seat === t.turn ? "▶ " : "", h("span", {class: "name"}, p.name),
      p.total !== undefined ? h("span", {class: "dim"}, " " + p.total) : null,
      p.stood_in ? h("span", {class: "mark away"}, " " + p.stood_in) : null));
    out.append(h("section", {class: "others-list"}, hint, h("ul", {}, others)));
    return out;
  }

  function rack(t, ctx) {
    const {h, send} = ctx;
    const slots = t.slots || [5, 10, 15, 20, 25, 30, 35, 40, 45, 50];
    const deck = t.deck || 60;
    const list = h("div", {class: "rack"});
    for (let i = slots.length - 1; i >= 0; i--) {
      const card = t.rack[i];
      const at = card ? Math.round((card - 1) * 100 / Math.max(1, deck - 1)) : 0;
      const chip = h("span", {class: "chip", style: `left: calc(${at}% - ${at * 0.5}px)`},
                     card ? String(card) : "?");
      const good = t.in_order !== undefined && i < t.in_order;  // the face counts them
      list.append(h("button", {type: "button", class: "slot" + (good ? " good" : ""),
                               "data-slot": slots[i],
                               "aria-label": `slot ${slots[i]}: ${card || "unknown"}`,
                               on: {click: () => send({t: "act", do: "slot", slot: slots[i]})}},
                    h("span", {class: "slot-no"}, String(slots[i])),
                    h("span", {class: "track"}, chip), h("span", {class: "ok"}, good ? "✓" : "")));
    }
    return list;
  }

  return {draw};
})();
