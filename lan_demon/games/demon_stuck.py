"""The Pack (RD-9, RG-5), the stuck table (RD-13) and the refusals once a round is over.

The table is stuck when everyone still in has voted or turned through their whole Pack since
the last card played anywhere, or when 60 seconds pass with no play (the table's own timeout
move); each time, every waste goes back under its Pack and the Pack's top card to its bottom.
Three rotations in a row with no play end the round with nobody out (RD-13); a Pile played out
ends it with OUT (RD-12), and nothing is played after either.
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.base import TABLE, IllegalMove
from lan_demon.games.demon_moves import CallOut, Timeout, TurnPack, VoteStuck
from lan_demon.games.demon_table import DemonState

MAX_ROTATIONS = 3  # RD-13
#: RD-13: seconds with no card played before the table's own timeout move (whoever keeps the
#: clock — the arbiter's table clock, the simulator, the auditor — counts this same minute).
STUCK_TIMEOUT = 60.0


def restarts_minute(events: list[dict[str, Any]]) -> bool:
    """RD-13: whether a move's events start the stuck minute again — a card played anywhere, or
    the Packs rotated. The one test the arbiter, the simulator and ``verify`` all use."""
    for event in events:  # a plain loop: this runs once per committed move, at every table
        kind = event.get("e")
        if kind == "play" or kind == "rotate":
            return True
    return False


def turn_pack(state: DemonState, seat: int, turn_size: int, german: bool) -> list[dict[str, Any]]:
    """RD-9 / RG-5: turn three (or one); an empty Pack first takes the waste back, unshuffled."""
    me = state.seats[seat]
    pack, waste = me.pack, me.waste
    if not pack and not waste:
        raise empty_pack(german)
    events: list[dict[str, Any]] = []
    if not pack:
        pack = me.pack = waste[::-1]
        waste = me.waste = []
        events.append({"e": "recycle", "seat": seat})
    k = turn_size if len(pack) >= turn_size else len(pack)
    chunk = pack[-k:]
    del pack[-k:]
    waste.extend(reversed(chunk))
    me.turned += k
    events.append({"e": "turn", "seat": seat, "n": k, "pack": len(pack), "waste": len(waste),
                   "private": {"waste_top": waste[-1].to_data()}})
    stuck = check_stuck(state)
    if stuck:
        events += stuck
    return events


def vote_stuck(state: DemonState, seat: int) -> list[dict[str, Any]]:
    """RD-13: "I'm stuck"; everyone still in stuck rotates the Packs."""
    me = state.seats[seat]
    if me.voted:
        raise voted_already()
    me.voted = True
    return [{"e": "stuck", "seat": seat}] + check_stuck(state)


def check_stuck(state: DemonState) -> list[dict[str, Any]]:
    """RD-13: stuck when everyone still in has voted or turned through their whole Pack."""
    for s in state.seats:
        if not s.out and not s.voted and not s.cycled():
            return []
    return rotate(state, "stuck")


def rotate(state: DemonState, why: str) -> list[dict[str, Any]]:
    """RD-13: waste back under the Pack, the Pack's top card to its bottom; after three in a
    row with no play the round ends with nobody out."""
    for s in state.seats:
        s.pack = s.waste[::-1] + s.pack
        s.waste = []
        if s.pack:
            s.pack.insert(0, s.pack.pop())
        s.voted = False
        s.turned = 0
    state.rotations += 1
    events: list[dict[str, Any]] = [{"e": "rotate", "why": why, "n": state.rotations}]
    if state.rotations >= MAX_ROTATIONS:
        state.over = True
        state.ended = "stuck"
        events.append({"e": "stuck_end"})
    return events


def empty_pack(german: bool = False) -> IllegalMove:
    """RD-9, or in the German variant RG-5 (its Pack rule, one card at a time)."""
    return IllegalMove("RG-5" if german else "RD-9", "your Pack and waste are both empty",
                       TurnPack())


def voted_already() -> IllegalMove:
    return IllegalMove("RD-13", "you have already voted stuck", VoteStuck())


def timeout(state: DemonState, seat: int) -> list[dict[str, Any]]:
    """RD-13: 60 seconds with no card played; the table's own move (seat TABLE)."""
    if seat != TABLE:
        raise IllegalMove("RD-13", "only the table calls the 60-second timeout", Timeout())
    if state.over:
        raise over_refusal(state, Timeout())
    return rotate(state, "timeout")


def over_refusal(state: DemonState, move: Any) -> IllegalMove:
    """Any move once the round is over: RD-13 when the table was stuck, RD-12 after OUT."""
    if state.ended == "stuck":
        return IllegalMove("RD-13", "the round is over: the table was stuck", move)
    who = ", ".join(f"seat {i}" for i, s in enumerate(state.seats) if s.out)
    return IllegalMove("RD-12", f"the round is over: {who} went out; nothing is played "
                       "after OUT", move)


def out_refusal(state: DemonState, seat: int) -> IllegalMove:
    """RD-12: a call of OUT by hand (the engine calls it itself when a Pile empties)."""
    if state.over:
        if state.seats[seat].out:
            return IllegalMove("RD-12", "you are already out; OUT counts once", CallOut())
        return over_refusal(state, CallOut())
    left = len(state.seats[seat].pile)
    return IllegalMove("RD-12", f"you still have {left} card{'s' * (left != 1)} in your Pile",
                       CallOut())
