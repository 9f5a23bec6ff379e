"""A Racing Demon seat (both variants): where each card may go, best first, and why not.

One intent plays fast: :meth:`DemonSeat.play_from` names a source — ``c1``–``c4`` the columns,
``pile`` the Pile top, ``waste`` the waste top — and the card goes to the best legal place the
local engine offers (a stack first, else a column), or to the place given. A card with no
place is refused in words with the rule of the game being played: a lost race (RD-11) when the
card fitted a stack as the seat last saw it. A stack is named by its top card ("the 4♥
stack"), so a message always names something the player can see.

The coach (``coach(game, seat, names, start)``, :class:`lan_demon.coach.demon.DemonCoach`,
handed in by the command) is shown every view this seat is shown and told every race it lost;
its :attr:`DemonSeat.review` is what the round-end screens show under the scores.
"""

from __future__ import annotations

from typing import Any

from lan_demon.games import demon_stacks
from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import COLUMN_NAMES, Play, TurnPack, VoteStuck
from lan_demon.seat import events as ev
from lan_demon.seat.outcomes import Refusal
from lan_demon.seat.words import (SeenTops, code_card, king_words, race_text, rank_name,
                                  with_article)

#: A seat that first shows a round this long after Go came in late (a rejoin): its review
#: says from when it speaks, so nobody reads "nothing missed" as a whole round's verdict.
LATE = 3.0
SOURCES = ("pile", "waste", "c1", "c2", "c3", "c4")
#: Seconds a refusal or a lost race stays unspoken over by another seat's King (RD-6).
KEEP_READING = 4.0


def rank_target(move: Play, column_size: int) -> int:
    """Where a card is best played: a stack, then a whole column moved (a Pile card refills
    it), then any other column; a partial run last."""
    if not move.target.startswith("c"):
        return 0
    if move.source.startswith("c"):
        return 1 if move.count == column_size else 3
    return 2


class DemonSeat:
    """The Racing Demon half of a :class:`~lan_demon.seat.seat.Seat`."""

    def __init__(self, coach: Any = None) -> None:
        self.make_coach = coach
        self.seat: Any = None  # the Seat, once bound
        self.seen = SeenTops()  # the stacks' tops as last seen, for races (RD-11)
        self.review: Any = None  # this round's review, as this seat saw it
        self.voted_here = False  # this seat said "stuck" since the votes were cleared
        self.voted_at: int | None = None  # the cards played at the table when it did
        self.kings_seen: int | None = None  # Kings claimed this round as last seen (RD-6)

    def bind(self, seat: Any) -> None:
        self.seat = seat

    def reset(self) -> None:
        self.seen = SeenTops()
        self.review = None
        self.voted_here = False
        self.kings_seen = 0  # a new round: every King from Go on is news

    @property
    def german(self) -> bool:
        game = self.seat.client.game
        return game is not None and game.id == "racing-demon-german"

    def me(self) -> dict[str, Any] | None:
        """This seat's own part of the view, or None (a spectator, no round)."""
        view = self.seat.client.view()
        seat = self.seat.client.seat
        return view["players"][seat] if view and seat is not None else None

    # --- what the seat sees -----------------------------------------------------------------

    def watch(self) -> list[ev.Event]:
        """After a pump: the tops seen (races), the coach shown the view, a stuck vote that a
        card cleared (RD-13)."""
        seat = self.seat
        view = seat.client.view()
        if view is None:
            return []
        self.seen.draw({st["id"]: st["top"] for st in view["stacks"]}, seat.clock())
        self._coach_sees(view)
        me = self.me()
        out: list[ev.Event] = self._kings()
        if me is None:
            return out
        if self.voted_here and not me["voted"] and _plays(seat) != self.voted_at:
            # a card played anywhere clears every vote (a rotation too, but it is announced)
            again = seat.how("s", "vote stuck")
            line = seat.say(f"a card was played, so your stuck vote is cleared — {again} "
                            "again if still stuck", rule="RD-13", read=True)
            out.append(ev.VoteCleared(line.words, "RD-13"))
        self.voted_here = self.voted_here and me["voted"]  # a rotation clears every vote
        return out

    def _kings(self) -> list[ev.Event]:
        """Kings claimed since the last look (RD-6), announced: "Ann took the ♥ King: +6".
        The table's copy claims them as it replays the moves, in order; a screen that comes
        in mid-round announces only the Kings claimed from then on."""
        mirror = getattr(self.seat.client, "mirror", None)
        claimed = getattr(mirror, "claimed", None)
        if not isinstance(claimed, dict):
            return []
        seen, self.kings_seen = self.kings_seen, len(claimed)
        if seen is None or len(claimed) <= seen:
            return []
        out: list[ev.Event] = []
        kings = getattr(mirror, "kings_cards", [])
        for i, who in enumerate(list(claimed.values())[seen:], start=seen):
            king = kings[i][-1] if i < len(kings) and kings[i] else None
            if king is None or king.rank != 13:
                continue
            mine = who == self.seat.client.seat
            words, rule = king_words(self.seat.name(who), mine, king,
                                     self.german)
            if mine or not self._reading():
                self.seat.say(words, rule=rule)
            out.append(ev.KingClaimed(words, rule, who, king.to_data()))
        return out

    def _reading(self) -> bool:
        """This seat is reading why its own card did not go (a refusal, a lost race, said
        under :data:`KEEP_READING` seconds ago): another's King is not said over it — at a
        table of twenty, Kings come every few seconds."""
        line = self.seat.line
        return line is not None and line.kind in ("refusal", "race") and \
            self.seat.clock() - self.seat.said_at < KEEP_READING

    def _coach_sees(self, view: dict[str, Any]) -> None:
        """Show this round's review (made now if there is none yet) the view just seen."""
        seat = self.seat
        if self.make_coach is None or seat.spectator or seat.phase != "playing":
            return
        now = seat.client.arbiter_now()
        if self.review is None:
            go = seat.client.table.get("go")
            start = go if isinstance(go, (int, float)) and go <= now else None
            names = [seat.name(i) for i in range(len(view["players"]))]
            self.review = self.make_coach(view["game"], seat.client.seat, names, start)
            if start is None:  # came back mid-round: a snapshot does not say when Go was
                self.review.note("This screen joined the round after Go (you came back): the "
                                 "review covers what it saw from then on, its times counted "
                                 "from then.")
            elif now - start > LATE:
                late = int(now - start)
                self.review.note(f"This screen joined the round {late // 60}:{late % 60:02d} "
                                 "after Go (you came back): the review covers what it saw "
                                 "from then on.")
        self.review.see(now, view)

    def explain(self, data: dict[str, Any]) -> str | None:
        """A ``beaten`` answer in words: "Ann beat you to the A♥ stack, by 12 ms" (contract
        6) — and the coach hears of the lost race, as the arbiter told it (RD-11)."""
        if self.review is not None:
            by, ms, top = data.get("by"), data.get("ms"), data.get("top")
            self.review.lost(self.seat.client.arbiter_now(), by if isinstance(by, int) else None,
                             ms if isinstance(ms, (int, float)) else None,
                             top if isinstance(top, str) else None)
        return race_text(self.seat.names(), data)

    def card(self, source: str) -> Card | None:
        me = self.me()
        if me is None:
            return None
        if source == "pile":
            return code_card(me["pile_top"])
        if source == "waste":
            return code_card(me.get("waste_top"))
        col = me["columns"][COLUMN_NAMES.index(source)]
        return code_card(col[-1]) if col else None

    def places(self, source: str) -> list[Play]:
        """The legal places for a source's card, best first (the engine's moves, ordered)."""
        me = self.me()
        moves = [m for m in self.seat.client.legal_moves()
                 if isinstance(m, Play) and m.source == source]
        size = 0  # the source column's cards: moving them all ranks before moving part
        if me and source in COLUMN_NAMES:
            size = len(me["columns"][COLUMN_NAMES.index(source)])
        return sorted(moves, key=lambda m: (rank_target(m, size), m.target, -m.count))

    def place_words(self, move: Play) -> str:
        """Where ``move`` puts its card, as the player sees it: "the 6♥ stack", "column 2"."""
        if move.target == "middle":
            return "a new stack"
        if move.target.startswith("s"):
            view = self.seat.client.view() or {"stacks": []}
            tops = {st["id"]: st["top"] for st in view["stacks"]}
            top = code_card(tops.get(int(move.target[1:])))
            return f"the {top.symbol} stack" if top else "a stack"
        run = f"{move.count} cards " if move.count > 1 else ""
        return f"{run}column {move.target[1:]}"

    def fits(self) -> tuple[set[str], set[int]]:
        """This seat's sources whose card goes to a stack now, and the ids of those stacks."""
        sources: set[str] = set()
        stacks: set[int] = set()
        for move in self.seat.client.legal_moves():
            if isinstance(move, Play) and not move.target.startswith("c"):
                sources.add(move.source)
                if move.target.startswith("s"):
                    stacks.add(int(move.target[1:]))
        return sources, stacks

    def no_place(self, source: str) -> tuple[str, str | None]:
        """Why the card of ``source`` cannot be played, in words first, with the rule the
        engine cites (:func:`~lan_demon.games.demon_stacks.no_place`): a lost race (RD-11)
        when the card fitted a stack as last seen."""
        client = self.seat.client
        state = client.predicted
        if state is None or client.seat is None:
            return "there is no round to play in", None
        why = demon_stacks.no_place(client.game, state, client.seat, source)
        if why is None:  # (asked only when the seat found no place: the table moved since)
            return "that card has a place now — try again", None
        if why.why == "empty_waste":
            return "your waste is empty: " + self.seat.how("Space turns the Pack",
                                                            "turn the Pack"), why.rule
        if why.why == "empty":
            return f"your {source} is empty", why.rule
        if why.why == "unknown":
            return "that card is not known yet — a moment", why.rule
        card = self.card(source)
        lost = self.lost_race(card) if card is not None else None
        if lost:
            return lost, "RD-11"
        needs = why.needs
        if why.why == "no_stack":  # words short enough for the status line at 60 columns
            return f"{card.symbol} fits no stack (needs {with_article(rank_name(needs.rank))}" \
                "); no laddering here", why.rule
        if why.why == "king":
            return f"{card.symbol} fits no stack (needs {needs.symbol}); no column takes a " \
                "King", why.rule
        column = f"no column ({with_article('black' if card.red else 'red')} " \
            f"{rank_name(card.rank + 1)})"
        return f"{card.symbol} fits no stack (needs {needs.symbol}) and {column}", why.rule

    def lost_race(self, card: Card) -> str | None:
        """ "Ann beat you to the 4♥ stack" when ``card`` fitted a stack as the seat saw it
        (last, or within RACE_GRACE) and another player's card has covered it since — the
        engine judges it (:func:`~lan_demon.games.demon_stacks.race_lost`)."""
        client = self.seat.client
        if client.predicted is None:
            return None
        lost = demon_stacks.race_lost(client.game, client.predicted, client.seat, card,
                                      self.seen.tops(self.seat.clock()))
        if lost is None:
            return None
        _, top, winner = lost
        return race_text(self.seat.names(), {"by": winner if winner is not None else -1,
                                             "top": top.to_data()})

    # --- intents ----------------------------------------------------------------------------

    def play_from(self, source: str, to: str | None = None) -> Any:
        """Play the card of ``source`` to its best place, or to ``to`` (``s3``, ``middle``,
        ``c2``); refused in words when it has no such place."""
        if source not in SOURCES:
            return self.seat.refuse(f"there is no '{source}' to play from")
        moves = self.places(source)
        if not moves:
            text, rule = self.no_place(source)
            line = self.seat.say(text, rule=rule, kind="race" if rule == "RD-11" else "refusal",
                                 read=True)
            return Refusal(line.words, rule)
        if to is not None:
            chosen = [m for m in moves if m.target == to]
            if not chosen:
                card = self.card(source)
                where = ", ".join(self.place_words(m) for m in moves)
                return self.seat.refuse(f"{card.symbol if card else 'that card'} cannot go "
                                        f"there — it can go to {where}")
            moves = chosen
        return self.seat.play(moves[0])

    def turn(self) -> Any:
        """Turn the Pack (RD-9, RG-5)."""
        return self.seat.play(TurnPack())

    def stuck(self) -> Any:
        """Vote stuck (RD-13)."""
        self.voted_here = True
        self.voted_at = _plays(self.seat)
        return self.seat.play(VoteStuck())


def _plays(seat: Any) -> int | None:
    """The cards played to a stack or a column this round, as the table has it (RD-13)."""
    return getattr(getattr(seat.client, "mirror", None), "plays", None)

