"""The table as one seat knows it, moved on only by what the arbiter says — no sockets here.

:class:`TableCopy` keeps two copies of the round:

* ``mirror`` — the canonical table as this seat may see it (a redacted engine state), moved on
  only by the arbiter's sequenced updates (``Game.replay``);
* ``predicted`` — the mirror with this seat's own moves that are still in flight applied on
  top, so the screen answers a key press at once instead of waiting for the network.

Updates and their private halves are buffered until they can be applied in sequence order; a
gap in the sequence (or a late join) is healed with a snapshot, after the Clone pattern. The
seat's duties under commit and reveal (§22) follow the same updates: a nonce committed for the
next round, revealed at its countdown, and the round's deal checked when its secret comes.

:class:`lan_demon.net.client.Client` is a TableCopy with the sockets: the handlers of
snapshots, updates, private halves and beats (``_on_snap``, ``_on_update``, ``_on_private``,
``_on_beat``) are here, the client's own messages (welcome, pong, ok, error, probe) there. The
client supplies what this needs to answer: ``_send``, ``_ids``, ``clock``, ``connected``,
``role``, ``store`` and ``ready``. (A base class rather than an object the client holds, so
``client.mirror``, ``client.table``, ``client.seq``… stay plain attributes on the hot path.)
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any, Callable

from lan_demon.games import GameError
from lan_demon.net.codec import ProtocolError, check, make, state_hash
from lan_demon.net.deal_duties import DealDuties
from lan_demon.net.notices import Notice, NoticeKind
from lan_demon.net.seal import open_seal, private_of
from lan_demon.net.tokens import TokenStore

#: how many of the moves played for absent seats are kept (:attr:`TableCopy.stood_in`)
STOOD_IN_KEPT = 32
PRIVATE_WAIT = 1.0  # how long an update may wait for its private half before a resync


class TableCopy(DealDuties):
    """The lobby, the scores and the round as this seat may see them; see the module text."""

    # supplied by the client that owns the sockets
    clock: Callable[[], float]
    connected: bool
    role: str
    store: TokenStore | None
    _ids: itertools.count

    def __init__(self, history: int | None = None):
        """``history``: how many finished rounds' results to keep in ``table["results"]``
        (None: all)."""
        self.history = history
        self.seat: int | None = None
        self.game: Any = None
        self.seq = 0
        self.table: dict[str, Any] = {"phase": "lobby", "seats": []}
        self.mirror: Any = None
        self._predicted: Any = None
        self._stale = False  # predicted must be worked out again before it is read
        # Grows whenever the mirror or the moves in flight change: what is worked out from
        # ``predicted`` (the seat's view, its legal moves) is kept until it grows again.
        self.changes = 0
        # The last (changes, hash) a heartbeat's state hash was found to match: a quiet table
        # beats with the same hash every second, and redacting and hashing a 20-seat table
        # for each of a host's 20 browser seats each time was most of an idle host's work.
        self._hash_checked: tuple[int, str] | None = None
        self.pending: dict[int, Any] = {}  # in-flight moves by request id, oldest first
        self._updates: dict[int, dict[str, Any]] = {}
        self._privates: dict[int, dict[str, Any]] = {}
        self.seal_key: bytes | None = None  # our welcome's key to our sealed halves (§23)
        self._waiting_since: float | None = None
        self._snapshot_asked = False
        self.notices: list[Notice] = []
        #: tell every committed move as a ``Notice("move")`` (the line-mode table says each
        #: one; a screen that redraws from the mirror has no need of them)
        self.tell_moves = False
        #: the latest moves the arbiter played for a seat away or gone (RK-4's stand-in), as
        #: (update seq, seat, its status, the public events): an update alone reads as the
        #: seat's own move, and two may land between two looks of the screen
        self.stood_in: deque[tuple[int, int, str, list[dict[str, Any]]]] = \
            deque(maxlen=STOOD_IN_KEPT)
        self._said_ready = False  # we said ready and no countdown has used it up yet
        # §24: until when (our clock) each away seat is kept for its token, and since when
        # (our clock) the table stands paused: every screen counts the away time out loud
        self.kept_until: dict[int, float] = {}
        self.handed: dict[int, str] = {}  # seats handed to a bot here (§24): the person's name
        self.paused_since: float | None = None
        self._init_duties()  # commit and reveal (§22): our promises, and each deal's check

    def _send(self, msg: dict[str, Any]) -> bool:
        raise NotImplementedError  # the client's: queue a message for the arbiter

    def pause(self) -> None:
        """The captain stops every clock of the table (§24); refused for anyone else."""
        self._send(make("pause", id=next(self._ids)))

    def resume(self) -> None:
        """The captain (or whoever paused) starts the table again (§24)."""
        self._send(make("resume", id=next(self._ids)))

    def remove(self, seat: int, bot: int | None = None) -> None:
        """The captain gives ``seat`` up for good, or with ``bot`` hands it to a bot of that
        level (§24)."""
        extra = {} if bot is None else {"bot": bot}
        self._send(make("remove", id=next(self._ids), seat=seat, **extra))

    def ready(self) -> None:
        raise NotImplementedError  # the client's: say ready (after our commitment, §22)

    def _notice(self, kind: str, text: str, data: dict[str, Any] | None = None) -> None:
        self.notices.append(Notice(kind, text, data or {}))

    @property
    def buffered(self) -> int:
        """How many updates and private halves have arrived and wait to be applied: behind a
        missing one, for their other half, or for a snapshot asked for."""
        return len(self._updates) + len(self._privates)

    @property
    def catching_up(self) -> bool:
        """A snapshot has been asked for and has not come yet: until it does, what is shown
        may be behind the table, and no update is applied."""
        return self._snapshot_asked

    def resync(self) -> None:
        """Ask for a snapshot; updates after it are applied when it comes (Clone pattern)."""
        if not self._snapshot_asked:
            self._snapshot_asked = True
            self._send(make("snapshot", id=next(self._ids)))

    @property
    def predicted(self) -> Any:
        """The mirror with our moves in flight applied, worked out when it is read (a bot
        never reads it, and a person's screen reads it once per change)."""
        if self._stale:
            self._stale = False
            self._predicted = self._prediction()
        return self._predicted

    @predicted.setter
    def predicted(self, state: Any) -> None:
        self._predicted, self._stale = state, False
        self.changes += 1

    # --- snapshots --------------------------------------------------------------------------

    def _on_snap(self, msg: dict[str, Any]) -> None:
        self._snapshot_asked = False
        self.table = msg["table"]
        self.table["results_from"] = 0
        now = self.clock()
        paused = self.table.get("paused")
        self.paused_since = now - (paused.get("for") or 0.0) if paused else None
        base = self.paused_since if self.paused_since is not None else now  # (kept stands)
        self.kept_until = {seat: base + kept for seat, kept in self.table.get("kept") or []}
        self._trim_history()
        self.seq = msg["seq"]
        state = msg.get("state")
        self.mirror = self.game.state_from_data(state) if state is not None else None
        self.pending.clear()
        self._repredict()
        self._updates = {s: u for s, u in self._updates.items() if s > self.seq}
        self._privates = {s: p for s, p in self._privates.items() if s > self.seq}
        self.notices.append(Notice(NoticeKind.RESYNC, f"synchronised at update {self.seq}"))
        self._ready_again()
        self._deal_again()
        self._advance()

    def _ready_again(self) -> None:
        """After a reconnect (or a resumed arbiter) the table may not know we said ready: if
        the snapshot shows the lobby or a pause between rounds with our seat not ready, say it
        again — only when we had said it, never for a player who had not."""
        if not self._said_ready or self.seat is None:
            return
        phase, seats = self.table.get("phase"), self.table.get("seats") or []
        if phase in ("countdown", "playing", "over"):
            self._said_ready = False  # used up: the arbiter clears it at each countdown
        elif self.seat < len(seats) and not seats[self.seat].get("ready"):
            self.ready()

    def _on_private(self, msg: dict[str, Any]) -> None:
        if msg["seq"] > self.seq:
            self._privates[msg["seq"]] = msg
            self._advance()

    # --- published updates ------------------------------------------------------------------

    def _on_stall(self, msg: dict[str, Any]) -> None:
        """§25: the host's journal cannot be written, and the table stands still (``on``) —
        or it goes on, every clock we hold moved on by the time it stood (as a resume's,
        §24; a pause in force holds them still anyway: its resume moves them)."""
        was = self.table.get("stall")
        if msg["on"]:
            self.table["stall"] = {"why": msg["why"], "since": self.clock() - msg["stood"]}
            if was is None:
                self.notices.append(Notice(NoticeKind.STALL, data=msg))
            return
        self.table["stall"] = None
        if was is None:
            return  # (the end of a stall we never heard begin: our clocks came from a snap)
        stood = msg["stood"]
        if self.table.get("paused") is None:
            for name in ("go", "next_at"):
                if self.table.get(name) is not None:
                    self.table[name] += stood
            self.kept_until = {seat: t + stood for seat, t in self.kept_until.items()}
        self.notices.append(Notice(NoticeKind.STALL_OVER, data=msg))
        if self.connected:
            self._ready_again()  # a ready refused 'stalled', said again
            self._deal_again_after_stall()
        elif getattr(self, "welcomed", False):
            self._reconnect()  # our way back was refused 'stalled': now it is taken

    def _on_beat(self, msg: dict[str, Any]) -> None:
        if msg["seq"] > self.seq and self.seq + 1 not in self._updates \
                and not self._snapshot_asked:
            self.resync()  # we missed the next update and nothing else will tell us
        elif msg["seq"] == self.seq and msg.get("hash") and self.mirror is not None:
            if self._hash_checked == (self.changes, msg["hash"]):
                return  # this very table matched this hash already: a quiet table's beats
            public = self.game.state_to_data(self.game.redact(self.mirror, None))
            if state_hash(public) != msg["hash"]:  # our table drifted from the canonical one
                self.notices.append(Notice(NoticeKind.RESYNC, "the table drifted; resynchronising"))
                self.resync()
            else:
                self._hash_checked = (self.changes, msg["hash"])

    def _on_update(self, msg: dict[str, Any]) -> None:
        seq = msg["seq"]
        if seq <= self.seq:
            return
        if "s" in msg and msg.get("seat") == self.seat and self.seat is not None:
            self._unseal(msg)
        if seq == self.seq + 1 and not self._updates and not self._snapshot_asked and \
                (seq in self._privates or not self._needs_private(msg)):
            # The usual case, the next update and nothing waiting: applied at once, without
            # passing through the buffer.
            self._apply(msg, self._privates.pop(seq, None))
            return
        self._updates[seq] = msg
        self._advance()

    def _unseal(self, update: dict[str, Any]) -> None:
        """Our move's private half, sealed in its update with our welcome's key (§23), kept
        as the ``private`` message it stands for. One that does not open (a key from before
        the table was resumed, or altered on the way) is healed by a snapshot at once."""
        seq = update["seq"]
        half = open_seal(self.seal_key, seq, update["s"]) if self.seal_key else None
        private = private_of(update, half) if half is not None else None
        if private is not None:
            try:
                private = check(private, "private")
            except ProtocolError:
                private = None
        if private is None:
            self.notices.append(Notice(NoticeKind.RESYNC, "our private half of update "
                                                 f"{seq} did not open; resynchronising"))
            self.resync()
            return
        self._privates[seq] = private

    def _advance(self) -> None:
        """Apply buffered updates in sequence order while the next one is complete.

        Later updates waiting behind a missing one are a gap: ask for a snapshot (Clone). An
        update merely waiting for its private half is no gap — that half comes over the other
        socket, usually a moment later (PRIVATE_WAIT bounds the wait)."""
        if self._snapshot_asked:
            return
        while self.seq + 1 in self._updates:
            update = self._updates[self.seq + 1]
            private = self._privates.get(update["seq"])
            if self._needs_private(update) and private is None:
                if self._waiting_since is None:
                    self._waiting_since = self.clock()
                return
            del self._updates[update["seq"]]
            self._privates.pop(update["seq"], None)
            self._apply(update, private)
        if self._updates and self.connected:
            self.resync()  # the next update is missing while later ones wait: a gap

    def _apply(self, update: dict[str, Any], private: dict[str, Any] | None) -> None:
        """The next update in sequence (with its private half, if any) moves the copy on."""
        self._waiting_since = None
        self.seq = update["seq"]
        if update["k"] == "move":  # nearly every update: no name built, no lookup
            self._k_move(update, private)
        else:
            getattr(self, "_k_" + update["k"])(update, private)

    def _needs_private(self, update: dict[str, Any]) -> bool:
        if self.seat is None:
            return False
        if update["k"] == "round":
            return True
        return update["k"] == "move" and update.get("p") and update.get("seat") == self.seat

    def _k_lobby(self, update: dict[str, Any], private: Any) -> None:
        self.table["seats"] = update["seats"]
        self.table["captain"] = update.get("captain")
        self.notices.append(Notice(NoticeKind.LOBBY, data=update))

    def _k_presence(self, update: dict[str, Any], private: Any) -> None:
        seats = self.table.get("seats", [])
        data = update
        if update["status"] == "away" and update.get("kept") is not None:
            self.kept_until[update["seat"]] = \
                (self.paused_since or self.clock()) + update["kept"]
        else:
            self.kept_until.pop(update["seat"], None)
        if update["seat"] < len(seats):
            seats[update["seat"]]["status"] = update["status"]
            # the name as the seat was: a lobby leave's next update takes the seat out of the
            # list, and a screen that looked it up then named the wrong seat or none
            data = {**update, "name": seats[update["seat"]].get("name"),
                    "bot": seats[update["seat"]].get("bot")}
        self.notices.append(Notice(NoticeKind.PRESENCE, data=data))

    def _k_pause(self, update: dict[str, Any], private: Any) -> None:
        """§24: every clock of the table stands still until a resume."""
        self.table["paused"] = {"by": update["by"], "name": update["name"]}
        self.paused_since = self.clock()
        self.notices.append(Notice(NoticeKind.PAUSE, data=update))

    def _k_resume(self, update: dict[str, Any], private: Any) -> None:
        """Every clock we hold moves on by the time the table stood."""
        still = update.get("paused", 0.0)
        self.table["paused"] = None
        for name in ("go", "next_at"):
            if self.table.get(name) is not None:
                self.table[name] += still
        stood = self.clock() - self.paused_since if self.paused_since is not None else 0.0
        self.kept_until = {seat: t + stood for seat, t in self.kept_until.items()}
        self.paused_since = None
        self.notices.append(Notice(NoticeKind.RESUME, data=update))

    def _k_removed(self, update: dict[str, Any], private: Any) -> None:
        """A seat given up for good — or, with ``bot``, handed to a bot: then it plays on,
        renamed ``new_name`` and marked a bot, and is away until the bot connects."""
        seats = self.table.get("seats", [])
        if update["seat"] < len(seats):
            if update.get("bot") is not None:
                self.handed[update["seat"]] = str(update.get("name") or "")
                seats[update["seat"]].update(name=update.get("new_name"), bot=True)
            else:
                seats[update["seat"]]["removed"] = True
                self.kept_until.pop(update["seat"], None)
        self.notices.append(Notice(NoticeKind.REMOVED, data=update))
        if update["seat"] == self.seat and self.seat is not None:  # ours: nothing more to do
            by = update.get("by_name") or "the host"
            said = f"{by} handed your seat to a bot" if update.get("bot") is not None else \
                f"{by} removed your seat"
            self._gone(said, said)

    def _gone(self, reason: str, said: str | None = None) -> None:
        """Our seat is no more (the client's closes its sockets too)."""
        self.table["gone"] = reason
        self.notices.append(Notice(NoticeKind.GONE, said or reason))

    def kept(self, seat: int) -> float | None:
        """Seconds the away ``seat`` is still kept for its token (standing still while the
        table is paused); None for a seat that is not away."""
        until = self.kept_until.get(seat)
        if until is None:
            return None
        stall = self.table.get("stall")  # (§25: every clock stands still then too)
        since = self.paused_since or (stall["since"] if stall else None)
        return max(0.0, until - (since or self.clock()))

    def _unready(self) -> None:
        """The arbiter clears every seat's ready at a countdown and at a round's end: so does
        our copy, or a screen would show who was ready for the round before."""
        for seat in self.table.get("seats", []):
            seat["ready"] = False

    def _k_countdown(self, update: dict[str, Any], private: Any) -> None:
        self._said_ready = False  # the arbiter clears every seat's ready at a countdown
        self._unready()
        self.table.update(phase="countdown", go=update["go"], round=update["round"],
                          next_at=None, deal={"round": update["round"],
                                              **{k: update.get(k) for k in
                                                 ("commit", "commits", "words", "seeded")}})
        self._announce(update["round"], update, counting=True)
        self.notices.append(Notice(NoticeKind.COUNTDOWN, data=update))

    def _k_round(self, update: dict[str, Any], private: Any) -> None:
        state = private["state"] if private is not None else update["state"]
        self._dealt(update["round"], update, update["setup"], state)
        self.mirror = self.game.state_from_data(state)
        self.pending.clear()
        self.predicted = self.mirror
        self.table.update(phase="playing", round=update["round"], setup=update["setup"])
        self._commit_due = update["round"] + 1  # ready for a next round that starts at once
        self.notices.append(Notice(NoticeKind.ROUND, f"round {update['round'] + 1}: go!", update))

    def _k_move(self, update: dict[str, Any], private: Any) -> None:
        if private is None:
            events, move = update["events"], update["move"]
        else:
            events, move = private["events"], private.get("move") or update["move"]
        move = self.game.move_from_data(move)
        self.game.replay(self.mirror, update["seat"], move, events)
        if update["seat"] < 0:  # the table's own move, RD-13's minute: which rotation it made
            self.table["minute_rotation"] = getattr(self.mirror, "rotations", None)
        elif update["seat"] == self.seat:
            self.pending.pop(update.get("rid"), None)
        if update.get("rid") == -1 and update["seat"] >= 0:  # a stand-in move (§9)
            self._note_stand_in(update)
        self._repredict()
        if self.tell_moves:  # our own move's events as we were told them, private parts too
            self.notices.append(Notice(NoticeKind.MOVE, data=dict(update, events=events)))

    def _note_stand_in(self, update: dict[str, Any]) -> None:
        """A move the arbiter played for an absent seat (``rid`` −1): whose, and why."""
        seat, seats = update["seat"], self.table.get("seats", [])
        status = seats[seat].get("status", "away") if seat < len(seats) else "away"
        self.stood_in.append((update["seq"], seat, status, update["events"]))

    def _k_round_end(self, update: dict[str, Any], private: Any) -> None:
        setup = self.table.get("setup") or {}  # the round's, before it gives way to the next
        self.table.setdefault("results", []).append(update["result"])
        self._trim_history()
        self._unready()
        self.table.update(phase="between", totals=update["totals"], setup=update["next"],
                          round=update["round"] + 1, next_at=update.get("next_at"))
        self.pending.clear()
        self._repredict()
        self.notices.append(Notice(NoticeKind.ROUND_END, data=update))
        self._round_over(update["round"], update.get("secret"), setup)
        self._commit_due = update["round"] + 1

    def _trim_history(self) -> None:
        results = self.table.setdefault("results", [])
        if self.history is not None and len(results) > self.history:
            dropped = len(results) - self.history
            del results[:dropped]
            self.table["results_from"] = self.table.get("results_from", 0) + dropped

    def _k_match_end(self, update: dict[str, Any], private: Any) -> None:
        self.table.update(phase="over", result=update["result"])
        if self.store is not None:
            self.store.forget()  # nothing to come back to (the token stays in memory)
        self.notices.append(Notice(NoticeKind.MATCH_END, data=update))

    def _repredict(self) -> None:
        """The mirror or the moves in flight changed: ``predicted`` is worked out again (when
        it is next read)."""
        self._stale = True
        self.changes += 1

    def _prediction(self) -> Any:
        """The mirror plus our moves still in flight; a move that no longer applies is left
        out (the arbiter will refuse it too, and the player is told then)."""
        if self.mirror is None or not self.pending:
            return self.mirror
        state = self.game.copy_state(self.mirror)
        for rid, move in list(self.pending.items()):
            try:
                self.game.apply(state, self.seat, move)
            except GameError:
                continue  # its refusal (with the reason) is on its way from the arbiter
        return state
