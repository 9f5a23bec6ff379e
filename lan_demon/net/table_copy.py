"""The table as one seat knows it, moved on only by what the arbiter says — no sockets here.

:class:`TableCopy` keeps two copies of the round:

* ``mirror`` — the canonical table as this seat may see it (a redacted engine state), moved on
  only by the arbiter's sequenced updates (``Game.replay``);
* ``predicted`` — the mirror with this seat's own moves that are still in flight applied on
  top, so the screen answers a key press at once instead of waiting for the network.

Updates are applied in sequence order, and a gap is healed with a snapshot, after the Clone
pattern (:class:`~lan_demon.net.update_order.UpdateOrder`). The seat's duties under commit and
reveal (§22) follow the same updates: the copy holds them
(:class:`~lan_demon.net.deal_duties.DealDuties`), and the finished rounds' results
(:class:`~lan_demon.net.score_sheet.ScoreSheet`).

The copy is kept over a :class:`~lan_demon.net.link.Link` — the connection it sends on and
reads the time from: :class:`lan_demon.net.client.Client` holds a copy and hands it what the
arbiter says (``on_snap``, ``on_update``, ``on_private``, ``on_beat``, ``on_stall``).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from lan_demon.games import GameError
from lan_demon.net.codec import make, state_hash
from lan_demon.net.deal_duties import DealDuties
from lan_demon.net.link import Link
from lan_demon.net.notices import Notice, NoticeKind
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.update_order import UpdateOrder
from lan_demon.net.witness import DealWitness

#: how many of the moves played for absent seats are kept (:attr:`TableCopy.stood_in`)
STOOD_IN_KEPT = 32


def seconds_kept(until: float | None, paused_since: float | None,
                 stall: dict[str, Any] | None, clock: Callable[[], float]) -> float | None:
    """Seconds left until ``until`` on ``clock`` (None: the seat is not away), the time
    standing still since the table was paused (§24) or its ``stall`` began (§25: every clock
    stands still then too)."""
    if until is None:
        return None
    since = paused_since or (stall["since"] if stall else None)
    return max(0.0, until - (since or clock()))


class TableCopy:
    """The lobby, the scores and the round as this seat may see them; see the module text."""

    def __init__(self, link: Link, role: str = "player", history: int | None = None):
        """``role``: "player" or "spectator" (the hello's); ``history``: how many finished
        rounds' results to keep (:attr:`scores`; None: all)."""
        self.link, self.role = link, role
        self.scores = ScoreSheet(history)
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
        # for each of a host's 20 browser seats each time would be most of an idle
        # host's work.
        self.hash_checked: tuple[int, str] | None = None
        self.pending: dict[int, Any] = {}  # in-flight moves by request id, oldest first
        #: called with each committed move's public update once the copy has applied it: a
        #: bot that hears every move (the SDK's ``on_event``) listens here
        self.move_listeners: list[Callable[[dict[str, Any]], None]] = []
        self.seal_key: bytes | None = None  # our welcome's key to our sealed halves (§23)
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
        self.duties = DealDuties(self, link)  # commit and reveal (§22)
        self.order = UpdateOrder(self, link)

    def clock(self) -> float:
        """Now, on the link's clock (every deadline the copy keeps is on it)."""
        return self.link.clock()

    @property
    def witness(self) -> DealWitness:
        """What our checks of the deals found (:class:`~lan_demon.net.witness.DealWitness`)."""
        return self.duties.witness

    def notice(self, kind: NoticeKind, text: str = "",
               data: dict[str, Any] | None = None) -> None:
        """Tell the player (the screen takes it with :meth:`take_notices`)."""
        self.notices.append(Notice(kind, text, data or {}))

    def take_notices(self) -> list[Notice]:
        """The notices since the last call, oldest first."""
        notices, self.notices = self.notices, []
        return notices

    def _send(self, msg_type: str, **fields: Any) -> bool:
        return self.link.send(make(msg_type, id=self.link.next_id(), **fields))

    def ready(self) -> None:
        """Say ready — after our nonce's commitment for the round it may start (§22): a
        ``ready`` can be the one that starts the countdown, which fixes the commitments."""
        self._said_ready = True
        self.duties.commit_now()
        self._send("ready")

    def start(self) -> None:
        """The captain starts the match before every seat is ready."""
        self._send("start")

    def pause(self) -> None:
        """The captain stops every clock of the table (§24); refused for anyone else."""
        self._send("pause")

    def resume(self) -> None:
        """The captain (or whoever paused) starts the table again (§24)."""
        self._send("resume")

    def remove(self, seat: int, bot: int | None = None) -> None:
        """The captain gives ``seat`` up for good, or with ``bot`` hands it to a bot of that
        level (§24)."""
        extra = {} if bot is None else {"bot": bot}
        self._send("remove", seat=seat, **extra)

    def seated(self, seat: int | None, seal_key: bytes | None, game: Any,
               config: dict[str, Any]) -> None:
        """A welcome: our seat (None: watching), the key to our sealed halves (§23), the game
        and its terms (``config.seeded`` is fixed for a match, §22). What the host accepted
        of our promises may be lost with the old connection."""
        self.seat, self.seal_key, self.game = seat, seal_key, game
        self.duties.witness.reconnected()
        self.duties.terms(config)

    def connection_lost(self) -> None:
        """A new connection is on its way: a snapshot asked on the old one will not come."""
        self.order.snapshot_came()

    def forget_stall(self) -> None:
        """The host went quiet while its table stood still: whether it still does, we know
        no more."""
        self.table["stall"] = None

    @property
    def buffered(self) -> int:
        """How many updates and private halves have arrived and wait to be applied: behind a
        missing one, for their other half, or for a snapshot asked for."""
        return self.order.buffered

    @property
    def catching_up(self) -> bool:
        """A snapshot has been asked for and has not come yet: until it does, what is shown
        may be behind the table, and no update is applied."""
        return self.order.snapshot_asked

    def resync(self) -> None:
        """Ask for a snapshot; updates after it are applied when it comes (Clone pattern)."""
        self.order.resync()

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

    def on_snap(self, msg: dict[str, Any]) -> None:
        """A snapshot: the table as it is at update ``seq``; later updates are applied on it."""
        self.order.snapshot_came()
        self.table = msg["table"]
        # the results go to the score sheet, and the totals the arbiter sent with them are
        # its sums: kept in the table too, they would fall behind at the next round's end
        self.scores.restart(self.table.pop("results", None) or [])
        self.table.pop("totals", None)
        now = self.clock()
        paused = self.table.get("paused")
        self.paused_since = now - (paused.get("for") or 0.0) if paused else None
        base = self.paused_since if self.paused_since is not None else now  # (kept stands)
        self.kept_until = {seat: base + kept for seat, kept in self.table.get("kept") or []}
        self.seq = msg["seq"]
        state = msg.get("state")
        self.mirror = self.game.state_from_data(state) if state is not None else None
        self.pending.clear()
        self.repredict()
        self.notices.append(Notice(NoticeKind.RESYNC, f"synchronised at update {self.seq}"))
        self._ready_again()
        self.duties.after_snapshot()
        self.order.snapshot_applied()

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

    # --- published updates ------------------------------------------------------------------

    def on_stall(self, msg: dict[str, Any]) -> bool:
        """§25: the host's journal cannot be written, and the table stands still (``on``) —
        or it goes on, every clock we hold moved on by the time it stood (as a resume's,
        §24; a pause in force holds them still anyway: its resume moves them). True when a
        stall we heard begin is over: what it refused may be sent again
        (:meth:`stall_over`)."""
        was = self.table.get("stall")
        if msg["on"]:
            self.table["stall"] = {"why": msg["why"], "since": self.clock() - msg["stood"]}
            if was is None:
                self.notices.append(Notice(NoticeKind.STALL, data=msg))
            return False
        self.table["stall"] = None
        if was is None:
            return False  # (the end of a stall we never heard begin: our clocks came from a snap)
        stood = msg["stood"]
        if self.table.get("paused") is None:
            for name in ("go", "next_at"):
                if self.table.get(name) is not None:
                    self.table[name] += stood
            self.kept_until = {seat: t + stood for seat, t in self.kept_until.items()}
        self.notices.append(Notice(NoticeKind.STALL_OVER, data=msg))
        return True

    def stall_over(self) -> None:
        """The table goes on after a stall, on our connection: a ready refused 'stalled' is
        said again, and the §22 requests it refused are sent again."""
        self._ready_again()
        self.duties.send_after_stall()

    def on_beat(self, msg: dict[str, Any]) -> None:
        """The arbiter's heartbeat: the last update's number, and the public table's hash."""
        if self.order.missed(msg["seq"]):
            self.resync()  # we missed the next update and nothing else will tell us
        elif msg["seq"] == self.seq and msg.get("hash") and self.mirror is not None:
            if self.hash_checked == (self.changes, msg["hash"]):
                return  # this very table matched this hash already: a quiet table's beats
            public = self.game.state_to_data(self.game.redact(self.mirror, None))
            if state_hash(public) != msg["hash"]:  # our table drifted from the canonical one
                self.notice(NoticeKind.RESYNC, "the table drifted; resynchronising")
                self.resync()
            else:
                self.hash_checked = (self.changes, msg["hash"])

    def on_update(self, msg: dict[str, Any]) -> None:
        """A published update: applied now if it is the next one, else kept for its turn."""
        self.order.on_update(msg)

    def on_private(self, msg: dict[str, Any]) -> None:
        """Our private half of an update (its cards, §7), applied with it."""
        self.order.on_private(msg)

    def apply(self, update: dict[str, Any], private: dict[str, Any] | None) -> None:
        """The next update in sequence (with its private half, if any) moves the copy on."""
        self.seq = update["seq"]
        if update["k"] == "move":  # nearly every update: no name built, no lookup
            self._k_move(update, private)
        else:
            getattr(self, "_k_" + update["k"])(update, private)

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
            # list, and a screen that looked it up then would name the wrong seat or none
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
            self.gone(said, said)

    def gone(self, reason: str, said: str) -> None:
        """Our seat is no more: the connection hangs up, nothing comes back, and it is said
        once (``table["gone"]``, a ``gone`` notice)."""
        self.link.hang_up()
        self.table["gone"] = reason
        self.notices.append(Notice(NoticeKind.GONE, said))

    def closed(self) -> None:
        """The host went quiet after the match: nothing to come back to. Said once; the
        final scoreboard (``table``) stays."""
        if not self.table.get("closed"):
            self.table["closed"] = True
            self.notices.append(Notice(NoticeKind.CLOSED, "the host has closed the table"))
            self.duties.checks_due(self.table.get("round", 0) - 1)  # the last round's were owed

    def refused(self, rid: int | None, msg: dict[str, Any]) -> None:
        """The arbiter refused request ``rid`` (``msg``, an ``error``): a move of ours leaves
        the moves in flight, and the player is told why."""
        move = self.pending.pop(rid, None) if rid is not None else None
        if move is not None:
            self.repredict()
        kind = NoticeKind.BEATEN if msg["code"] == "beaten" else NoticeKind.REFUSED
        text = msg["reason"] if not msg.get("rule") else f"{msg['rule']}: {msg['reason']}"
        self.notices.append(Notice(kind, text, dict(msg, move=move)))

    def kept(self, seat: int) -> float | None:
        """Seconds the away ``seat`` is still kept for its token (standing still while the
        table is paused); None for a seat that is not away."""
        return seconds_kept(self.kept_until.get(seat), self.paused_since,
                            self.table.get("stall"), self.clock)

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
        self.duties.announce(update["round"], update, counting=True)
        self.notices.append(Notice(NoticeKind.COUNTDOWN, data=update))

    def _k_round(self, update: dict[str, Any], private: Any) -> None:
        state = private["state"] if private is not None else update["state"]
        self.duties.dealt(update["round"], update, update["setup"], state)
        self.mirror = self.game.state_from_data(state)
        self.pending.clear()
        self.predicted = self.mirror
        self.table.update(phase="playing", round=update["round"], setup=update["setup"])
        self.duties.commit_due = update["round"] + 1  # for a next round that starts at once
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
        self.repredict()
        if self.tell_moves:  # our own move's events as we were told them, private parts too
            self.notices.append(Notice(NoticeKind.MOVE, data=dict(update, events=events)))
        for listener in self.move_listeners:
            listener(update)

    def _note_stand_in(self, update: dict[str, Any]) -> None:
        """A move the arbiter played for an absent seat (``rid`` −1): whose, and why."""
        seat, seats = update["seat"], self.table.get("seats", [])
        status = seats[seat].get("status", "away") if seat < len(seats) else "away"
        self.stood_in.append((update["seq"], seat, status, update["events"]))

    def _k_round_end(self, update: dict[str, Any], private: Any) -> None:
        setup = self.table.get("setup") or {}  # the round's, before it gives way to the next
        self.scores.add(update["result"])
        self._unready()
        self.table.update(phase="between", setup=update["next"], round=update["round"] + 1,
                          next_at=update.get("next_at"))
        self.pending.clear()
        self.repredict()
        self.notices.append(Notice(NoticeKind.ROUND_END, data=update))
        self.duties.round_over(update["round"], update.get("secret"), setup)
        self.duties.commit_due = update["round"] + 1

    def _k_check(self, update: dict[str, Any], private: Any) -> None:
        self.duties.on_check(update)

    def _k_dispute(self, update: dict[str, Any], private: Any) -> None:
        self.duties.on_dispute(update)

    def _k_match_end(self, update: dict[str, Any], private: Any) -> None:
        self.table.update(phase="over", result=update["result"])
        self.link.match_over()
        self.notices.append(Notice(NoticeKind.MATCH_END, data=update))

    def repredict(self) -> None:
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
