"""Modified hosts: the arbiter with one cheat each, each caught by the checks of PROTOCOL.md §22.

Each is a few lines over one of the arbiter's rooms (the match's flow,
:class:`~lan_demon.net.match_flow.MatchFlow`, or the fair deal's,
:class:`~lan_demon.net.commitments.Commitments`), and every one could choose the deal (seat 0 of
such a host won 5–7 of 8–9 rounds against an honest 2 of 10). Which secret a real
cheat would pick — the one of a thousand tries whose deal suits seat 0 — does not matter to the
checks that must catch it, so these take :data:`CHOSEN`. :func:`dishonest` makes a running
table's arbiter run with them (before anyone sits: its thread calls nothing they change until the
match starts).

* :class:`Dropping` — *drop*: the countdown lists no player's commitment, though the host took
  (``ok``) every one: its own secret, chosen before it committed, is the whole deal;
* :class:`SeedFlipping` — *seeded flip*: at a table whose welcome said "not seeded" the
  countdown says ``seeded: true``, whose deal takes nobody's nonce;
* :class:`Recommitting` — *recommit*: after the nonces are revealed the host announces the
  round again under a new secret, fitted to them;
* :class:`Evading` — *evade*: Go skips one update number, so every client resyncs and never
  sees Go's own update — and the deal is not the promised one (seat 0's Pack reordered);
* :class:`Hiding` — a host that deals one seat other cards than its promised deal gives
  (the fingerprint it publishes is the promised deal's, so only that seat can tell) and hides
  that seat's dispute and its failing check from everyone else;
* :class:`Forging` — a host that publishes a check of its own making in one seat's name
  instead of the one the seat sent (an "ok" it wishes the seat had said).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

from lan_demon.net.codec import make
from lan_demon.net.commitments import Commitments
from lan_demon.net.fairdeal import HostDeal
from lan_demon.net.match_flow import MatchFlow

CHOSEN = bytes(range(32))  # "the secret that suits seat 0"


class Dropping(MatchFlow):
    def countdown(self, now: float, out: Any) -> None:
        for seat in self.facts.seats:
            seat.commit = None  # taken, answered ok and journaled — and left out
        super().countdown(now, out)


class SeedFlipping(MatchFlow):
    def draw(self, round_no: int) -> HostDeal:
        return HostDeal(round_no, CHOSEN, seeded=True)


class Recommitting(MatchFlow):
    announced_again = False

    def deal(self, now: float, out: Any) -> None:
        deal = self.commitments.deal_round
        if self.announced_again or not deal.nonces:
            return super().deal(now, out)
        self.announced_again = True  # the nonces are in: a new secret fitted to them
        again = HostDeal(deal.round, CHOSEN, False, deal.commits, deal.words, deal.nonces)
        self.commitments.deal_round, self.facts.go_at = again, now + self.facts.settings.countdown
        self.record.write("countdown", round=deal.round, **again.announced())
        self.record.publish(out, "countdown", round=deal.round, go=self.facts.go_at,
                            **again.announced())


@contextmanager
def doctored(match: Any, change: Callable[[Any], None]) -> Iterator[None]:
    """Meanwhile ``match`` deals each round as it honestly would, then ``change``s the state."""
    honest = type(match).deal

    def deal(secret: Any = None, nonces: Any = None) -> Any:
        state = honest(match, secret, nonces)
        change(state)
        return state
    match.deal = deal
    try:
        yield
    finally:
        del match.deal


class Evading(MatchFlow):
    def deal(self, now: float, out: Any) -> None:
        self.record.next_seq()  # the number every client now misses

        def reordered(state: Any) -> None:
            state.seats[0].pack.reverse()  # (face down: no screen sees it at Go)
        with doctored(self.facts.match, reordered):
            super().deal(now, out)


class HidingDeal(MatchFlow):
    """Deals seat :attr:`victim` a rack other than its promised one (Rack-O), and publishes
    the promised deal's fingerprint."""

    victim = 1

    def deal(self, now: float, out: Any) -> None:
        match, deal = self.facts.match, self.commitments.deal_round
        promised = type(match).deal(match, deal.secret, deal.nonces)
        real_fingerprint = deal.dealt_now

        def swapped(state: Any) -> None:
            rack = state.racks[self.victim]
            rack[0], rack[-1] = rack[-1], rack[0]  # its lowest slot gets its highest card
        deal.dealt_now = lambda game, state: real_fingerprint(game, promised)
        with doctored(match, swapped):
            super().deal(now, out)


class HidingWords(Commitments):
    """Drops seat :attr:`victim`'s dispute and failing check."""

    victim = 1

    def on_dispute(self, peer: bytes, seat: Any, msg: dict, now: float, out: Any) -> None:
        if seat is not None and seat.index == self.victim:
            out.private.append((peer, make("ok", re=msg["id"])))  # "thank you" — and nothing
            return
        super().on_dispute(peer, seat, msg, now, out)

    def on_check(self, peer: bytes, seat: Any, msg: dict, now: float, out: Any) -> None:
        deal = self.deal_before if self.deal_before and \
            self.deal_before.round == msg["round"] else self.deal_round
        if seat is not None and seat.index == self.victim and deal is not None and \
                deal.check_word(seat.index, msg["word"]) == "fail":
            out.private.append((peer, make("ok", re=msg["id"])))
            return
        super().on_check(peer, seat, msg, now, out)


#: A host that deals one seat other cards than its promised deal gives and hides that seat's
#: dispute and failing check from everyone else.
Hiding = (HidingDeal, HidingWords)


class Forging(Commitments):
    """Publishes a word of its own making as seat :attr:`victim`'s check."""

    victim = 1

    def on_check(self, peer: bytes, seat: Any, msg: dict, now: float, out: Any) -> None:
        if seat is None or seat.index != self.victim:
            return super().on_check(peer, seat, msg, now, out)
        fields = {"seat": seat.index, "round": msg["round"], "word": bytes(16).hex()}
        self.checks.setdefault(msg["round"], {})[seat.index] = fields
        self.record.write("check", **fields)
        self.record.publish(out, "check", **fields)
        out.private.append((peer, make("ok", re=msg["id"])))


def dishonest(server: Any, kinds: type | tuple[type, ...]) -> Any:
    """The table of ``server`` (started, nobody seated yet) run with the cheating room(s)
    ``kinds`` from now on: each room of the arbiter that one of them derives from becomes it,
    and the messages it handles go to its cheating handlers."""
    arbiter = server.arbiter
    assert arbiter.phase == "lobby" and not arbiter.seats
    for kind in kinds if isinstance(kinds, tuple) else (kinds,):
        room = next(r for r in (arbiter.flow, arbiter.commitments) if isinstance(r, kind.__base__))
        room.__class__ = kind
        for message, handler in list(arbiter.handlers.items()):
            if getattr(handler, "__self__", None) is room:
                arbiter.handlers[message] = getattr(room, handler.__name__)
    return server
