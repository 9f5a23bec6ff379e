"""The arbiter's seats: admission, the room code, session tokens, presence and the captaincy.

Who may sit down (a ``hello``: the room code gate, a free seat in the lobby, a unique name and
a fresh session token), who comes back (a token, from the CURVE key that took the seat), who is
here, away or gone (heartbeats heard, ``leave``), and who starts the match (the captain). Plain
functions of the table's state, no sockets: each takes the arbiter's core, ``arb``
(:class:`lan_demon.net.arbiter.Arbiter`), first; what they need of the other pieces (publish,
record, probe, start the match) they reach through it.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field
from typing import Any

from lan_demon.games import GameError
from lan_demon.net.codec import ProtocolError, make
from lan_demon.net.names import seat_name, unique_name
from lan_demon.net.outbox import Outbox
from lan_demon.net.seal import new_key
from lan_demon.net.security import codes_match

AWAY_AFTER = 3.0  # a seat silent this long (three beats) is marked away
#: The phases of a match in progress: a pause stops their clocks, a seat may be handed over
RUNNING = ("countdown", "playing", "between")
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


@dataclass(frozen=True)
class Sender:
    """What the socket layer knows of a frame's sender beyond its routing id: its CURVE public
    key (z85; None on a plain table) and its IP address (the room-code brake's key)."""

    key: str | None = None
    address: str | None = None


NOBODY = Sender()


@dataclass
class Seat:
    index: int
    name: str
    token: str
    bot: bool
    peer: bytes | None
    key: str | None = None  # the CURVE key that took the seat: only it may speak for the seat
    status: str = "here"  # here | away | left
    ready: bool = False
    heard: float = 0.0
    away_since: float | None = None
    # Said ``leave`` during the match: away at once for RD-13 votes and stand-in turns (a
    # silent seat is given the turn timeout first: it may be a network hiccup).
    stepped_out: bool = False
    rtts: list[float] = field(default_factory=list)
    # (round, nonce hash, ok word's hash, fail word's hash): its commitment (§22)
    commit: tuple[int, str, str, str] | None = None
    commits_made: int = 0  # different commitments taken for the next round (a Bound, §2)
    told: str | None = None  # the status last published, when a newer one waits (Bounds)
    # The key its private halves are sealed with in the updates (§23), told in its welcome:
    # this arbiter process's alone, never journaled (a resumed table's seats have none until
    # their holders come back by token, and their rejoin's welcome gives a new one).
    seal: bytes | None = None
    removed: bool = False  # by the host or the captain (net/evening.py): never taken back
    removed_by: str = ""  # who removed it, in words ("the host", "Ann")

    def one_way(self) -> float:
        """The measured one-way delay: half the best recent round trip (NTP style)."""
        return min(self.rtts) / 2 if self.rtts else 0.0

    def public(self) -> dict[str, Any]:
        mark = {"removed": True} if self.removed else {}
        return {"name": self.name, "bot": self.bot, "status": self.status, "ready": self.ready,
                **mark}


def seat_of(arb, peer: bytes) -> Seat | None:
    """The seat this connection holds, if any. Asked for every frame, so the answer is
    remembered by peer and trusted only while it still holds (the seat is still at its place
    in ``arb.seats`` and still on this connection): a seat moved up, taken back on another
    connection or gone is looked for again, among every seat."""
    seat = arb.peer_seats.get(peer)
    if seat is not None and seat.peer == peer and seat.index < len(arb.seats) and \
            arb.seats[seat.index] is seat:
        return seat
    for seat in arb.seats:
        if seat.peer == peer:
            if len(arb.peer_seats) > 4 * len(arb.seats) + 64:
                arb.peer_seats.clear()  # connections gone for good: nothing to keep
            arb.peer_seats[peer] = seat
            return seat
    return None


def on_hello(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
             out: Outbox, sender: Sender = NOBODY) -> None:
    role = msg["role"]
    if role not in ("player", "spectator"):
        raise ProtocolError("malformed", f"role is 'player' or 'spectator', not {role!r}")
    if role == "spectator":
        if peer not in arb.spectators and not code_passes(arb, peer, msg, now, out,
                                                                 sender):
            return
        arb.spectators[peer] = now
        out.private.append((peer, welcome(arb, msg["id"], None)))
        return
    if msg.get("token"):
        rejoin(arb, peer, msg, now, out, sender)
        return
    if seat is not None:  # the same connection saying hello again: same seat
        out.private.append((peer, welcome(arb, msg["id"], seat)))
        return
    if code_passes(arb, peer, msg, now, out, sender):
        take_seat(arb, peer, msg, now, out, sender)


def code_passes(arb, peer: bytes, msg: dict, now: float, out: Outbox,
                sender: Sender) -> bool:
    """The room code gate (PROTOCOL.md §20): True to let the hello in; otherwise the
    refusal is in ``out``. Wrong codes from one address cost it waiting
    (:class:`~lan_demon.net.security.CodeThrottle`); a hello with no code is no guess."""
    expected = arb.code
    if expected is None:
        return True
    where = sender.address or peer.hex()
    wait = arb.throttle.wait(where, now)
    if wait > 0:
        out.private.append((peer, make("error", re=msg["id"], code="slow_down", wait=wait,
                                       reason=f"too many wrong room codes; try again in "
                                              f"{wait:.0f} s")))
        return False
    given = msg.get("code")
    if codes_match(given, expected):
        arb.throttle.succeeded(where)
        arb.passed.admit(sender.key, sender.address)  # and may watch the PUB (§20)
        return True
    if given is None:
        reason = "this table needs the room code shown on the host's screen"
    else:
        arb.throttle.failed(where, now)
        reason = "wrong room code; it is shown on the host's screen"
    out.private.append((peer, make("error", re=msg["id"], code="bad_code", reason=reason)))
    return False


def seat_counts(arb) -> tuple[int, int]:
    """(taken, free) seats, as the LAN announcement says them: no seat is free once the
    match has started."""
    taken = len(arb.seats)
    limit = arb.settings.players or arb.game.max_players
    return taken, (max(0, limit - taken) if arb.phase == "lobby" else 0)


def take_seat(arb, peer: bytes, msg: dict, now: float, out: Outbox,
              sender: Sender = NOBODY) -> None:
    limit = arb.settings.players or arb.game.max_players
    if arb.phase != "lobby":
        raise ProtocolError("full", "the match has started: watch it as a spectator "
                            "(join --spectate); a player who left comes back within "
                            f"{TOKEN_LIFE / 60:g} minutes by running the same join again")
    if len(arb.seats) >= limit:
        raise ProtocolError("full", f"all {limit} seats are taken")
    where = sender.address or peer
    if arb.seatings.admit(where, now) != arb.seatings.ADMIT:
        wait = arb.seatings.wait(where, now)
        out.private.append((peer, make(
            "error", re=msg["id"], code="slow_down", wait=wait,
            reason=f"too many seats taken from this address; try again in {math.ceil(wait)} s "
                   f"(one every {1 / SEATING_RATE:g} s once as many as the table has are "
                   "taken)")))
        return
    name = seat_name(msg["name"])
    if not name:  # (a client asks for a name again before it sends one: this is a backstop)
        raise ProtocolError("malformed", "a player needs a name the others can read: "
                            "type one (letters, not only pictures or spaces)")
    name = unique_name(name, [s.name for s in arb.seats])
    seat = Seat(len(arb.seats), name, secrets.token_hex(8), bool(msg.get("bot")), peer,
                key=sender.key, heard=now, seal=new_key())
    arb.seats.append(seat)
    arb.keep_secret("keep_token", seat.token)  # beside the journal, never in it
    arb.record("seat", seat=seat.index, name=seat.name, bot=seat.bot,
               **({"key": seat.key} if seat.key else {}))  # a resume binds it again
    out.private.append((peer, welcome(arb, msg["id"], seat)))
    arb._probe(seat, now, out)
    publish_lobby(arb, out)


def rejoin(arb, peer: bytes, msg: dict, now: float, out: Outbox,
           sender: Sender = NOBODY) -> None:
    """Back to a seat by its token — from the key that took it. No room code is asked:
    the token was only ever given to someone who had it. A seat restored from a journal
    has the key its ``seat`` record names; one from a journal without it (a plain table, an
    older journal) takes the first key that comes back with its token."""
    handed_over(arb, msg["token"])  # a person's token of a seat handed to a bot (§24)
    for seat in arb.seats + list(arb.removed_tokens.values()):  # (removed: refused, §24)
        if secrets.compare_digest(seat.token.encode(), msg["token"].encode()):
            if seat.removed:
                raise ProtocolError("removed", f"{seat.removed_by or 'the host'} removed "
                                    f"{seat.name} from the table, and the match goes on "
                                    "without that seat; watch it as a spectator "
                                    "(join --spectate)")
            if kept(arb, seat, now) == 0 or seat.status == "left":  # (said, so that nobody is sent back again)
                raise ProtocolError("bad_token", f"the seat of {seat.name} was given up: "
                                    f"a seat is kept {TOKEN_LIFE / 60:g} minutes after its "
                                    "player leaves, and the match went on without it; "
                                    "watch it as a spectator (join --spectate)")
            if not same_key(seat, sender):
                out.private.append((peer, wrong_key(msg["id"])))
                return
            seat.key, seat.seal = seat.key or sender.key, seat.seal or new_key()
            arb.passed.admit(sender.key, sender.address)  # it gave any code once: it may watch
            seat.peer, seat.heard, seat.stepped_out = peer, now, False
            out.private.append((peer, welcome(arb, msg["id"], seat)))
            presence(arb, seat, "here", out)
            arb._probe(seat, now, out)
            if arb.phase == "lobby":  # a resumed lobby may be full and ready again
                arb._start_when_ready(now, out)
            return
    raise ProtocolError("bad_token", "that session token is unknown or has expired")


def handed_over(arb, token: str) -> None:
    """A person's token of a seat handed over to a bot (net/handover.py): refused ``removed``,
    saying who handed it over and the name the bot plays it on under."""
    for old, was in arb.handed.items():
        if secrets.compare_digest(old.encode(), token.encode()):
            by = was.by_name[:1].upper() + was.by_name[1:]
            raise ProtocolError("removed", f"{by} handed the seat of {was.name} to a bot, "
                                f"which plays it on as {was.new_name}; watch the match as a "
                                "spectator (join --spectate)")


def public_config(arb) -> dict[str, Any]:
    """The table's settings as every client is told them (PROTOCOL.md §4.4)."""
    return arb.settings.public()


def welcome(arb, rid: int, seat: Seat | None) -> dict[str, Any]:
    """The answer to a hello: a seat's names it, the name it sits under (perhaps not the one
    asked for: cleaned, cut, made unique), its token and the key its private halves are
    sealed with (§23); a spectator's (``seat`` None) none of them, and the spectators' PUB
    (§11: a relay of the seats', on a context of its own — net/watchers_pub.py)."""
    pub = arb.pub if seat is not None else arb.watch_pub or arb.pub
    return make("welcome", re=rid, seat=seat and seat.index, token=seat.token if seat else "",
                pub=pub, game=arb.game.id, config=public_config(arb),
                seal=seat and seat.seal, name=seat and seat.name)


def same_key(seat: Seat, sender: Sender) -> bool:
    """A seat taken with a CURVE key speaks only with that key (a routing id can be
    chosen by a client; a key cannot be used without its secret half)."""
    return seat.key is None or sender.key == seat.key


def wrong_key(rid: int | None) -> dict[str, Any]:
    return make("error", re=rid, code="wrong_key", reason="this seat was taken with "
                "another connection key; a session token alone does not give it")


def on_hb(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
          out: Outbox) -> None:
    if peer in arb.spectators:
        arb.spectators[peer] = now


def on_ready(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
             out: Outbox) -> None:
    player = player_seat(arb, seat, peer)
    out.private.append((peer, make("ok", re=msg["id"])))
    if not player.ready:  # (ready again changes nothing: no record, no update — Bounds)
        player.ready = True
        arb.record("ready", seat=player.index)
        if arb.phase in ("lobby", "between"):  # every screen shows who is ready (§5)
            publish_lobby(arb, out)
    if arb.phase == "lobby":
        arb._start_when_ready(now, out)
    elif arb.phase == "between" and all_ready(arb) and arb.paused is None:
        arb._countdown(now, out)  # (paused: tick starts it once resumed)


def on_start(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
             out: Outbox) -> None:
    player = player_seat(arb, seat, peer)
    captain = arb.captain()
    if player.index != captain:
        who = arb.seats[captain].name if captain is not None else "nobody yet"
        raise ProtocolError("not_host", f"only the captain ({who}) starts the match")
    if arb.phase != "lobby":
        raise ProtocolError("not_playing", "the match has already started")
    try:
        arb.game.check_players(len(arb.seats))
    except GameError as err:
        raise ProtocolError("not_playing", str(err)) from None
    out.private.append((peer, make("ok", re=msg["id"])))
    arb._start(now, out)


def on_leave(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
             out: Outbox) -> None:
    arb.spectators.pop(peer, None)
    if seat is not None and arb.phase in RUNNING:
        # The seat is kept, away, for TOKEN_LIFE: its token takes it back, cards and score
        # intact; meanwhile it is absent at once (RD-13 votes, stand-in turns).
        seat.peer, seat.away_since, seat.stepped_out = None, standing(arb, now), True
        if seat.index not in arb.stepped_out:  # once a match: all a resume needs (Bounds)
            arb.stepped_out.add(seat.index)
            arb.record("leave", seat=seat.index, away=True)
        presence(arb, seat, "away", out)
    elif seat is not None:
        gone(arb, seat, now, out)
    out.private.append((peer, make("ok", re=msg["id"])))


def gone(arb, seat: Seat, now: float, out: Outbox) -> None:
    """The seat is left for good; in the lobby it is freed and those after it move up."""
    seat.peer = None
    seat.away_since = seat.away_since if seat.status == "away" else now
    arb.record("leave", seat=seat.index)
    presence(arb, seat, "left", out)
    if arb.phase == "lobby":
        arb.seats.remove(seat)
        for i, s in enumerate(arb.seats):
            if s.index != i and s.peer is not None:
                s.index = i
                out.private.append((s.peer, welcome(arb, 0, s)))
            s.index = i
        publish_lobby(arb, out)


def player_seat(arb, seat: Seat | None, peer: bytes | None = None) -> Seat:
    if seat is None:
        if peer is not None and peer in arb.spectators:
            raise ProtocolError("spectator", "spectators watch; they cannot move")
        raise ProtocolError("not_joined", "say hello and take a seat first")
    return seat


def all_ready(arb) -> bool:
    present = [s for s in arb.seats if s.status == "here"]
    return bool(present) and all(s.ready for s in present)


def absences(arb, now: float, out: Outbox) -> None:
    for seat in list(arb.seats):
        if seat.told is not None:
            tell_presence(arb, seat, now, out)
        if seat.status == "here" and now - seat.heard > AWAY_AFTER:
            seat.away_since = standing(arb, now)
            presence(arb, seat, "away", out)
        elif kept(arb, seat, now) == 0:
            gone(arb, seat, now, out)  # its token no longer takes it back (paused: kept)
    for peer, heard in list(arb.spectators.items()):
        if now - heard > TOKEN_LIFE:
            del arb.spectators[peer]


def kept(arb, seat: Seat, now: float) -> float | None:
    """Seconds an away seat is still kept for its token (the clock stands while paused, §24);
    None for a seat that is not away. The one measure of a seat's five minutes: its token is
    refused, and the seat gone, at 0."""
    if seat.status != "away" or seat.away_since is None:
        return None
    return max(0.0, TOKEN_LIFE - (standing(arb, now) - seat.away_since))


def standing(arb, now: float) -> float:
    """The time on the table's clocks: ``now``, or while paused the moment it stopped
    (net/evening.py: a resume moves every clock on by the pause, so a seat that went away
    during it starts its five minutes at the resume)."""
    return arb.paused.since if arb.paused is not None else now


def presence(arb, seat: Seat, status: str, out: Outbox) -> None:
    """The seat is ``status`` now, and every screen is told — if that is news, and within
    the seat's presence brake (PRESENCE_RATE: Bounds); else :func:`tell_presence` tells it
    later. A seat leaving for good, and any change in the lobby, is told at once."""
    shown = seat.told if seat.told is not None else seat.status
    seat.status = status
    if status == "here":
        seat.away_since = None
        if arb.encore_until is not None:
            arb.encore_back[seat.index] = seat.heard
    if status == shown:  # back to what the screens show (or nothing new): nothing to tell
        seat.told = None
    elif status == "left" or arb.phase == "lobby" or \
            arb.presence_brake.admit(seat.index, arb.now) == arb.presence_brake.ADMIT:
        seat.told = None
        # An away seat is kept TOKEN_LIFE from now (§24: every screen counts it down).
        arb._publish(out, "presence", seat=seat.index, status=status,
                     kept=TOKEN_LIFE if status == "away" else None)
    else:
        seat.told = shown
    if arb.phase == "lobby" and status != "left" and captain(arb) != arb._captain_told:
        publish_lobby(arb, out)  # the captaincy moved (a lobby leave publishes its own)


def tell_presence(arb, seat: Seat, now: float, out: Outbox) -> None:
    """A presence change the brake held back, told as it now stands (absences: each tick)."""
    if seat.told != seat.status and \
            arb.presence_brake.admit(seat.index, now) == arb.presence_brake.ADMIT:
        seat.told = None
        arb._publish(out, "presence", seat=seat.index, status=seat.status,
                     kept=kept(arb, seat, now))


def publish_lobby(arb, out: Outbox) -> None:
    arb._captain_told = captain(arb)
    arb._publish(out, "lobby", seats=[s.public() for s in arb.seats],
                 captain=arb._captain_told)


def captain(arb) -> int | None:
    """The seat that starts the match: the first person seated (a hello without ``bot``)
    who is here — a captain whose laptop closed does not keep the others waiting for five
    minutes —, else the first person still at the table; with no person, the first seat;
    None with no seat."""
    people = [s for s in arb.seats if not s.bot and s.status != "left"]
    here = [s for s in people if s.status == "here"]
    if here or people:
        return (here or people)[0].index
    return 0 if arb.seats else None


def forget_strangers(arb, per_peer: dict[bytes, Any]) -> None:
    """Keep per-connection memory only for connections that hold a seat."""
    if len(per_peer) > 2 * len(arb.seats) + 8:
        seated = {s.peer for s in arb.seats}
        for peer in [p for p in per_peer if p not in seated]:
            del per_peer[peer]
