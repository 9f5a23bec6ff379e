"""A player's part in the fair deal (PROTOCOL.md §22): its nonce's commitment before the round,
the nonce revealed in the countdown, and a dispute when a deal does not match.

The host's side (its secret, the commitments fixed at the countdown) is
:class:`lan_demon.net.fairdeal.HostDeal`. Plain functions of the table's state, no sockets: each
takes the arbiter's core, ``arb`` (:class:`lan_demon.net.arbiter.Arbiter`), first.
"""

from __future__ import annotations

from lan_demon.net.codec import DISPUTE_CHARS, ProtocolError, make
from lan_demon.net.fairdeal import is_hash
from lan_demon.net.outbox import Outbox
from lan_demon.net.seats import Seat


def on_commit(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
              out: Outbox) -> None:
    """A player's nonce commitment for the next round to be dealt (§22) — in the lobby,
    during the round before it (so a table with no pause still takes it) or between
    rounds; a later one replaces it."""
    player = arb._player(seat, peer)
    upcoming = arb.match.round_no if arb.match is not None else 0
    if arb.phase == "playing":
        upcoming += 1
    if arb.phase not in ("lobby", "playing", "between") or msg["round"] != upcoming:
        raise ProtocolError("too_late", f"round {msg['round']}'s deal is already fixed; "
                            f"commit for the next round when it is announced")
    if not is_hash(msg["hash"]):
        raise ProtocolError("malformed", "a commitment is a SHA-256: 64 lowercase hex "
                            "digits")
    player.commit = (upcoming, msg["hash"])
    arb.record("commit", seat=player.index, round=upcoming, hash=msg["hash"])
    out.private.append((peer, make("ok", re=msg["id"])))


def on_reveal(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
              out: Outbox) -> None:
    """A player's nonce, after the host's commitment is out and before Go (§22)."""
    player = arb._player(seat, peer)
    deal = arb.deal_round
    if arb.phase != "countdown" or deal is None or msg["round"] != deal.round:
        raise ProtocolError("too_late", "nonces are revealed during the countdown; this "
                            "round is dealt without yours")
    problem = deal.reveal(player.index, msg["nonce"])
    if problem is not None:
        raise ProtocolError("bad_reveal", problem)
    arb.record("reveal", seat=player.index, round=deal.round, nonce=msg["nonce"])
    out.private.append((peer, make("ok", re=msg["id"])))


def on_dispute(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
               out: Outbox) -> None:
    """A client found a deal that does not match its commitment: every screen is told
    (once per seat and round), and the journal keeps it."""
    player = arb._player(seat, peer)
    key = (player.index, msg["round"])
    if key not in arb.disputes:
        arb.disputes.add(key)
        reason = msg["reason"][:DISPUTE_CHARS]
        arb.record("dispute", seat=player.index, round=msg["round"], reason=reason)
        arb._publish(out, "dispute", seat=player.index, round=msg["round"], reason=reason)
    out.private.append((peer, make("ok", re=msg["id"])))
