"use strict";
/* The round-end table (every part of each score, as the face's `scores` lists them) and the
   running-totals chart as inline SVG. The numbers, their order, who won and every word come
   from the face; the page lays them out. Each line of the chart has a colour, a marker shape
   of its own and its player's name at its end, so no line is told by colour alone. */
const Scores = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#17becf",
                   "#8c564b", "#e377c2"];
  const MARKS = ["●", "■", "▲", "◆", "✚", "★", "▼", "⬟"];

  function draw(s, ctx) {
    const {h} = ctx;
    const out = h("section", {class: "scores"});
    const words = [].concat(s.words || []);
    for (const w of words) out.append(h("p", {class: "ending"}, w));
    const columns = s.columns || [];
    const rows = s.rows || [];
    if (rows.length) {
      // every part a column on a wide screen; on a phone, the parts on a line of their own
      // under each name (table.css shows one or the other), so nothing scrolls sideways
      const head = h("tr", {}, h("th", {}, "#"), h("th", {class: "name"}, ""),
                     h("th", {}, s.score_label || "score"),
                     columns.map((c) => h("th", {class: "part"}, c.label || c.key)),
                     h("th", {}, "total"));
      const body = rows.flatMap((r, i) => {
        const cls = (r.you ? "you " : "") + (r.best ? "best" : "");
        const parts = columns.map((c) => (c.label || c.key) + " " + cell((r.parts || {})[c.key]));
        return [h("tr", {class: cls},
          h("td", {}, String(r.place || i + 1)),
          h("td", {class: "name"}, r.best ? "★ " : "", r.name, r.leads ? " ◀" : ""),
          h("td", {class: "num"}, cell(r.score)),
          columns.map((c) => h("td", {class: "num part"}, cell((r.parts || {})[c.key]))),
          h("td", {class: "num total"}, cell(r.total))),
          columns.length ? h("tr", {class: "parts-row " + cls}, h("td", {}),
                             h("td", {colspan: 3}, parts.join(" · "))) : null];
      });
      out.append(h("table", {}, h("thead", {}, head), h("tbody", {}, body)));
    }
    if (s.legend) out.append(h("p", {class: "dim"}, s.legend));
    if (s.next_piles && s.next_piles.length) {
      out.append(h("p", {class: "next-piles"}, s.next_piles_words || "next Piles",
                   h("br"), s.next_piles.map((p) => p.name + " " + p.pile).join(" · ")));
    }
    const chartData = s.chart || (s.series ? {series: s.series, rounds: s.rounds,
                                              lower_is_better: s.lower_is_better} : null);
    if (chartData && chartData.series && chartData.series.length) {
      out.append(chart(chartData, ctx));
    }
    return out;
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

  /** Running totals by round: one line a side, the best at the top (lowest for penalties). */
  function chart(c, ctx) {
    const series = c.series.slice(0, MARKS.length);
    const n = Math.max(...series.map((s) => s.totals.length));
    const values = series.flatMap((s) => s.totals).concat([0]);
    let lo = Math.min(...values), hi = Math.max(...values);
    if (lo === hi) hi = lo + 1;
    const W = 340, H = 170, L = 40, R = 12, T = 14, B = 30;
    const x = (i) => L + (n <= 1 ? (W - L - R) / 2 : i * (W - L - R) / (n - 1));
    const y = (v) => c.lower_is_better ? T + (v - lo) / (hi - lo) * (H - T - B)
                                       : T + (hi - v) / (hi - lo) * (H - T - B);
    const svg = el("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
                           "aria-label": c.words || "running totals by round"});
    svg.append(el("line", {x1: L, y1: T, x2: L, y2: H - B, class: "axis"}),
               el("line", {x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis"}),
               el("text", {x: L - 4, y: y(c.lower_is_better ? lo : hi) + 5, class: "tick",
                           "text-anchor": "end"}, String(c.lower_is_better ? lo : hi)),
               el("text", {x: L - 4, y: y(c.lower_is_better ? hi : lo) + 5, class: "tick",
                           "text-anchor": "end"}, String(c.lower_is_better ? hi : lo)));
    const rounds = c.rounds || Array.from({length: n}, (_, i) => i + 1);
    const step = Math.max(1, Math.ceil(n / 8));
    rounds.forEach((r, i) => {
      if (i % step === 0 || i === n - 1) {
        svg.append(el("text", {x: x(i), y: H - B + 18, class: "tick", "text-anchor": "middle"},
                          String(r)));
      }
    });
    series.forEach((s, k) => {
      const colour = COLOURS[k % COLOURS.length];
      const pts = s.totals.map((v, i) => `${x(i)},${y(v)}`).join(" ");
      svg.append(el("polyline", {points: pts, fill: "none", stroke: colour,
                                 "stroke-width": 2.5}));
      s.totals.forEach((v, i) => svg.append(el("text", {x: x(i), y: y(v) + 5, fill: colour,
        class: "marker", "text-anchor": "middle"}, MARKS[k])));
    });
    const legend = ctx.h("ul", {class: "legend"}, series.map((s, k) => ctx.h("li", {},
      ctx.h("span", {style: "color:" + COLOURS[k % COLOURS.length]}, MARKS[k]), " ",
      s.name, " ", ctx.h("b", {}, cell(s.totals[s.totals.length - 1])))));
    return ctx.h("figure", {class: "chart-box"},
                 ctx.h("figcaption", {}, c.words || "running totals by round"), svg, legend);
  }

  return {draw};
})();
