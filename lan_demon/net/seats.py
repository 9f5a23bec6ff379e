"""The arbiter's seats: admission, the room code, session tokens, presence and the captaincy.

Who may sit down (a ``hello``: the room code gate, a free seat in the lobby, a unique name and
a fresh session token), who comes back (a token, from the CURVE key that took the seat), who is
here, away or gone (heartbeats heard, ``leave``), and who starts the match (the captain). The
seat itself is :class:`lan_demon.net.seated.Seat`; starting the match is the match's flow's
(:class:`MatchStarts`), a seat's first clock probe the table clock's (:data:`Prober`).
"""

from __future__ import annotations

import math
import secrets
from typing import Any, Callable, Protocol

from lan_demon.games import GameError
from lan_demon.net.codec import ProtocolError, make
from lan_demon.net.guard import RateLimiter
from lan_demon.net.names import seat_name, unique_name
from lan_demon.net.outbox import Outbox
from lan_demon.net.record import Record
from lan_demon.net.seal import new_key
from lan_demon.net.seated import NOBODY, HandedOver, Seat, Sender
from lan_demon.net.security import CodeThrottle, WatchGate, codes_match
from lan_demon.net.table_facts import RUNNING, TableFacts

AWAY_AFTER = 3.0  # a seat silent this long (three beats) is marked away
TOKEN_LIFE = 300.0  # a session token reconnects to its seat for 5 minutes after going away
# Bounds (PROTOCOL.md §2): what one peer can make every other screen show, or the journal
# keep, however fast it sends. A seat's presence (here/away) changes are published at once
# up to PRESENCE_BURST, then at most PRESENCE_RATE a second: a change within that is
# published by a later tick, as it then stands (a flip and back in between shows nothing).
PRESENCE_RATE, PRESENCE_BURST = 0.2, 4.0
# Seats taken from one IP address (a connection's own id without one): as many as the table
# has at once (a host's own bots), then one every 5 s — a seat taken and left in the lobby
# is two records and three updates, so taking them in a loop is braked (``slow_down``).
SEATING_RATE = 0.2


class MatchStarts(Protocol):
    """What seating asks of the match's flow: a seat's ready or start may begin it."""

    def start(self, now: float, out: Outbox) -> None: ...

    def start_when_ready(self, now: float, out: Outbox) -> None: ...

    def countdown(self, now: float, out: Outbox) -> None: ...


#: A seat's first clock probe, sent as it sits down or comes back (the table clock's).
Prober = Callable[[Seat, float, Outbox], None]


class Seats:
    """Who sits where, who watches, who may come in, and who is told what of their presence."""

    def __init__(self, facts: TableFacts, record: Record):
        self.facts, self.record = facts, record
        self.flow: MatchStarts | None = None  # (connect: the flow is made after the seats)
        self.probe: Prober | None = None
        self.pub = ""  # the PUB endpoint, told to clients in the welcome (set by the server)
        self.watch_pub = ""  # the spectators' PUB (§11; net/watchers_pub.py), "" for ``pub``
        self.peer_seats: dict[bytes, Seat] = {}  # seat_of's memory, checked on use
        self.spectators: dict[bytes, float] = {}  # by peer: when last heard
        self.throttle = CodeThrottle()  # wrong room codes, by the sender's IP address
        self.passed = WatchGate()  # who gave the room code: only they may watch the PUB (§20)
        self.removed_tokens: dict[str, Seat] = {}  # lobby seats removed, by token (§24)
        # The people's old tokens of seats handed to a bot (§24, net/handover.py), refused.
        self.handed: dict[str, HandedOver] = {}
        self.captain_told: int | None = None  # the captain the last lobby update named
        # Bounds (PROTOCOL.md §2): a seat's presence changes published, by seat index; seats
        # taken, by address (a whole table's worth at once); the seats whose stepping out the
        # journal has (once a match is all a resume needs).
        self.presence_brake = RateLimiter(PRESENCE_RATE, PRESENCE_BURST)
        self.seatings = RateLimiter(SEATING_RATE, float(facts.settings.players
                                                        or facts.game.max_players))
        self.stepped_out: set[int] = set()

    def connect(self, flow: MatchStarts, probe: Prober) -> None:
        """The match's flow and the table clock's probe, made after the seats."""
        self.flow, self.probe = flow, probe

    def keep_removed(self, seat: Seat, most: int) -> None:
        """A lobby seat removed is freed; its token must not sit its client down again, so it
        is kept (the last ``most`` of them: an older one's token is then unknown, refused all
        the same)."""
        self.removed_tokens[seat.token] = seat
        for old in list(self.removed_tokens)[:-most]:
            del self.removed_tokens[old]

    def watching(self, peer: bytes) -> bool:
        """Whether ``peer`` is a spectator's connection."""
        return peer in self.spectators

    def seat_of(self, peer: bytes) -> Seat | None:
        """The seat this connection holds, if any. Asked for every frame, so the answer is
        remembered by peer and trusted only while it still holds (the seat is still at its place
        in the table's seats and still on this connection): a seat moved up, taken back on
        another connection or gone is looked for again, among every seat."""
        seat, seats = self.peer_seats.get(peer), self.facts.seats
        if seat is not None and seat.peer == peer and seat.index < len(seats) and \
                seats[seat.index] is seat:
            return seat
        for seat in seats:
            if seat.peer == peer:
                if len(self.peer_seats) > 4 * len(seats) + 64:
                    self.peer_seats.clear()  # connections gone for good: nothing to keep
                self.peer_seats[peer] = seat
                return seat
        return None

    def on_hello(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox, sender: Sender = NOBODY) -> None:
        role = msg["role"]
        if role not in ("player", "spectator"):
            raise ProtocolError("malformed", f"role is 'player' or 'spectator', not {role!r}")
        if role == "spectator":
            if peer not in self.spectators and not self.code_passes(peer, msg, now, out,
                                                                     sender):
                return
            self.spectators[peer] = now
            out.private.append((peer, self.welcome(msg["id"], None)))
            return
        if msg.get("token"):
            self.rejoin(peer, msg, now, out, sender)
            return
        if seat is not None:  # the same connection saying hello again: same seat
            out.private.append((peer, self.welcome(msg["id"], seat)))
            return
        if self.code_passes(peer, msg, now, out, sender):
            self.take_seat(peer, msg, now, out, sender)

    def code_passes(self, peer: bytes, msg: dict, now: float, out: Outbox,
                    sender: Sender) -> bool:
        """The room code gate (PROTOCOL.md §20): True to let the hello in; otherwise the
        refusal is in ``out``. Wrong codes from one address cost it waiting
        (:class:`~lan_demon.net.security.CodeThrottle`); a hello with no code is no guess."""
        expected = self.facts.code
        if expected is None:
            return True
        where = sender.address or peer.hex()
        wait = self.throttle.wait(where, now)
        if wait > 0:
            out.private.append((peer, make("error", re=msg["id"], code="slow_down", wait=wait,
                                           reason=f"too many wrong room codes; try again in "
                                                  f"{wait:.0f} s")))
            return False
        given = msg.get("code")
        if codes_match(given, expected):
            self.throttle.succeeded(where)
            self.passed.admit(sender.key, sender.address)  # and may watch the PUB (§20)
            return True
        if given is None:
            reason = "this table needs the room code shown on the host's screen"
        else:
            self.throttle.failed(where, now)
            reason = "wrong room code; it is shown on the host's screen"
        out.private.append((peer, make("error", re=msg["id"], code="bad_code", reason=reason)))
        return False

    def seat_counts(self) -> tuple[int, int]:
        """(taken, free) seats, as the LAN announcement says them: no seat is free once the
        match has started."""
        taken = len(self.facts.seats)
        limit = self.facts.settings.players or self.facts.game.max_players
        return taken, (max(0, limit - taken) if self.facts.phase == "lobby" else 0)

    def take_seat(self, peer: bytes, msg: dict, now: float, out: Outbox,
                  sender: Sender = NOBODY) -> None:
        limit = self.facts.settings.players or self.facts.game.max_players
        if self.facts.phase != "lobby":
            raise ProtocolError("full", "the match has started: watch it as a spectator "
                                "(join --spectate); a player who left comes back within "
                                f"{TOKEN_LIFE / 60:g} minutes by running the same join again")
        if len(self.facts.seats) >= limit:
            raise ProtocolError("full", f"all {limit} seats are taken")
        where = sender.address or peer
        if self.seatings.admit(where, now) != self.seatings.ADMIT:
            wait = self.seatings.wait(where, now)
            out.private.append((peer, make(
                "error", re=msg["id"], code="slow_down", wait=wait,
                reason=f"too many seats taken from this address; try again in "
                       f"{math.ceil(wait)} s (one every {1 / SEATING_RATE:g} s once as many as "
                       "the table has are taken)")))
            return
        name = seat_name(msg["name"])
        if not name:  # (a client asks for a name again before it sends one: this is a backstop)
            raise ProtocolError("malformed", "a player needs a name the others can read: "
                                "type one (letters, not only pictures or spaces)")
        name = unique_name(name, [s.name for s in self.facts.seats])
        seat = Seat(len(self.facts.seats), name, secrets.token_hex(8), bool(msg.get("bot")),
                    peer, key=sender.key, heard=now, seal=new_key())
        self.facts.seats.append(seat)
        self.record.keep_secret("keep_token", seat.token)  # beside the journal, never in it
        self.record.write("seat", seat=seat.index, name=seat.name, bot=seat.bot,
                          **({"key": seat.key} if seat.key else {}))  # a resume binds it again
        out.private.append((peer, self.welcome(msg["id"], seat)))
        self.probe(seat, now, out)
        self.publish_lobby(out)

    def rejoin(self, peer: bytes, msg: dict, now: float, out: Outbox,
               sender: Sender = NOBODY) -> None:
        """Back to a seat by its token — from the key that took it. No room code is asked:
        the token was only ever given to someone who had it. A seat restored from a journal
        has the key its ``seat`` record names; one from a journal without it (a plain table, an
        older journal) takes the first key that comes back with its token."""
        self.handed_over(msg["token"])  # a person's token of a seat handed to a bot (§24)
        # (removed seats too: their tokens are refused, §24)
        for seat in self.facts.seats + list(self.removed_tokens.values()):
            if secrets.compare_digest(seat.token.encode(), msg["token"].encode()):
                if seat.removed:
                    raise ProtocolError("removed", f"{seat.removed_by or 'the host'} removed "
                                        f"{seat.name} from the table, and the match goes on "
                                        "without that seat; watch it as a spectator "
                                        "(join --spectate)")
                # (said, so that nobody is sent back again)
                if self.kept(seat, now) == 0 or seat.status == "left":
                    raise ProtocolError("bad_token", f"the seat of {seat.name} was given up: "
                                        f"a seat is kept {TOKEN_LIFE / 60:g} minutes after its "
                                        "player leaves, and the match went on without it; "
                                        "watch it as a spectator (join --spectate)")
                if not same_key(seat, sender):
                    out.private.append((peer, wrong_key(msg["id"])))
                    return
                seat.key, seat.seal = seat.key or sender.key, seat.seal or new_key()
                # it gave any code once: it may watch
                self.passed.admit(sender.key, sender.address)
                seat.peer, seat.heard, seat.stepped_out = peer, now, False
                out.private.append((peer, self.welcome(msg["id"], seat)))
                self.presence(seat, "here", out)
                self.probe(seat, now, out)
                if self.facts.phase == "lobby":  # a resumed lobby may be full and ready again
                    self.flow.start_when_ready(now, out)
                return
        raise ProtocolError("bad_token", "that session token is unknown or has expired")

    def handed_over(self, token: str) -> None:
        """A person's token of a seat handed over to a bot (net/handover.py): refused
        ``removed``, saying who handed it over and the name the bot plays it on under."""
        for old, was in self.handed.items():
            if secrets.compare_digest(old.encode(), token.encode()):
                by = was.by_name[:1].upper() + was.by_name[1:]
                raise ProtocolError("removed", f"{by} handed the seat of {was.name} to a bot, "
                                    f"which plays it on as {was.new_name}; watch the match as a "
                                    "spectator (join --spectate)")

    def welcome(self, rid: int, seat: Seat | None) -> dict[str, Any]:
        """The answer to a hello: a seat's names it, the name it sits under (perhaps not the
        one asked for: cleaned, cut, made unique), its token and the key its private halves are
        sealed with (§23); a spectator's (``seat`` None) none of them, and the spectators' PUB
        (§11: a relay of the seats', on a context of its own — net/watchers_pub.py)."""
        pub = self.pub if seat is not None else self.watch_pub or self.pub
        return make("welcome", re=rid, seat=seat and seat.index,
                    token=seat.token if seat else "", pub=pub, game=self.facts.game.id,
                    config=self.facts.settings.public(), seal=seat and seat.seal,
                    name=seat and seat.name)

    def on_hb(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
              out: Outbox) -> None:
        if peer in self.spectators:
            self.spectators[peer] = now

    def on_ready(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        player = self.player(seat, peer)
        out.private.append((peer, make("ok", re=msg["id"])))
        if not player.ready:  # (ready again changes nothing: no record, no update — Bounds)
            player.ready = True
            self.record.write("ready", seat=player.index)
            if self.facts.phase in ("lobby", "between"):  # every screen shows who's ready (§5)
                self.publish_lobby(out)
        if self.facts.phase == "lobby":
            self.flow.start_when_ready(now, out)
        elif self.facts.phase == "between" and self.all_ready() and self.facts.paused is None:
            self.flow.countdown(now, out)  # (paused: tick starts it once resumed)

    def on_start(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        player = self.player(seat, peer)
        captain = self.captain()
        if player.index != captain:
            who = self.facts.seats[captain].name if captain is not None else "nobody yet"
            raise ProtocolError("not_host", f"only the captain ({who}) starts the match")
        if self.facts.phase != "lobby":
            raise ProtocolError("not_playing", "the match has already started")
        try:
            self.facts.game.check_players(len(self.facts.seats))
        except GameError as err:
            raise ProtocolError("not_playing", str(err)) from None
        out.private.append((peer, make("ok", re=msg["id"])))
        self.flow.start(now, out)

    def on_leave(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        self.spectators.pop(peer, None)
        if seat is not None and self.facts.phase in RUNNING:
            # The seat is kept, away, for TOKEN_LIFE: its token takes it back, cards and score
            # intact; meanwhile it is absent at once (RD-13 votes, stand-in turns).
            seat.peer, seat.away_since, seat.stepped_out = None, self.facts.standing(now), True
            if seat.index not in self.stepped_out:  # once a match: all a resume needs (Bounds)
                self.stepped_out.add(seat.index)
                self.record.write("leave", seat=seat.index, away=True)
            self.presence(seat, "away", out)
        elif seat is not None:
            self.gone(seat, now, out)
        out.private.append((peer, make("ok", re=msg["id"])))

    def gone(self, seat: Seat, now: float, out: Outbox) -> None:
        """The seat is left for good; in the lobby it is freed and those after it move up."""
        seat.peer = None
        seat.away_since = seat.away_since if seat.status == "away" else now
        self.record.write("leave", seat=seat.index)
        self.presence(seat, "left", out)
        if self.facts.phase == "lobby":
            self.facts.seats.remove(seat)
            for i, s in enumerate(self.facts.seats):
                if s.index != i and s.peer is not None:
                    s.index = i
                    out.private.append((s.peer, self.welcome(0, s)))
                s.index = i
            self.publish_lobby(out)

    def player(self, seat: Seat | None, peer: bytes | None = None) -> Seat:
        """The seat of a request only a player may make (a spectator, or nobody: refused)."""
        if seat is None:
            if peer is not None and peer in self.spectators:
                raise ProtocolError("spectator", "spectators watch; they cannot move")
            raise ProtocolError("not_joined", "say hello and take a seat first")
        return seat

    def all_ready(self) -> bool:
        present = [s for s in self.facts.seats if s.status == "here"]
        return bool(present) and all(s.ready for s in present)

    def absences(self, now: float, out: Outbox) -> None:
        for seat in list(self.facts.seats):
            if seat.told is not None:
                self.tell_presence(seat, now, out)
            if seat.status == "here" and now - seat.heard > AWAY_AFTER:
                seat.away_since = self.facts.standing(now)
                self.presence(seat, "away", out)
            elif self.kept(seat, now) == 0:
                self.gone(seat, now, out)  # its token no longer takes it back (paused: kept)
        for peer, heard in list(self.spectators.items()):
            if now - heard > TOKEN_LIFE:
                del self.spectators[peer]

    def kept(self, seat: Seat, now: float) -> float | None:
        """Seconds an away seat is still kept for its token (the clock stands while paused,
        §24); None for a seat that is not away. The one measure of a seat's five minutes: its
        token is refused, and the seat gone, at 0."""
        return kept(seat, self.facts.standing(now))

    def presence(self, seat: Seat, status: str, out: Outbox) -> None:
        """The seat is ``status`` now, and every screen is told — if that is news, and within
        the seat's presence brake (PRESENCE_RATE: Bounds); else :meth:`tell_presence` tells it
        later. A seat leaving for good, and any change in the lobby, is told at once."""
        shown = seat.told if seat.told is not None else seat.status
        seat.status = status
        if status == "here":
            seat.away_since = None
            if self.facts.encore_until is not None:
                self.facts.encore_back[seat.index] = seat.heard
        if status == shown:  # back to what the screens show (or nothing new): nothing to tell
            seat.told = None
        elif status == "left" or self.facts.phase == "lobby" or self._braked_in(seat):
            seat.told = None
            # An away seat is kept TOKEN_LIFE from now (§24: every screen counts it down).
            self.record.publish(out, "presence", seat=seat.index, status=status,
                                kept=TOKEN_LIFE if status == "away" else None)
        else:
            seat.told = shown
        if self.facts.phase == "lobby" and status != "left" and \
                self.captain() != self.captain_told:
            self.publish_lobby(out)  # the captaincy moved (a lobby leave publishes its own)

    def _braked_in(self, seat: Seat) -> bool:
        """Whether the seat's presence brake lets a change be told now (Bounds)."""
        brake = self.presence_brake
        return brake.admit(seat.index, self.facts.now) == brake.ADMIT

    def tell_presence(self, seat: Seat, now: float, out: Outbox) -> None:
        """A presence change the brake held back, told as it now stands (each tick)."""
        if seat.told != seat.status and \
                self.presence_brake.admit(seat.index, now) == self.presence_brake.ADMIT:
            seat.told = None
            self.record.publish(out, "presence", seat=seat.index, status=seat.status,
                                kept=self.kept(seat, now))

    def publish_lobby(self, out: Outbox) -> None:
        self.captain_told = self.captain()
        self.record.publish(out, "lobby", seats=[s.public() for s in self.facts.seats],
                            captain=self.captain_told)

    def captain(self) -> int | None:
        """The seat that starts the match: the first person seated (a hello without ``bot``)
        who is here — a captain whose laptop closed does not keep the others waiting for five
        minutes —, else the first person still at the table; with no person, the first seat;
        None with no seat."""
        people = [s for s in self.facts.seats if not s.bot and s.status != "left"]
        here = [s for s in people if s.status == "here"]
        if here or people:
            return (here or people)[0].index
        return 0 if self.facts.seats else None


def same_key(seat: Seat, sender: Sender) -> bool:
    """A seat taken with a CURVE key speaks only with that key (a routing id can be
    chosen by a client; a key cannot be used without its secret half)."""
    return seat.key is None or sender.key == seat.key


def wrong_key(rid: int | None) -> dict[str, Any]:
    return make("error", re=rid, code="wrong_key", reason="this seat was taken with "
                "another connection key; a session token alone does not give it")


def kept(seat: Seat, standing: float) -> float | None:
    """Seconds an away seat is still kept for its token, the table's clocks standing at
    ``standing`` (:meth:`Seats.kept`); None for a seat that is not away."""
    if seat.status != "away" or seat.away_since is None:
        return None
    return max(0.0, TOKEN_LIFE - (standing - seat.away_since))


def forget_strangers(seats: list[Seat], per_peer: dict[bytes, Any]) -> None:
    """Keep per-connection memory only for connections that hold a seat."""
    if len(per_peer) > 2 * len(seats) + 8:
        seated = {s.peer for s in seats}
        for peer in [p for p in per_peer if p not in seated]:
            del per_peer[peer]
