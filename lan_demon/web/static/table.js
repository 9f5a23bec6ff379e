"use strict";
/* The table in a browser: a view of the face the gateway sends, plus input.

   The page decides nothing of the game: it draws the face (docs/page-protocol.md) and sends
   intents ({"t":"act","do":...}) or keys ({"t":"key","key":...}); legality, scores and every
   word said to a player come in the face. The page's own words are the labels of its
   controls, and even those yield to the face's `acts` labels.

   Handover from the lobby (one page, one socket): lobby.js calls `Table.show(socket, face)`
   with its open socket and the first face; Table listens on that socket for `face` and
   `error` frames from then on, and draws into #table (hiding #lobby). After a reconnect the
   lobby calls `Table.show(newSocket, face)` again. The TV page calls it the same way.

   Timings are the page's: a line shows for LINE_MS (restarted by a new `line_id`), the OUT
   banner for BANNER_MS with one short beep per banner id, a long press is LONG_PRESS_MS. */
const Table = (() => {
  const LINE_MS = 4000, BANNER_MS = 3000, LONG_PRESS_MS = 450;
  let sock = null, onMessage = null, face = null, root = null;
  let lineId = null, lineUntil = 0, lineTimer = null;
  let bannerId = null, bannerUntil = 0, bannerTimer = null, faces = 0;
  let countdownBase = null, countdownAt = 0, ticker = null;
  let dialog = null;           // the page's own: {kind: "choose"|"confirm", ...}
  const ui = {choose: false, knock: false, tv: false};
  let press = null;            // a card held down: {src, timer, fired}
  let wakeLock = null, audio = null;

  // --- the socket -------------------------------------------------------------------------

  function send(frame) {
    if (sock && sock.readyState === 1) sock.send(JSON.stringify(frame));
  }

  /** Send an act: the face's own act object, without its label, key or confirm words. */
  function act(a) {
    const frame = {t: "act"};
    for (const k of Object.keys(a)) {
      if (k !== "label" && k !== "key" && k !== "confirm") frame[k] = a[k];
    }
    send(frame);
  }

  function show(socket, firstFace, options) {
    if (sock && onMessage) sock.removeEventListener("message", onMessage);
    sock = socket;
    ui.tv = !!(options && options.tv);
    onMessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.t === "face") update(msg.face);
      else if (msg.t === "error") say({words: msg.words, rule: null, kind: "refusal"});
    };
    sock.addEventListener("message", onMessage);
    sock.addEventListener("close", () => { if (face) render(); });  // the ping: a dash
    root = document.getElementById("table");
    if (!root) {
      root = document.createElement("div");
      root.id = "table";
      document.body.appendChild(root);
    }
    root.hidden = false;
    const lobby = document.getElementById("lobby");
    if (lobby) lobby.hidden = true;
    if (firstFace) update(firstFace);
  }

  function hide() {
    keepAwake(false);
    if (root) root.hidden = true;
    const lobby = document.getElementById("lobby");
    if (lobby) lobby.hidden = false;
  }

  // --- a new face -------------------------------------------------------------------------

  function update(f) {
    const now = performance.now();
    if (f.line && f.line_id !== lineId) {
      lineId = f.line_id;
      pageLine = null;
      lineUntil = now + LINE_MS;
      clearTimeout(lineTimer);
      lineTimer = setTimeout(render, LINE_MS + 20);
    }
    if (f.banner && f.banner.id !== bannerId) {
      bannerId = f.banner.id;
      if (faces > 0) {  // news, not a reload's old banner
        bannerUntil = now + BANNER_MS;
        clearTimeout(bannerTimer);
        bannerTimer = setTimeout(render, BANNER_MS + 20);
        beep();
      }
    }
    if (f.countdown !== null && f.countdown !== undefined) {
      countdownBase = f.countdown;
      countdownAt = now;
      if (!ticker) ticker = setInterval(tick, 250);
    } else {
      countdownBase = null;
      clearInterval(ticker);
      ticker = null;
    }
    if (f.phase !== "playing") ui.choose = ui.knock = false;
    faces += 1;
    face = f;
    keepAwake(f.phase === "playing" && !f.spectator);
    soon();
  }

  /** One drawing per screen frame however many faces came in it (a busy table can send
   *  hundreds a second: each is kept, the screen shows the last). */
  let pending = false, asked = false, drawn = 0;
  function soon() {
    pending = true;
    if (asked) return;
    asked = true;
    requestAnimationFrame(() => {
      asked = false;
      if (pending) render();
    });
  }

  /** A line the page itself has to say (the gateway's `error` frame): shown as a face's line
   *  is, until a new line of the face's or LINE_MS. */
  let pageLine = null, pageUntil = 0;
  function say(line) {
    pageLine = line;
    pageUntil = performance.now() + LINE_MS;
    clearTimeout(lineTimer);
    lineTimer = setTimeout(render, LINE_MS + 20);
    render();
  }

  function countdownLeft() {
    if (countdownBase === null) return null;
    return Math.max(0, countdownBase - (performance.now() - countdownAt) / 1000);
  }

  function tick() {
    const left = countdownLeft();
    for (const el of document.querySelectorAll("[data-countdown]")) {
      el.textContent = Math.ceil(left) + " s";
    }
  }

  // --- drawing helpers (shared with the game drawers) --------------------------------------

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
      else el.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  /** A button: `fn` runs on a tap (click, Enter or Space). */
  function button(label, fn, cls, attrs) {
    return h("button", Object.assign({type: "button", class: cls || "", on: {click: fn}},
                                     attrs || {}), label);
  }

  /** The coach's advice: its plain words, a "why? numbers" toggle when figures stand behind
   *  it, and the figures once asked for (the `why` act: the seat remembers, as it does the
   *  terminal's advice key pressed again). */
  function hintBlock(f) {
    if (!f.hint) return null;
    const shown = !!f.hint_numbers;
    return h("div", {class: "hint"}, h("p", {}, f.hint),
             f.hint_why ? button(shown ? "hide the numbers" : "why? numbers",
                                 () => act({do: "why"}), "why-btn",
                                 {"data-do": "why", "aria-pressed": String(shown)}) : null,
             shown ? h("p", {class: "numbers"}, f.hint_numbers) : null);
  }

  /** The face's act for `name` (with its label), or null when it is not offered now. */
  function offered(name) {
    return (face.acts || []).find((a) => a.do === name) || null;
  }

  /** A button for the face's act `name`, or for `fallback` (an act object with a label) when
   *  the face does not list it; null when neither. */
  function actButton(name, fallback, cls) {
    const a = offered(name) || fallback;
    if (!a) return null;
    used.add(a.do);
    return button(a.label || a.do, () => confirmThen(a), cls, {"data-do": a.do});
  }

  /** Run an act, after a confirm of the page's own when the act carries one (the seat asks
   *  its own questions, leaving or knocking, in the face's `question`). */
  function confirmThen(a) {
    const words = a.confirm;
    if (!words) return act(a);
    dialog = {kind: "confirm", words, yes: () => act(a), yesLabel: a.label || "Yes"};
    render();
  }

  function seatName(seat) {
    const s = (face.seats || []).find((x) => x.seat === seat);
    return s ? s.name : "seat " + (seat + 1);
  }

  /** A card that plays from `src` on a tap, and offers its places on a long press. */
  function cardButton(src, content, cls, label) {
    const b = h("button", {type: "button", class: "src " + (cls || ""), "data-src": src,
                           "aria-label": label}, content);
    b.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0) return;
      cancelPress();
      press = {src, fired: false, timer: setTimeout(() => {
        press.fired = true;
        choose(src);
      }, LONG_PRESS_MS)};
    });
    b.addEventListener("click", (ev) => { if (ev.detail === 0) tapSource(src); });  // keyboard
    b.addEventListener("contextmenu", (ev) => ev.preventDefault());
    return b;
  }

  function cancelPress() {
    if (press) clearTimeout(press.timer);
    press = null;
  }

  window.addEventListener("pointerup", () => {
    if (!press) return;
    const p = press;
    cancelPress();
    if (!p.fired) tapSource(p.src);
  });
  window.addEventListener("pointercancel", cancelPress);

  /** A tap on a card: play it to its best place, or list its places in "choose" mode. */
  function tapSource(src) {
    if (ui.choose) {
      ui.choose = false;
      return choose(src);
    }
    send({t: "act", do: "play", from: src});
  }

  /** The places a card may go, best first, as large buttons (the face's `places`). */
  function choose(src) {
    const places = ((face.table || {}).me || {}).places || {};
    const list = places[src] || [];
    if (!list.length) {  // nowhere: the seat says why, in words
      send({t: "act", do: "play", from: src});
      return;
    }
    dialog = {kind: "choose", src, places: list};
    render();
  }

  const used = new Set();  // the acts a game drawer placed itself, this render

  // --- the page ---------------------------------------------------------------------------

  function render() {
    pending = false;
    if (!root || !face) return;
    drawn = faces;
    used.clear();
    const f = face;
    const now = performance.now();
    const ctx = {face: f, h, button, act, send, actButton, offered, seatName, cardButton, hintBlock,
                 confirmThen, ui, render, used, countdown: countdownEl,
                 openDialog: (d) => { dialog = d; render(); }};
    const page = h("div", {class: "page game-" + (f.game || "none") + (ui.tv ? " tv" : "")});
    page.append(header(f));
    for (const words of f.alarms || []) page.append(h("div", {class: "alarm", role: "alert"},
                                                      "⚠ " + words));
    const stateWords = {gone: "⚠ " + (f.gone || ""), reconnecting: "reconnecting…",
                        closed: "the host has closed the table"};
    if (f.state === "gone" || f.state === "reconnecting" || f.state === "closed") {
      page.append(h("div", {class: "state " + f.state, role: "status"}, stateWords[f.state]));
    }
    if (f.removed) page.append(h("div", {class: "alarm", role: "alert"}, f.removed));
    if (f.paused) {
      // The pause's own buttons (Resume, and Remove for a seat gone away) stand in its notice
      // at the top: on a phone the sticky cards at the bottom hid them, and nothing else can
      // be done at a paused table.
      const evening = (f.acts || []).filter((a) => a.do === "resume" || a.do === "remove");
      for (const a of evening) used.add(a.do);
      page.append(h("div", {class: "paused", role: "status"}, "⏸ " + f.paused,
                    evening.length ? h("div", {class: "paused-acts"}, evening.map((a) =>
                      button(a.label || a.do, () => confirmThen(a), "act",
                             {"data-do": a.do}))) : null));
    }
    for (const words of f.away || []) page.append(h("div", {class: "note away-time"}, "· " + words));
    for (const words of f.notes || []) page.append(h("div", {class: "note"}, words));
    let body;
    if (f.phase === "between" || f.phase === "over") {
      body = h("div", {class: "round-end"});
      if (f.banner) body.append(h("div", {class: "banner-line"}, "★ " + f.banner.words + " ★"));
      // above the scoreboard and its chart: below them, on a phone and on the TV, it would
      // sit below the fold, where nobody sees the next round coming
      const next = nextRound(f);
      if (next) body.append(next);
      if (f.scores) body.append(Scores.draw(f.scores, ctx));
      if (f.review && f.review.length) {
        body.append(h("section", {class: "review"}, h("h2", {}, "Review"),
                      h("ul", {}, f.review.map((r) => h("li", {}, r)))));
      }
    } else if (f.phase === "playing") {
      body = gameBody(f, ctx);
    } else {
      body = h("div", {class: "waiting"});
      if (f.table && f.phase === "countdown") body.append(gameBody(f, ctx));
    }
    page.append(body);
    if (f.phase !== "playing") page.append(seatsPanel(f));
    if (f.deal && f.deal.words) {
      const bad = f.deal.verdict !== "checked";
      let mark = "";
      if (f.deal.verdict === "DEAL CHECK FAILED") mark = " failed";
      else if (bad) mark = " unchecked";
      page.append(h("div", {class: "deal" + mark}, (bad ? "⚠ " : "✓ ") + f.deal.words));
    }
    const keys = keyList(f);
    if (keys) page.append(keys);
    page.append(dock(f, now));
    if (now < bannerUntil && f.banner) {
      page.append(h("div", {class: "banner", role: "status"}, h("div", {}, f.banner.words)));
    }
    const d = modal(f);
    if (d) page.append(d);
    root.replaceChildren(page);
    tick();
  }

  /** The keys a keyboard has now, as the terminal lists them (the face's `key_help`: the same
   *  order and words in every game); not on the TV, and hidden by the CSS on a touch screen. */
  function keyList(f) {
    if (ui.tv || !f.key_help || !f.key_help.length) return null;
    const out = h("p", {class: "keys dim"}, "Keys: ");
    f.key_help.forEach(([key, words], i) => {
      if (i) out.append(" · ");
      out.append(h("kbd", {}, key), " " + words);
    });
    return out;
  }

  function gameBody(f, ctx) {
    const drawer = {"racing-demon": Demon, "racing-demon-german": Demon, "racko": RackO,
                    "gin-solitaire": Gin}[f.game];
    if (!drawer || !f.table) return h("div", {class: "waiting"});
    return drawer.draw(f, ctx);
  }

  function header(f) {
    const leave = ui.tv ? null : actButton("leave", null, "quiet leave");
    return h("header", {class: "bar"},
             h("h1", {}, f.title || ""),
             h("span", {class: "phase"}, phaseMark(f)),
             // No figure while the socket is down: the last one, standing under "connection
             // lost", would read as if all were well.
             h("span", {class: "ping"}, sock && sock.readyState === 1 ? f.ping || "" : "ping —"),
             leave);
  }

  function phaseMark(f) {
    if (f.spectator) return "watching · " + (f.phase || "");
    return f.phase || "";
  }

  function countdownEl(cls) {
    if (countdownBase === null) return null;
    return h("span", {class: "countdown " + (cls || ""), "data-countdown": true,
                      role: "timer"}, Math.ceil(countdownLeft()) + " s");
  }

  /** The seats, with ready, captain, bot and presence marks (the lobby and between rounds). */
  function seatsPanel(f) {
    const rows = (f.seats || []).map((s) => h("li", {class: "seat " + (s.status || "here") +
                                                       (s.you ? " you" : "")},
      h("span", {class: "name"}, s.name),
      s.captain ? h("span", {class: "mark"}, "★ captain") : null,
      s.bot ? h("span", {class: "mark"}, "bot") : null,  // (a fixed level is in its name)
      s.status && s.status !== "here" ? h("span", {class: "mark away"}, "⚠ " + s.status) : null,
      s.ready ? h("span", {class: "mark ok"}, "✓ ready") : null));
    const panel = h("section", {class: "seats"});
    const roundEnd = f.phase === "between" || f.phase === "over";
    const next = roundEnd ? null : nextRound(f);  // at a round's end, above the scores
    if (next) panel.append(next);
    if (f.waiting_for && f.waiting_for.length) {
      panel.append(h("p", {class: "waiting-for"}, "Waiting for: " + f.waiting_for.join(", ")));
    }
    panel.append(h("ul", {}, rows));
    return panel;
  }

  /** "Go in 3 s" or "Next round in 12 s" while the face counts down, else null. */
  function nextRound(f) {
    if (f.phase !== "countdown" && (f.countdown === null || f.countdown === undefined)) {
      return null;
    }
    const label = f.phase === "countdown" && !f.scores ? "Go in " : "Next round in ";
    return h("p", {class: "big next-round"}, label, countdownEl("big"));
  }

  /** The line shown now: the page's own while it lasts, else the face's, else none. */
  function shownLine(f, now) {
    if (pageLine && now < pageUntil) return pageLine;
    if (f.line && now < lineUntil) return f.line;
    return null;
  }

  /** The mark before a line's words: a refusal's cross, a lost race's flash. */
  const LINE_MARKS = new Map([["refusal", "✗ "], ["race", "⚡ "]]);

  /** The bottom of the screen: the line (kept LINE_MS), then the acts not drawn elsewhere. */
  function dock(f, now) {
    const out = h("div", {class: "dock"});
    const line = shownLine(f, now);
    out.append(h("div", {class: "line" + (line ? " " + (line.kind || "said") : ""),
                         role: "status", "aria-live": "polite"},
                 line ? [LINE_MARKS.get(line.kind) || "",
                         line.words, line.rule ? h("span", {class: "rule"}, " " + line.rule) :
                         null] : ""));
    if (ui.tv) return out;
    const bar = h("div", {class: "acts"});
    for (const a of f.acts || []) {
      if (used.has(a.do) || a.do === "leave") continue;
      bar.append(button(a.label || a.do, () => confirmThen(a), "act", {"data-do": a.do}));
    }
    if (bar.childNodes.length) out.append(bar);
    return out;
  }

  function modal(f) {
    let box = null;
    if (dialog && dialog.kind === "choose") {
      box = h("div", {class: "dialog", role: "dialog", "aria-label": "Where to?"},
              h("p", {}, Cards.text(sourceCard(dialog.src)) + " →"),
              dialog.places.map((p) => button(p.words, () => {
                const src = dialog.src;
                dialog = null;
                send({t: "act", do: "play", from: src, to: p.to});
                render();
              }, "place", {"data-to": p.to})),
              button("Cancel", () => { dialog = null; render(); }, "quiet"));
    } else if (dialog && dialog.kind === "confirm") {
      box = h("div", {class: "dialog", role: "dialog"}, h("p", {}, dialog.words),
              h("div", {class: "row"},
                button(dialog.yesLabel, () => { const d = dialog; dialog = null; d.yes();
                                               render(); }, "yes"),
                button("Cancel", () => { dialog = null; render(); }, "quiet")));
    } else if (f.question && !ui.tv) {
      const q = f.question;
      box = h("div", {class: "dialog", role: "dialog"}, h("p", {}, q.words),
              h("div", {class: "row"},
                q.yes ? button(q.yes_label || q.yes.label || "Yes", () => act(q.yes), "yes") : null,
                q.other ? button(q.other_label, () => act(q.other), "yes") : null,
                q.no ? button(q.no_label || q.no.label || "No", () => act(q.no), "quiet") : null));
    }
    return box ? h("div", {class: "veil"}, box) : null;
  }

  function sourceCard(src) {
    const me = (face.table || {}).me || {};
    if (src === "pile") return me.pile_top;
    if (src === "waste") return me.waste_top;
    const col = (me.columns || [])[Number(src.slice(1)) - 1] || [];
    return col[col.length - 1];
  }

  // --- keys, sound, the screen kept awake ------------------------------------------------

  const KEY_NAMES = {Enter: "enter", Escape: "escape", " ": " ", Tab: null};

  document.addEventListener("keydown", (ev) => {
    if (!face || !root || root.hidden || ui.tv) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA") return;
    if (dialog && ev.key === "Escape") {
      dialog = null;
      render();
      return;
    }
    let key = null;
    if (ev.key in KEY_NAMES) key = KEY_NAMES[ev.key];
    else if (ev.key.length === 1) key = ev.key;
    const keys = face.keys || {};
    if (key === " " && !(" " in keys) && "space" in keys) key = "space";
    if (key === null || !(key in keys)) return;
    if ((key === "enter" || key === " ") && tag === "BUTTON") return;  // the button's own
    ev.preventDefault();
    send({t: "key", key});
  });

  function beep() {
    try {
      const activated = !navigator.userActivation || navigator.userActivation.hasBeenActive;
      if (!activated || !window.AudioContext) return;
      audio = audio || new AudioContext();
      if (audio.state === "suspended") audio.resume().catch(() => {});
      const osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.15, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.25);
    } catch (e) { /* no sound here: the banner says it */ }
  }

  /** While a round is played, ask the browser to keep the screen on (a phone that sleeps
   *  mid-round loses its seat's moments); where it cannot or will not, say nothing. */
  let wantAwake = false;
  function keepAwake(on) {
    wantAwake = on;
    if (!on) return release();
    if (wakeLock || !navigator.wakeLock || document.visibilityState !== "visible") return;
    wakeLock = "asking";
    navigator.wakeLock.request("screen").then((lock) => {
      wakeLock = lock;
      lock.addEventListener("release", () => { if (wakeLock === lock) wakeLock = null; });
      if (!wantAwake) release();  // the round ended while the browser was asked
    }).catch(() => { wakeLock = null; });
  }

  function release() {
    if (wakeLock && wakeLock !== "asking") {
      const lock = wakeLock;
      wakeLock = null;
      lock.release().catch(() => {});
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (face) keepAwake(face.phase === "playing" && !face.spectator);
  });

  // `face`, `faces` (how many came) and `drawn` (how many when the screen was last drawn) are
  // read by tests and tools/screenshots.py
  return {show, hide, update, render, get face() { return face; }, get faces() { return faces; },
          get drawn() { return drawn; }};
})();
window.Table = Table;  // for lobby.js and tv.js (a top-level const is no window property)
