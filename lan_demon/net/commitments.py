"""A player's part in the fair deal (PROTOCOL.md §22): its nonce's commitment (with its two
check words') before the round, the nonce revealed in the countdown, a dispute when a deal
does not match, and its check of each round after it.

The host's side (its secret, the commitments fixed at the countdown) is
:class:`lan_demon.net.fairdeal.HostDeal`. Plain functions of the table's state, no sockets: each
takes the arbiter's core, ``arb`` (:class:`lan_demon.net.arbiter.Arbiter`), first.
"""

from __future__ import annotations

from typing import Any

from lan_demon.net.codec import DISPUTE_CHARS, ProtocolError, make
from lan_demon.net.fairdeal import HostDeal, is_hash, is_word
from lan_demon.net.outbox import Outbox
from lan_demon.net.seats import Seat

CHECKS_KEPT = 2  # rounds whose published checks a snapshot repeats (they are owed a round)
#: Different commitments one seat may make for one round (PROTOCOL.md §2, Bounds): each is
#: journaled, so a seat that sends a new one in every frame would fill the disk. An honest
#: program sends one, and again only when it was run anew; past this: ``too_many``.
COMMITS_PER_ROUND = 8


def on_commit(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
              out: Outbox) -> None:
    """A player's nonce commitment for the next round to be dealt (§22) — in the lobby,
    during the round before it (so a table with no pause still takes it) or between
    rounds; a later one replaces it. Journaled when taken, so that ``verify`` finds a
    countdown that leaves it out."""
    player = arb._player(seat, peer)
    upcoming = arb.match.round_no if arb.match is not None else 0
    if arb.phase == "playing":
        upcoming += 1
    if arb.phase not in ("lobby", "playing", "between") or msg["round"] != upcoming:
        raise ProtocolError("too_late", f"round {msg['round']}'s deal is already fixed; "
                            f"commit for the next round when it is announced")
    if not all(is_hash(msg[k]) for k in ("hash", "ok", "fail")):
        raise ProtocolError("malformed", "a commitment and each check word's hash is a "
                            "SHA-256: 64 lowercase hex digits")
    if msg["ok"] == msg["fail"]:
        raise ProtocolError("malformed", "the two check words must differ")
    commit = (upcoming, msg["hash"], msg["ok"], msg["fail"])
    if commit == player.commit:  # sent again (a resend after rate_limited): nothing new
        out.private.append((peer, make("ok", re=msg["id"])))
        return
    if player.commits_made >= COMMITS_PER_ROUND:
        raise ProtocolError("too_many", f"{COMMITS_PER_ROUND} commitments for round "
                            f"{upcoming + 1} were taken from this seat already; the last "
                            "one stands")
    player.commit, player.commits_made = commit, player.commits_made + 1
    arb.record("commit", seat=player.index, round=upcoming, hash=msg["hash"], ok=msg["ok"],
               fail=msg["fail"])
    out.private.append((peer, make("ok", re=msg["id"])))


def fix(arb, deal: HostDeal) -> None:
    """The countdown of ``deal``'s round: the commitments taken for it are listed, and every
    seat's is used up (a commitment is for one round)."""
    deal.fix({s.index: s.commit[1:] for s in arb.seats
              if s.commit is not None and s.commit[0] == deal.round})
    for s in arb.seats:
        s.commit, s.commits_made = None, 0


def on_reveal(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
              out: Outbox) -> None:
    """A player's nonce, after the host's commitment is out and before Go (§22)."""
    player = arb._player(seat, peer)
    deal = arb.deal_round
    if arb.phase != "countdown" or deal is None or msg["round"] != deal.round:
        raise ProtocolError("too_late", "nonces are revealed during the countdown; this "
                            "round is dealt without yours")
    again = player.index in deal.nonces  # (only its own nonce matches its commitment)
    problem = deal.reveal(player.index, msg["nonce"])
    if problem is not None:
        raise ProtocolError("bad_reveal", problem)
    if not again:  # the same nonce once more is answered ok, and journaled once (Bounds)
        arb.record("reveal", seat=player.index, round=deal.round, nonce=msg["nonce"])
    out.private.append((peer, make("ok", re=msg["id"])))


def announced(arb, round_no: int) -> bool:
    """Whether ``round_no``'s countdown has been published: a dispute is about a real deal."""
    if arb.match is None:
        return False
    current = arb.match.round_no
    return 0 <= round_no < current or (round_no == current and arb.phase in ("countdown",
                                                                       "playing"))


def on_dispute(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
               out: Outbox) -> None:
    """A client found a deal that does not match its commitment: every screen is told
    (once per seat and round), and the journal keeps it. A round never announced has no
    deal to dispute (nor has a negative one: issue 30 found every one of them published):
    refused, so no seat can put a warning on every screen for nothing. A dispute repeated is
    answered ``ok`` again, with no new record or update: one per seat and round played."""
    player = arb._player(seat, peer)
    if not announced(arb, msg["round"]):
        raise ProtocolError("wrong_round", f"round {msg['round'] + 1} has not been announced: "
                            "a dispute is about a deal the host promised")
    key = (player.index, msg["round"])
    if key not in arb.disputes:
        arb.disputes.add(key)
        reason = msg["reason"][:DISPUTE_CHARS]
        arb.record("dispute", seat=player.index, round=msg["round"], reason=reason)
        arb._publish(out, "dispute", seat=player.index, round=msg["round"], reason=reason)
    out.private.append((peer, make("ok", re=msg["id"])))


def on_check(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
             out: Outbox) -> None:
    """A seat's verdict on a finished round: one of the two words it promised with its
    commitment ("ok" or "fail"), published once per seat and round for every client to
    judge (§22.6). A word that is neither is refused, so no seat can make the host look as
    if it altered one — unless this arbiter no longer knows the round's words (resumed from
    its journal), when it is published as sent and every client judges it (a seat the
    round's countdown listed no words for is ignored by every client)."""
    player = arb._player(seat, peer)
    round_no = msg["round"]
    if arb.match is None or not 0 <= round_no < arb.match.round_no:
        raise ProtocolError("wrong_round", f"round {round_no + 1} has not ended: a check is "
                            "sent once its secret is revealed")
    lost = msg.get("lost") is True
    if lost == ("word" in msg and msg["word"] is not None):
        raise ProtocolError("malformed", "a check is one of the seat's words, or lost: true "
                            "(this program holds no promise for the round), never both")
    if lost:
        _publish_check(arb, out, {"seat": player.index, "round": round_no, "lost": True})
        out.private.append((peer, make("ok", re=msg["id"])))
        return
    if not is_word(msg["word"]):
        raise ProtocolError("malformed", "a check word is 16 bytes: 32 lowercase hex digits")
    deal = next((d for d in (arb.deal_round, getattr(arb, "deal_before", None))
                 if d is not None and d.round == round_no), None)
    if deal is not None and deal.words and deal.check_word(player.index, msg["word"]) is None:
        raise ProtocolError("bad_reveal", "that is neither check word your program promised "
                            "for this round (or it promised none)")
    fields: dict[str, Any] = {"seat": player.index, "round": round_no, "word": msg["word"]}
    if msg.get("reason"):
        fields["reason"] = msg["reason"][:DISPUTE_CHARS]
    _publish_check(arb, out, fields)
    out.private.append((peer, make("ok", re=msg["id"])))


def _publish_check(arb, out: Outbox, fields: dict[str, Any]) -> None:
    """A seat's check, published once per seat and round (and journaled), for every client
    to judge; a snapshot repeats the last rounds' ones. ``arb.checked`` remembers every
    (seat, round) published, so a check of a round past the snapshot's is not published
    again (issue 30: every repeat of one was)."""
    key = (fields["seat"], fields["round"])
    if key not in arb.checked:
        arb.checked.add(key)
        arb.checks.setdefault(fields["round"], {})[fields["seat"]] = fields
        for old in [r for r in arb.checks if r < arb.match.round_no - CHECKS_KEPT]:
            del arb.checks[old]
        arb.record("check", **fields)
        arb._publish(out, "check", **fields)


def checks_now(arb) -> list[dict[str, Any]]:
    """The checks published for the last rounds, as a snapshot repeats them."""
    return [fields for round_no in sorted(arb.checks)
            for _, fields in sorted(arb.checks[round_no].items())]
