"use strict";
/* The TV page (/tv): a spectator's socket, drawn large for a laptop or TV in the middle of
   the table — the stacks, every player's name, Pile count and face-up cards, the OUT banner,
   the round-end table and the chart. It is sent a spectator's face (public cards only, the
   gateway's redaction) and sends nothing but its join. At a coded table it uses the code the
   lobby kept in this browser (sessionStorage), or asks for it. */
(() => {
  const said = document.getElementById("tv-said");
  const form = document.getElementById("tv-code");
  let code = sessionStorage.getItem("lan_demon.code") || "";
  let shown = false, retry = 1000;

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const sock = new WebSocket(scheme + location.host + "/ws");
    sock.addEventListener("open", () => {
      retry = 1000;
      const join = {t: "join", name: "TV", watch: true};
      if (code) join.code = code;
      sock.send(JSON.stringify(join));
    });
    sock.addEventListener("message", (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.t === "face" && !shown) {
        shown = true;
        Table.show(sock, msg.face, {tv: true});
      } else if (msg.t === "refused") {
        said.textContent = msg.words;
        form.hidden = false;
        Table.hide();
        shown = false;
        sock.close();
      }
    });
    sock.addEventListener("close", () => {
      if (!form.hidden) return;  // waiting for a code
      if (shown) {
        Table.hide();
        shown = false;
      }
      said.textContent = "The table does not answer; trying again…";
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    });
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    code = document.getElementById("tv-code-input").value.trim();
    sessionStorage.setItem("lan_demon.code", code);
    form.hidden = true;
    said.textContent = "Connecting to the table…";
    connect();
  });
  connect();
})();
