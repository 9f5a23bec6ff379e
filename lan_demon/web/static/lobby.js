"use strict";
/* The lobby: a name, the room code when the table asks one, "Sit down" or "Just watch"; then
   the one WebSocket to the gateway (docs/page-protocol.md), handed to the table's drawing
   (table.js: Table.show(socket, face)) once the first face comes.

   The seat's token lives in localStorage: a reload, a phone that slept or Wi-Fi that dropped
   takes the same seat back (the gateway keeps it for 5 minutes). A lost socket is opened again
   by itself, a little later each time, and the table is handed the new one. */
(() => {
  const KEYS = {token: "lan_demon.token", role: "lan_demon.role", name: "lan_demon.name"};
  const RETRY_MS = [500, 1000, 2000, 4000, 5000];
  const $ = (id) => document.getElementById(id);
  const form = $("join"), nameBox = $("name"), codeBox = $("code"), said = $("said");
  let sock = null, seated = false, firstFace = false, retries = 0, leaving = false;
  let wanted = null;  // the join frame to send on the next socket (with the token once known)

  function store(key, value) {
    try {
      if (value === null) localStorage.removeItem(key); else localStorage.setItem(key, value);
    } catch (e) { /* private browsing: the seat is not kept over a reload, nothing else */ }
  }
  function stored(key) {
    try { return localStorage.getItem(key); } catch (e) { return null; }
  }

  function say(words, bad) {
    said.textContent = words || "";
    said.classList.toggle("bad", !!bad);
  }
  function busy(on) {
    $("sit").disabled = on;
    $("watch").disabled = on;
  }
  function connLine(words) {
    const conn = $("conn");
    conn.textContent = words || "";
    conn.hidden = !words;
  }

  function showLobby() {
    if (window.Table && typeof window.Table.hide === "function") window.Table.hide();
    $("lobby").hidden = false;
    $("table").hidden = true;
    connLine("");
    busy(false);
  }

  function join(watch) {
    const name = nameBox.value.trim();
    if (!watch && !name) {
      say("Type your name first.", true);
      nameBox.focus();
      return;
    }
    if (name) store(KEYS.name, name);
    wanted = {t: "join", name: name, watch: !!watch};
    const kept = stored(KEYS.token);  // a seat left during the match, kept 5 minutes
    if (kept && !watch && stored(KEYS.role) !== "spectator") wanted.token = kept;
    if (!codeBox.closest("[hidden]") && codeBox.value.trim()) {
      wanted.code = codeBox.value.trim();
      try { sessionStorage.setItem("lan_demon.code", wanted.code); } catch (e) { /* none */ }
    }
    say(watch ? "Finding you a place to watch…" : "Finding you a seat…");
    busy(true);
    open();
  }

  function open() {
    if (sock) { sock.onclose = null; sock.close(); }
    seated = false;
    firstFace = false;
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    const ws = sock = new WebSocket(url);
    ws.onopen = () => ws.send(JSON.stringify(wanted));
    ws.onmessage = (ev) => {
      if (ws !== sock) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      onFrame(ws, msg);
    };
    ws.onclose = () => { if (ws === sock) lost(); };
  }

  function onFrame(ws, msg) {
    if (msg.t === "seated") {
      seated = true;
      retries = 0;
      connLine("");
      store(KEYS.token, msg.token);
      store(KEYS.role, msg.role);
      wanted = {t: "join", name: wanted.name, watch: msg.role === "spectator", token: msg.token};
    } else if (msg.t === "face" && seated && !firstFace) {
      firstFace = true;
      $("lobby").hidden = true;
      if (window.Table && typeof window.Table.show === "function") {
        window.Table.show(ws, msg.face);
      } else {
        plainTable(msg.face);
      }
    } else if (msg.t === "face" && !window.Table) {
      plainTable(msg.face);
    } else if (msg.t === "refused") {
      if (wanted && wanted.token) {  // the kept seat is gone: the lobby again, said why
        store(KEYS.token, null);
        delete wanted.token;
      }
      stop();
      showLobby();
      say(msg.words, true);
    } else if (msg.t === "bye") {
      if (!msg.kept) store(KEYS.token, null);  // kept: Sit down takes the seat back
      stop();
      showLobby();
      say(msg.words, false);
    } else if (msg.t === "error" && !seated) {
      say(msg.words, true);
      busy(false);
    }
  }

  /* Without the table's drawing (table.js not installed): who sits where, in plain text. */
  function plainTable(face) {
    const table = $("table");
    table.hidden = false;
    table.textContent = "";
    const h = document.createElement("h2");
    h.textContent = (face.title || face.game || "") + " (" + face.phase + ")";
    table.appendChild(h);
    const list = document.createElement("ul");
    for (const s of face.seats || []) {
      const li = document.createElement("li");
      li.textContent = s.name + (s.you ? " (you)" : "") + (s.ready ? ", ready" : "");
      list.appendChild(li);
    }
    table.appendChild(list);
  }

  function stop() {
    if (sock) { sock.onclose = null; sock.close(); sock = null; }
    seated = false;
  }

  function lost() {
    sock = null;
    if (leaving || !wanted) return;
    if (!seated && !wanted.token) {  // never got in: the lobby, with its buttons back
      showLobby();
      say("Could not reach the table. Is the host still running?", true);
      return;
    }
    const wait = RETRY_MS[Math.min(retries, RETRY_MS.length - 1)];
    retries += 1;
    connLine("The connection to the table was lost. Trying again…");
    setTimeout(open, wait);
  }

  async function tableInfo() {
    try {
      const r = await fetch("/table.json", {cache: "no-store"});
      return await r.json();
    } catch (e) {
      return null;
    }
  }

  async function showQr(url, lan) {
    if (!window.matchMedia("(min-width: 800px)").matches) return;  // a laptop, not a phone
    if (!lan) return;  // this computer's own address: a phone scanning it would open itself
    try {
      const r = await fetch("/qr.svg");
      const text = await r.text();
      const doc = new DOMParser().parseFromString(text, "image/svg+xml");
      const svg = doc.documentElement;
      if (svg.nodeName.toLowerCase() !== "svg") return;
      $("qr").appendChild(document.importNode(svg, true));
      $("url").textContent = url;
      $("qr-box").hidden = false;
    } catch (e) { /* no code shown: the address is still on the host's screen */ }
  }

  const NAMES = {"racing-demon": "Racing Demon", "racing-demon-german": "Racing Demon (German)",
                 "racko": "Rack-O", "gin-solitaire": "Gin Solitaire"};

  async function start() {
    nameBox.value = stored(KEYS.name) || "";
    form.addEventListener("submit", (ev) => { ev.preventDefault(); join(false); });
    $("watch").addEventListener("click", () => join(true));
    window.addEventListener("pagehide", () => { leaving = true; });
    const info = await tableInfo();
    if (info) {
      $("title").textContent = NAMES[info.game] || info.game;
      document.title = (NAMES[info.game] || info.game) + ": lan_demon";
      $("code-row").hidden = !info.coded;
      showQr(info.url, info.lan);
    }
    const token = stored(KEYS.token);
    if (token) {  // a reload: the same seat back, without asking again
      wanted = {t: "join", name: stored(KEYS.name) || "", token: token,
                watch: stored(KEYS.role) === "spectator"};
      say("Taking your seat back…");
      busy(true);
      open();
    }
  }

  start();
})();
