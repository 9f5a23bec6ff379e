"""Modified hosts: the arbiter with one cheat each, each caught by the checks of PROTOCOL.md §22.

Each is a few lines over :class:`lan_demon.net.arbiter.Arbiter`, and every one could choose the
deal (seat 0 of such a host won 5–7 of 8–9 rounds against an honest 2 of 10). Which secret a real
cheat would pick — the one of a thousand tries whose deal suits seat 0 — does not matter to the
checks that must catch it, so these take :data:`CHOSEN`. :func:`dishonest` makes a running
table's arbiter one of them (before anyone sits: its thread calls nothing they change until the
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

from typing import Any

from lan_demon.net.arbiter import Arbiter
from lan_demon.net.codec import make
from lan_demon.net.fairdeal import HostDeal

CHOSEN = bytes(range(32))  # "the secret that suits seat 0"


class Dropping(Arbiter):
    def _countdown(self, now: float, out: Any) -> None:
        for seat in self.seats:
            seat.commit = None  # taken, answered ok and journaled — and left out
        super()._countdown(now, out)


class SeedFlipping(Arbiter):
    def _draw(self, round_no: int) -> HostDeal:
        return HostDeal(round_no, CHOSEN, seeded=True)


class Recommitting(Arbiter):
    announced_again = False

    def _deal(self, now: float, out: Any) -> None:
        deal = self.deal_round
        if self.announced_again or not deal.nonces:
            return super()._deal(now, out)
        self.announced_again = True  # the nonces are in: a new secret fitted to them
        again = HostDeal(deal.round, CHOSEN, False, deal.commits, deal.words, deal.nonces)
        self.deal_round, self.go_at = again, now + self.settings.countdown
        self.record("countdown", round=deal.round, **again.announced())
        self._publish(out, "countdown", round=deal.round, go=self.go_at, **again.announced())


class Evading(Arbiter):
    def _deal(self, now: float, out: Any) -> None:
        self._next_seq()  # the number every client now misses
        match, honest = self.match, type(self.match).deal

        def doctored(secret: Any = None, nonces: Any = None) -> Any:
            state = honest(match, secret, nonces)
            state.seats[0].pack.reverse()  # (face down: no screen sees it at Go)
            return state
        match.deal = doctored
        try:
            super()._deal(now, out)
        finally:
            del match.deal


class Hiding(Arbiter):
    """Deals seat :attr:`victim` a rack other than its promised one (Rack-O), publishes the
    promised deal's fingerprint, and drops that seat's dispute and failing check."""

    victim = 1

    def _deal(self, now: float, out: Any) -> None:
        match, deal, honest = self.match, self.deal_round, type(self.match).deal
        promised = honest(match, deal.secret, deal.nonces)
        real_fingerprint = deal.dealt_now

        def doctored(secret: Any = None, nonces: Any = None) -> Any:
            state = honest(match, secret, nonces)
            rack = state.racks[self.victim]
            rack[0], rack[-1] = rack[-1], rack[0]  # its lowest slot gets its highest card
            return state
        deal.dealt_now = lambda game, state: real_fingerprint(game, promised)
        match.deal = doctored
        try:
            super()._deal(now, out)
        finally:
            del match.deal

    def _on_dispute(self, peer: bytes, seat: Any, msg: dict, now: float, out: Any) -> None:
        if seat is not None and seat.index == self.victim:
            out.private.append((peer, make("ok", re=msg["id"])))  # "thank you" — and nothing
            return
        super()._on_dispute(peer, seat, msg, now, out)

    def _on_check(self, peer: bytes, seat: Any, msg: dict, now: float, out: Any) -> None:
        deal = self.deal_before if self.deal_before and \
            self.deal_before.round == msg["round"] else self.deal_round
        if seat is not None and seat.index == self.victim and deal is not None and \
                deal.check_word(seat.index, msg["word"]) == "fail":
            out.private.append((peer, make("ok", re=msg["id"])))
            return
        super()._on_check(peer, seat, msg, now, out)


class Forging(Arbiter):
    """Publishes a word of its own making as seat :attr:`victim`'s check."""

    victim = 1

    def _on_check(self, peer: bytes, seat: Any, msg: dict, now: float, out: Any) -> None:
        if seat is None or seat.index != self.victim:
            return super()._on_check(peer, seat, msg, now, out)
        fields = {"seat": seat.index, "round": msg["round"], "word": bytes(16).hex()}
        self.checks.setdefault(msg["round"], {})[seat.index] = fields
        self.record("check", **fields)
        self._publish(out, "check", **fields)
        out.private.append((peer, make("ok", re=msg["id"])))


def dishonest(server: Any, kind: type[Arbiter]) -> Any:
    """The table of ``server`` (started, nobody seated yet) run by ``kind`` from now on."""
    assert server.arbiter.phase == "lobby" and not server.arbiter.seats
    server.arbiter.__class__ = kind
    return server
