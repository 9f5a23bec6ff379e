"""The arbiter's decisions, as plain functions of messages and time — no sockets here.

``Arbiter.handle(peer, frame, now)`` takes one frame from the ROUTER and ``Arbiter.tick(now)``
takes the passing of time; both return an :class:`Outbox` of private replies (to a peer) and
public updates (for the PUB). The socket loop in :mod:`lan_demon.net.server` is a thin shell
around it, and tests drive it directly with a fake clock.

The design follows the ZeroMQ Guide's Clone pattern: every canonical update carries the next
number of one sequence, a snapshot says which number it stands at, and a client that sees a gap
asks for a snapshot. Hidden cards never go over the PUB: each seat's own cards travel to it
alone, as a redacted state (``Game.redact``) or a move's private events.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol

from lan_demon.games import TABLE, BadMove, GameError, IllegalMove, Match, get_game
from lan_demon.games.base import public_events
from lan_demon.net.codec import ProtocolError, decode, make, request_id, state_hash

BEAT_INTERVAL = 1.0  # seconds between heartbeats, both ways
AWAY_AFTER = 3.0  # a seat silent this long (three beats) is marked away
TOKEN_LIFE = 300.0  # a session token reconnects to its seat for 5 minutes after going away
STUCK_TIMEOUT = 60.0  # RD-13
MAX_FAIRNESS_MS = 250  # the cap on the host's fairness window
TOLERANCE = 0.005  # seconds a timestamp may be earlier than its arrival allows (clock jitter)
NAME_LIMIT = 24


class Journal(Protocol):
    def write(self, record: dict[str, Any]) -> None: ...


@dataclass
class Outbox:
    """What one step of the arbiter sends: (peer, message) pairs and public updates."""

    private: list[tuple[bytes, dict[str, Any]]] = field(default_factory=list)
    public: list[dict[str, Any]] = field(default_factory=list)

    def extend(self, other: Outbox) -> None:
        self.private += other.private
        self.public += other.public


@dataclass
class Seat:
    index: int
    name: str
    token: str
    bot: bool
    peer: bytes | None
    status: str = "here"  # here | away | left
    ready: bool = False
    heard: float = 0.0
    away_since: float | None = None
    rtts: list[float] = field(default_factory=list)

    def one_way(self) -> float:
        """The measured one-way delay: half the best recent round trip (NTP style)."""
        return min(self.rtts) / 2 if self.rtts else 0.0

    def public(self) -> dict[str, Any]:
        return {"name": self.name, "bot": self.bot, "status": self.status, "ready": self.ready}


@dataclass(order=True)
class Held:
    """A contested move waiting out the fairness window (RD-11)."""

    ts: float
    arrival: float
    seat: int = field(compare=False)
    rid: int = field(compare=False)
    move: Any = field(compare=False)
    place: str | None = field(default=None, compare=False)  # where it was going on arrival


@dataclass
class Config:
    game: str
    players: int | None = None  # start by itself when this many seats are filled
    rounds: int | None = None
    seed: int | str = 0
    options: dict[str, Any] = field(default_factory=dict)
    fairness_ms: float = 30.0
    countdown: float = 3.0
    pause: float = 10.0  # longest wait between rounds for players to say ready
    turn_timeout: float = 30.0  # an absent player's Rack-O turn is played after this
    pub: str = ""  # the PUB endpoint, told to clients in the welcome

    def public(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "rounds": self.rounds,
                "options": self.options, "fairness_ms": self.fairness_ms,
                "countdown": self.countdown, "pause": self.pause}


class Arbiter:
    """The one authority on the table: it validates, orders, commits and broadcasts."""

    def __init__(self, config: Config, journal: Journal | None = None, now: float = 0.0):
        self.config = config
        self.game = get_game(config.game)
        if config.players is not None:
            self.game.check_players(config.players)
        if config.rounds is not None:
            self.game.check_rounds(config.rounds)
        if not 0 <= config.fairness_ms <= MAX_FAIRNESS_MS:
            raise GameError(f"the fairness window is 0 to {MAX_FAIRNESS_MS} ms, "
                            f"not {config.fairness_ms}")
        self.journal = journal
        self.seats: list[Seat] = []
        self.spectators: dict[bytes, float] = {}
        self.phase = "lobby"  # lobby | countdown | playing | between | over
        self.seq = 0
        self.match: Match | None = None
        self.state: Any = None
        self.go_at = 0.0
        self.between_since = 0.0
        self.last_play = now
        self.turn_since = now
        self.next_beat = now
        self.held: list[Held] = []
        self.held_until: float | None = None
        self.queued: dict[int, list[Held]] = {}  # moves behind a seat's held move, in order
        self.result: dict[str, Any] | None = None

    # --- entry points ----------------------------------------------------------------------

    def handle(self, peer: bytes, frame: bytes, now: float) -> Outbox:
        """One frame from one peer. Every request is answered, bad ones with an error."""
        out = Outbox()
        try:
            msg = decode(frame, "client")
        except ProtocolError as err:
            out.private.append((peer, make("error", re=request_id(frame), code=err.code,
                                           reason=err.reason)))
            return out
        seat = self._seat_of(peer)
        if seat is not None:
            seat.heard = now
            if seat.status == "away":
                self._presence(seat, "here", out)
        handler = getattr(self, "_on_" + msg["t"])
        try:
            handler(peer, seat, msg, now, out)
        except ProtocolError as err:
            out.private.append((peer, make("error", re=msg.get("id"), code=err.code,
                                           reason=err.reason)))
        return out

    def tick(self, now: float) -> Outbox:
        """Time passing: heartbeats, absences, Go, the fairness window, RD-13, stand-in turns."""
        out = Outbox()
        if now >= self.next_beat:
            self.next_beat = now + BEAT_INTERVAL
            self._beat(now, out)
        self._absences(now, out)
        if self.phase == "countdown" and now >= self.go_at:
            self._deal(now, out)
        if self.held_until is not None and now >= self.held_until:
            self._release(now, out)
        if self.phase == "playing":
            self._table_moves(now, out)
        if self.phase == "between" and (now - self.between_since >= self.config.pause
                                        or self._all_ready()):
            self._countdown(now, out)
        return out

    def next_deadline(self, now: float) -> float:
        """When :meth:`tick` next has something to do (the socket loop's poll timeout)."""
        times = [self.next_beat]
        if self.phase == "countdown":
            times.append(self.go_at)
        if self.held_until is not None:
            times.append(self.held_until)
        if self.phase == "between":
            times.append(self.between_since + self.config.pause)
        if self.phase == "playing" and self.game.races:
            times.append(self.last_play + STUCK_TIMEOUT)
        return max(now, min(times))

    # --- joining ---------------------------------------------------------------------------

    def _seat_of(self, peer: bytes) -> Seat | None:
        for seat in self.seats:
            if seat.peer == peer:
                return seat
        return None

    def _on_hello(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        role = msg["role"]
        if role not in ("player", "spectator"):
            raise ProtocolError("malformed", f"role is 'player' or 'spectator', not {role!r}")
        if role == "spectator":
            self.spectators[peer] = now
            out.private.append((peer, self._welcome(msg["id"], None, "")))
            return
        if msg.get("token"):
            self._rejoin(peer, msg, now, out)
            return
        if seat is not None:  # the same connection saying hello again: same seat
            out.private.append((peer, self._welcome(msg["id"], seat.index, seat.token)))
            return
        self._take_seat(peer, msg, now, out)

    def _take_seat(self, peer: bytes, msg: dict, now: float, out: Outbox) -> None:
        limit = self.config.players or self.game.max_players
        if self.phase != "lobby":
            raise ProtocolError("full", "the match has started; join as a spectator, or "
                                "reconnect to your seat with its token")
        if len(self.seats) >= limit:
            raise ProtocolError("full", f"all {limit} seats are taken")
        name = self._unique_name(msg["name"].strip()[:NAME_LIMIT] or "player")
        seat = Seat(len(self.seats), name, secrets.token_hex(8), bool(msg.get("bot")), peer,
                    heard=now)
        self.seats.append(seat)
        out.private.append((peer, self._welcome(msg["id"], seat.index, seat.token)))
        self._probe(seat, now, out)
        self._publish_lobby(out)

    def _rejoin(self, peer: bytes, msg: dict, now: float, out: Outbox) -> None:
        for seat in self.seats:
            if secrets.compare_digest(seat.token, msg["token"]):
                gone = seat.away_since is not None and now - seat.away_since > TOKEN_LIFE
                if gone or seat.status == "left":
                    break
                seat.peer, seat.heard = peer, now
                out.private.append((peer, self._welcome(msg["id"], seat.index, seat.token)))
                self._presence(seat, "here", out)
                self._probe(seat, now, out)
                return
        raise ProtocolError("bad_token", "that session token is unknown or has expired")

    def _unique_name(self, name: str) -> str:
        taken = {s.name for s in self.seats}
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name} ({n})", n + 1
        return candidate

    def _public_config(self) -> dict[str, Any]:
        config = self.config.public()
        config["options"] = {**self.game.default_options(), **config["options"]}
        return config

    def _welcome(self, rid: int, seat: int | None, token: str) -> dict[str, Any]:
        return make("welcome", re=rid, seat=seat, token=token, pub=self.config.pub,
                    game=self.game.id, config=self._public_config())

    def _on_ping(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        out.private.append((peer, make("pong", re=msg["id"], c=msg["c"], a=now)))

    def _on_echo(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        if seat is not None and 0 <= now - msg["a"] < 10:
            seat.rtts = (seat.rtts + [now - msg["a"]])[-8:]

    def _on_hb(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
               out: Outbox) -> None:
        if peer in self.spectators:
            self.spectators[peer] = now

    def _on_ready(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        player = self._player(seat, peer)
        player.ready = True
        out.private.append((peer, make("ok", re=msg["id"])))
        if self.phase == "lobby":
            self._publish_lobby(out)
            if self.config.players and len(self.seats) == self.config.players and \
                    self._all_ready():
                self._start(now, out)
        elif self.phase == "between" and self._all_ready():
            self._countdown(now, out)

    def _on_start(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        player = self._player(seat, peer)
        if player.index != 0:
            raise ProtocolError("not_host", "only the first seat starts the match")
        if self.phase != "lobby":
            raise ProtocolError("not_playing", "the match has already started")
        try:
            self.game.check_players(len(self.seats))
        except GameError as err:
            raise ProtocolError("not_playing", str(err)) from None
        out.private.append((peer, make("ok", re=msg["id"])))
        self._start(now, out)

    def _on_leave(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        self.spectators.pop(peer, None)
        if seat is not None:
            seat.peer = None
            seat.away_since = now  # its turns are played for it after the turn timeout
            self._presence(seat, "left", out)
            if self.phase == "lobby":  # the seat is freed; those after it move up one
                self.seats.remove(seat)
                for i, s in enumerate(self.seats):
                    if s.index != i and s.peer is not None:
                        s.index = i
                        out.private.append((s.peer, self._welcome(0, i, s.token)))
                    s.index = i
                self._publish_lobby(out)
        out.private.append((peer, make("ok", re=msg["id"])))

    def _on_snapshot(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                     out: Outbox) -> None:
        out.private.append((peer, self.snapshot(msg["id"], seat.index if seat else None)))

    def _player(self, seat: Seat | None, peer: bytes | None = None) -> Seat:
        if seat is None:
            if peer is not None and peer in self.spectators:
                raise ProtocolError("spectator", "spectators watch; they cannot move")
            raise ProtocolError("not_joined", "say hello and take a seat first")
        return seat

    # --- the match -------------------------------------------------------------------------

    def _all_ready(self) -> bool:
        present = [s for s in self.seats if s.status == "here"]
        return bool(present) and all(s.ready for s in present)

    def _start(self, now: float, out: Outbox) -> None:
        cfg = self.config
        self.match = Match(self.game, [s.name for s in self.seats], cfg.seed, dict(cfg.options),
                           rounds_wanted=cfg.rounds)
        if self.journal:
            self.journal.write({"j": "match", "game": self.game.id, "seed": cfg.seed,
                                "players": self.match.players, "options": cfg.options,
                                "rounds": self.match.rounds_wanted})
        self._countdown(now, out)

    def _countdown(self, now: float, out: Outbox) -> None:
        self.phase = "countdown"
        self.go_at = now + self.config.countdown
        for s in self.seats:
            s.ready = False
        self._publish(out, "countdown", round=self.match.round_no, go=self.go_at)
        if self.config.countdown <= 0:
            self._deal(now, out)

    def _deal(self, now: float, out: Outbox) -> None:
        """RD-4: Go — the round is dealt and play starts for everyone at once."""
        self.state = self.match.deal()
        self.phase = "playing"
        self.last_play = self.turn_since = now
        self.seq += 1
        present = [s for s in self.seats if s.peer is not None and s.status == "here"]
        *mine, public = self.game.redacted_data(self.state, [s.index for s in present] + [None])
        for s, state in zip(present, mine):
            out.private.append((s.peer, make("private", seq=self.seq, k="round", state=state)))
        out.public.append(make("update", seq=self.seq, k="round", round=self.match.round_no,
                               setup=self.match.setup, state=public))
        if self.journal:
            self.journal.write({"j": "round", "round": self.match.round_no,
                                "setup": self.match.setup})
        if self.game.round_over(self.state):  # RD-16: a Pile of 0 is out at Go
            self._end_round(now, out)

    def _redacted(self, seat: int | None) -> dict[str, Any]:
        return self.game.state_to_data(self.game.redact(self.state, seat))

    def _end_round(self, now: float, out: Outbox) -> None:
        result = self.game.round_result(self.state)
        number = self.match.round_no
        self.match.record(result)
        self._publish(out, "round_end", round=number, result=result.to_data(),
                      totals=self.match.totals, next=self.match.setup)
        if self.journal:
            self.journal.write({"j": "round_end", "round": number, "result": result.to_data()})
        self._drop_in_flight(out)
        if self.match.over:
            self.phase = "over"
            self.result = self.match.result_data()
            self._publish(out, "match_end", result=self.result)
            if self.journal:
                self.journal.write({"j": "match_end", "result": self.result})
        else:
            self.phase = "between"
            self.between_since = now
            for s in self.seats:
                s.ready = False

    # --- moves -----------------------------------------------------------------------------

    def _on_move(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        player = self._player(seat, peer)
        try:
            move = self.game.move_from_data(msg["move"])
        except GameError as err:
            raise ProtocolError("bad_move", str(err)) from None
        if self.phase != "playing":
            self._after_round(player, msg, move, out)
            return
        if msg["round"] != self.match.round_no:
            raise ProtocolError("wrong_round", f"the round in progress is {self.match.round_no}, "
                                f"not {msg['round']}")
        ts = min(max(msg["ts"], now - player.one_way() - TOLERANCE), now)
        held = Held(ts, now, player.index, msg["id"], move,
                    self.game.destination(self.state, player.index, move))
        if player.index in self.queued:  # keep a seat's moves in the order it sent them
            self.queued[player.index].append(held)
        elif self.config.fairness_ms > 0 and self.game.rivals(self.state, player.index, move):
            self._hold(held, now)
        else:
            self._commit(held, now, out)

    def _after_round(self, player: Seat, msg: dict, move: Any, out: Outbox) -> None:
        """A move for the round that just ended is refused by the rule that ended it (RD-12:
        nothing is played after OUT; a second OUT counts for nothing)."""
        just_ended = self.match is not None and msg["round"] == self.match.round_no - 1
        if not just_ended or self.state is None:
            raise ProtocolError("not_playing", f"no round is in progress ({self.phase})")
        try:
            self.game.apply(self.game.copy_state(self.state), player.index, move)
        except IllegalMove as err:
            out.private.append((player.peer, make("error", re=msg["id"], code="illegal",
                                                  reason=err.reason, rule=err.rule)))
            return
        except GameError:
            pass
        raise ProtocolError("not_playing", "the round is over")

    def _drop_in_flight(self, out: Outbox) -> None:
        """Moves still held or queued when the round ends are answered, not forgotten."""
        waiting = self.held + [h for hs in self.queued.values() for h in hs]
        self.held, self.held_until, self.queued = [], None, {}
        for h in waiting:
            peer = self.seats[h.seat].peer
            try:
                self.game.apply(self.game.copy_state(self.state), h.seat, h.move)
            except IllegalMove as err:
                if peer is not None:
                    out.private.append((peer, make("error", re=h.rid, code="illegal",
                                                   reason=err.reason, rule=err.rule)))
                continue
            except GameError:
                pass
            if peer is not None:
                out.private.append((peer, make("error", re=h.rid, code="not_playing",
                                               reason="the round ended first")))

    def _hold(self, held: Held, now: float) -> None:
        self.held.append(held)
        self.queued[held.seat] = []
        if self.held_until is None:
            self.held_until = now + self.config.fairness_ms / 1000

    def _release(self, now: float, out: Outbox) -> None:
        """The window closed: rivals are settled by timestamp, then what queued behind them."""
        held, queued = sorted(self.held), self.queued
        self.held, self.held_until, self.queued = [], None, {}
        for h in held:
            if self.phase == "playing":
                self._commit(h, now, out)
        for seat in sorted(queued, key=lambda s: min((q.arrival for q in queued[s]),
                                                     default=0)):
            for h in queued[seat]:
                if self.phase == "playing":
                    self._commit(h, now, out)

    def _commit(self, held: Held, now: float, out: Outbox) -> None:
        seat, move = held.seat, held.move
        # The table's own moves and stand-in turns (rid -1) are answered to nobody.
        peer = self.seats[seat].peer if seat >= 0 and held.rid >= 0 else None
        try:
            events = self.game.apply(self.state, seat, move)
        except IllegalMove as err:
            if peer is not None:
                out.private.append((peer, self._refusal(held, err)))
            return
        except BadMove as err:
            if peer is not None:
                out.private.append((peer, make("error", re=held.rid, code="bad_move",
                                               reason=str(err))))
            return
        move = self._concrete(move, events)
        self.seq += 1
        shown = self.game.public_move(move)
        hidden_move = shown != move.to_data()
        secret = hidden_move or any("private" in e for e in events)
        if secret and peer is not None:
            out.private.append((peer, make("private", seq=self.seq, k="move", events=events,
                                           move=move.to_data() if hidden_move else None)))
        out.public.append(make("update", seq=self.seq, k="move", round=self.match.round_no,
                               seat=seat, move=shown, rid=held.rid,
                               events=public_events(events), p=secret))
        if peer is not None:
            out.private.append((peer, make("ok", re=held.rid, seq=self.seq)))
        if self.journal:
            self.journal.write({"j": "move", "seq": self.seq, "round": self.match.round_no,
                                "seat": seat, "move": move.to_data()})
        if any(e.get("e") in ("play", "rotate") for e in events):
            self.last_play = now
        self.turn_since = now
        if self.game.round_over(self.state):
            self._end_round(now, out)

    def _concrete(self, move: Any, events: list[dict[str, Any]]) -> Any:
        """A "to the middle" play as it was placed: the stack it went to (aces stay "middle",
        which founds the next stack id on every copy of the table alike)."""
        target = getattr(move, "target", None)
        if target == "middle" and events and events[0].get("to", "middle") != "middle":
            to = events[0]["to"]
            first = events[0].get("cards", ["?"])[0]
            if not first.startswith("A"):
                return type(move)(move.source, to, move.count)
        return move

    def _refusal(self, held: Held, err: IllegalMove) -> dict[str, Any]:
        """The error for a refused move. A "to the middle" card whose stack was taken while it
        travelled was beaten (RD-11), whatever else the engine sees wrong with it now."""
        beaten = err.rule == "RD-11" or (
            held.place is not None and getattr(held.move, "target", "") == "middle")
        if not beaten:
            return make("error", re=held.rid, code="illegal", reason=err.reason, rule=err.rule)
        place = held.place or getattr(held.move, "target", "")
        by = self._winner(place)
        who = self.seats[by].name if by is not None and 0 <= by < len(self.seats) else "someone"
        reason = f"{who} got to {place} first"
        return make("error", re=held.rid, code="beaten", reason=reason, rule="RD-11", by=by)

    def _winner(self, target: str) -> int | None:
        """RD-11: who holds the place a beaten card was going to."""
        if not target.startswith("s") or not target[1:].isdigit():
            return None
        sid = int(target[1:])
        stack = self.state.stacks.get(sid)
        if stack is not None:
            return stack.cards[-1].owner
        return self.state.claimed.get(sid)

    def _table_moves(self, now: float, out: Outbox) -> None:
        """Moves nobody at the table makes: RD-13's minute without a play, an absent player's
        Rack-O turn (draw and discard, so the table is not stuck)."""
        if self.game.races and now - self.last_play >= STUCK_TIMEOUT:
            self.last_play = now
            self._commit(Held(now, now, TABLE, -1, self.game.move_from_data({"t": "timeout"})),
                         now, out)
            return
        if self.game.simultaneous and self.game.races:
            return
        for index in self.game.to_move(self.state):
            seat = self.seats[index]
            absent_for = now - max(self.turn_since, seat.away_since or now)
            if seat.status != "here" and absent_for >= self.config.turn_timeout:
                self._stand_in(seat, now, out)

    def _stand_in(self, seat: Seat, now: float, out: Outbox) -> None:
        """Play an absent seat's turn the plainest way — draw, then discard (RK-4, GS-4) — so
        the table is not stuck waiting for someone who has gone."""
        for _ in range(3):
            legal = self.game.legal_moves(self.state, seat.index)
            kinds = {m.to_data()["t"]: m for m in reversed(legal)}
            move = kinds.get("draw") or kinds.get("discard")
            if move is None or self.phase != "playing":
                return
            self._commit(Held(now, now, seat.index, -1, move), now, out)
            if move.to_data()["t"] == "discard":
                return

    # --- presence, heartbeats, snapshots ---------------------------------------------------

    def _absences(self, now: float, out: Outbox) -> None:
        for seat in self.seats:
            if seat.status == "here" and now - seat.heard > AWAY_AFTER:
                self._presence(seat, "away", out)
                seat.away_since = now
        for peer, heard in list(self.spectators.items()):
            if now - heard > TOKEN_LIFE:
                del self.spectators[peer]

    def _presence(self, seat: Seat, status: str, out: Outbox) -> None:
        seat.status = status
        if status == "here":
            seat.away_since = None
        self._publish(out, "presence", seat=seat.index, status=status)

    def _beat(self, now: float, out: Outbox) -> None:
        out.public.append(make("beat", seq=self.seq, a=now, hash=self.public_hash()))
        for seat in self.seats:
            if seat.status == "here" and seat.peer is not None:
                self._probe(seat, now, out)

    def _probe(self, seat: Seat, now: float, out: Outbox) -> None:
        out.private.append((seat.peer, make("probe", a=now)))

    def public_hash(self) -> str:
        """A short hash of what everyone may see, so a client notices divergence at once."""
        if self.state is None:
            return ""
        return state_hash(self._redacted(None))

    def _publish(self, out: Outbox, kind: str, **fields: Any) -> None:
        self.seq += 1
        out.public.append(make("update", seq=self.seq, k=kind, **fields))

    def _publish_lobby(self, out: Outbox) -> None:
        self._publish(out, "lobby", seats=[s.public() for s in self.seats])

    def table(self) -> dict[str, Any]:
        """The public match information, as a snapshot carries it."""
        match = self.match
        return {
            "phase": self.phase,
            "game": self.game.id,
            "config": self._public_config(),
            "seats": [s.public() for s in self.seats],
            "round": match.round_no if match else 0,
            "totals": list(match.totals) if match else [],
            "results": [r.to_data() for r in match.rounds] if match else [],
            "setup": match.setup if match else None,
            "go": self.go_at if self.phase == "countdown" else None,
            "result": self.result,
        }

    def snapshot(self, rid: int, seat: int | None) -> dict[str, Any]:
        state = self._redacted(seat) if self.state is not None else None
        return make("snap", re=rid, seq=self.seq, table=self.table(), state=state)

