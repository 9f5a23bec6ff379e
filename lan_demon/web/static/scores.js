"use strict";
/* The round-end table (every part of each score, as the face's `scores` lists them) and the
   running-totals chart as inline SVG. The numbers, their order, who won and every word come
   from the face; the page lays them out. Each line of the chart has a colour, a marker shape
   of its own and its player's name at its end, so no line is told by colour alone. */
const Scores = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  // A seat's ink, by its seat as on the terminal (the palette's owner colours, looks.js), not
  // by its place in the standings: a player keeps one colour on every screen
  const colour = (side) => Looks.ink(side);
  const MARKS = ["●", "■", "▲", "◆", "✚", "★", "▼", "⬟"];
  const LINES = 5;  // the leaders (and you) drawn, as on the terminal's chart

  /** The face's `scores`: {round, rounds, over, word, lower_is_better, parts: [{key,
   *  heading}], rows: [{side, name, score, parts, total, best, leads, you}] best first,
   *  winners, next_piles: [{name, pile}] | null, chart: {first_round, names, series}}. */
  function draw(s, ctx) {
    const {h} = ctx;
    const out = h("section", {class: "scores"});
    const head = s.over ? "Match over" : "Round " + s.round + (s.rounds ? " of " + s.rounds : "") +
      " is over";
    out.append(h("h2", {class: "ending"}, head,
                 s.winners && s.winners.length ? h("span", {class: "winner"}, " — ★ winner: " +
                                                   s.winners.join(", ")) : null));
    const columns = s.parts || [];
    const rows = s.rows || [];
    if (rows.length) {
      // every part a column on a wide screen; on a phone, the parts on a line of their own
      // under each name (table.css shows one or the other), so nothing scrolls sideways
      const head = h("tr", {}, h("th", {}, "#"), h("th", {class: "name"}, ""),
                     h("th", {}, whole(s.word || "score", h)),
                     columns.map((c) => h("th", {class: "part"}, c.heading || c.key)),
                     h("th", {}, "total"));
      const body = rows.flatMap((r, i) => {
        const cls = (r.you ? "you " : "") + (r.best ? "best" : "");
        const parts = columns.map((c) => (c.heading || c.key) + " " + cell((r.parts || {})[c.key]));
        return [h("tr", {class: cls, "data-side": r.side},
          h("td", {}, String(i + 1)),
          h("td", {class: "name"}, r.best ? "★ " : "", r.name, r.leads ? " ◀" : ""),
          h("td", {class: "num"}, cell(r.score)),
          columns.map((c) => h("td", {class: "num part"}, cell((r.parts || {})[c.key]))),
          h("td", {class: "num total"}, cell(r.total))),
          columns.length ? h("tr", {class: "parts-row " + cls}, h("td", {}),
                             h("td", {colspan: 3}, parts.join(" · "))) : null];
      });
      out.append(h("table", {}, h("thead", {}, head), h("tbody", {}, body)));
      out.append(h("p", {class: "dim"}, "★ best this round · ◀ " +
                   (s.over ? "wins" : "leads the match") +
                   (s.lower_is_better ? " · lowest is best" : "") +
                   (s.legend ? " · " + s.legend : "")));
    }
    if (s.next_piles && s.next_piles.length) {
      out.append(h("p", {class: "next-piles"}, h("span", {class: "dim"}, "next Piles: "),
                   s.next_piles.map((p) => p.name + " " + p.pile).join(" · ")));
    }
    const c = s.chart;
    if (c && c.series && c.series.length && c.series[0].length) {
      out.append(chart(c, s, ctx));
    }
    return out;
  }

  /** A heading that may wrap between its words but not inside one ("score (RD-14)" broke
   *  at its hyphen on a phone, into "(RD-" and "14)"). */
  function whole(words, h) {
    return words.split(" ").flatMap((w, i) => [i ? " " : null, h("span", {class: "word"}, w)]);
  }

  function cell(v) {
    if (v === true) return "yes";
    if (v === false || v === null || v === undefined) return "–";
    return typeof v === "number" && v < 0 ? "−" + (-v) : String(v);
  }

  function el(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** Running totals by round: the leaders and you (as the terminal draws them), one line a
   *  side, the best at the top (the lowest for penalties). */
  function chart(c, s, ctx) {
    const low = !!s.lower_is_better;
    const you = (s.rows || []).find((r) => r.you);
    const last = (i) => c.series[i][c.series[i].length - 1];
    let chosen = c.series.map((_, i) => i).sort((a, b) => (low ? 1 : -1) * (last(a) - last(b)) || a - b)
      .slice(0, LINES);
    if (you && you.side < c.series.length && !chosen.includes(you.side)) {
      chosen = chosen.slice(0, LINES - 1).concat([you.side]);
    }
    const n = c.series[0].length;
    const values = chosen.flatMap((i) => c.series[i]).concat([0]);
    let lo = Math.min(...values), hi = Math.max(...values);
    if (lo === hi) hi = lo + 1;
    const W = 340, H = 176, L = 40, R = 14, T = 14, B = 32;
    const x = (i) => L + (n <= 1 ? (W - L - R) / 2 : i * (W - L - R) / (n - 1));
    const y = (v) => low ? T + (v - lo) / (hi - lo) * (H - T - B)
                         : T + (hi - v) / (hi - lo) * (H - T - B);
    const words = "running " + (low ? "penalty, lowest at the top" : "total") + " by round";
    const svg = el("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
                           "aria-label": words});
    const top = low ? lo : hi, bottom = low ? hi : lo;
    svg.append(el("line", {x1: L, y1: T, x2: L, y2: H - B, class: "axis"}),
               el("line", {x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis"}),
               el("text", {x: L - 4, y: y(top) + 5, class: "tick", "text-anchor": "end"},
                  cell(top)),
               el("text", {x: L - 4, y: y(bottom) + 5, class: "tick", "text-anchor": "end"},
                  cell(bottom)));
    const first = c.first_round || 1;
    const step = Math.max(1, Math.ceil(n / 8));
    for (let i = 0; i < n; i++) {
      if (i % step === 0 || i === n - 1) {
        svg.append(el("text", {x: x(i), y: H - B + 22, class: "tick", "text-anchor": "middle"},
                      String(first + i)));
      }
    }
    chosen.slice().reverse().forEach((side) => {  // the leader drawn last, on top
      const k = chosen.indexOf(side);
      const ink = colour(side);
      const run = c.series[side];
      svg.append(el("polyline", {points: run.map((v, i) => `${x(i)},${y(v)}`).join(" "),
                                 fill: "none", style: "stroke: " + ink, "stroke-width": 2.5}));
      run.forEach((v, i) => svg.append(el("text", {x: x(i), y: y(v) + 5, style: "fill: " + ink,
        class: "marker", "text-anchor": "middle"}, MARKS[k])));
    });
    const legend = ctx.h("ul", {class: "legend"}, chosen.map((side, k) => ctx.h("li", {},
      ctx.h("span", {style: "color: " + colour(side)}, MARKS[k]), " ",
      (c.names || [])[side] || "", " ", ctx.h("b", {}, cell(last(side))))));
    return ctx.h("figure", {class: "chart-box"}, ctx.h("figcaption", {}, words), svg, legend);
  }

  return {draw};
})();
