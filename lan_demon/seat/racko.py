"""A Rack-O seat (RK-1 … RK-9): whose turn, the drawn card, the "Discard, then a slot" state.

A turn is two choices: the card (take the Discard top, or draw) and the slot (or, for a drawn
card, discarding it). Tapping the Discard pile (``tap_discard``; the terminal's ``d``) makes it
the source and waits for a slot; ``tap_slot`` then takes it into that slot — or, holding a
drawn card, puts that card there. What is possible comes from the client's legal moves;
anything else is refused with its reason and rule, nothing sent.

The coach (``coach(view)``, :meth:`lan_demon.bots.racko.PlannerRackO.advise`, handed in by the
command) advises this seat's turn from its own view; the advice stands until the turn moves on.
The turns the arbiter plays for an absent seat (RK-4) are told as :class:`StoodIn` events and
kept, one line a seat, until its next one or until it is back.
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.racko import HIDDEN_CARD, SLOTS, DiscardHeld, Draw, Move, Place, TakeDiscard
from lan_demon.seat import events as ev
from lan_demon.seat.advice import AdviceShown, Shown, advice_key
from lan_demon.seat.person import clause, possessive
from lan_demon.seat.words import watching

SLOT_WORDS = "1-9, 0"  # the terminal's slot keys, as its words name them


def held_text(card: int) -> str:
    """The drawn card, or "…" while the arbiter has not told it yet (our draw in flight)."""
    return "…" if card == HIDDEN_CARD else str(card)


class RackOSeat:
    """The Rack-O half of a :class:`~lan_demon.seat.seat.Seat`."""

    def __init__(self, coach: Any = None) -> None:
        self.coach = coach  # the strong bot's advice from a view; None: no coach here
        self.seat: Any = None
        self.source: str | None = None  # "discard": the Discard was chosen, a slot awaited
        self.advice = AdviceShown()  # the hint: which, for which moment, with numbers?
        #: seat -> the last turn the arbiter played for it while away (RK-4), in words
        self.stood_in: dict[int, str] = {}
        self.heard_to = 0  # the update seq up to which the client's stand-in moves are read

    def bind(self, seat: Any) -> None:
        self.seat = seat

    def reset(self) -> None:
        self.source = None
        self.stood_in = {}
        self.advice.clear()

    def explain(self, data: dict[str, Any]) -> str | None:
        return None

    # --- facts ------------------------------------------------------------------------------

    def view(self) -> dict[str, Any] | None:
        return self.seat.client.view()

    def mine(self, view: dict[str, Any] | None = None) -> bool:
        """It is this seat's turn in a live round."""
        view = view if view is not None else self.view()
        seat = self.seat.client.seat
        return bool(view) and seat is not None and not view["over"] and view["turn"] == seat

    def holding(self, view: dict[str, Any] | None = None) -> bool:
        view = view if view is not None else self.view()
        return view is not None and self.mine(view) and "held" in view

    def awaiting_slot(self, view: dict[str, Any] | None = None) -> bool:
        """The Discard was chosen and may still be taken: a slot is awaited."""
        view = view if view is not None else self.view()
        return self.source == "discard" and self.mine(view) and not self.holding(view)

    def why_not(self, move: Move) -> str:
        """Why ``move`` is not possible now, with the rule id."""
        seat = self.seat
        view = self.view()
        if seat.client.seat is None:
            return watching(seat.how)
        if view is None or seat.phase != "playing":
            return "RK-4: no round is in progress"
        if view["over"]:
            won = view["racko"]
            return "RK-5: the round is over — " + \
                clause(seat.name(won), won == seat.client.seat, "went", "Rack-O", start=False)
        if view["turn"] != seat.client.seat:
            who = seat.name(view["turn"])
            drew = " (they have drawn a card)" if view["holding"] else ""
            return f"RK-4: it is {who}'s turn{drew}"
        return seat.engine_verdict(move) or f"RK-4: '{move}' is not possible now"

    def draw_first(self, view: dict[str, Any]) -> str:
        """What to do before choosing a slot on your turn: the two ways to get a card."""
        top = view["discard_top"]
        how = self.seat.how
        return "draw first: " + how("n from the Draw pile", "draw from the Draw pile") + \
            ((", or " + how(f"d takes the Discard {top}", f"take the Discard {top}"))
             if top else "")

    @staticmethod
    def moment(view: dict[str, Any]) -> tuple[Any, ...]:
        """What advice depends on: once any of it changes, the advice is for another moment."""
        return (view["turns"], view["turn"], tuple(view["rack"]), view["discard_top"],
                view.get("held"), view["draw_size"], view["discard_size"])

    def current_advice(self, view: dict[str, Any] | None) -> Any | None:
        """The advice the hint gave, while the table is still as it was when it was asked."""
        if view is None or "rack" not in view:
            return None
        return self.advice.current(self.moment(view))

    def advice_shown(self, view: dict[str, Any] | None) -> Shown | None:
        """The advice as a screen draws it: plain words, the numbers if asked for."""
        moment = self.moment(view) if view is not None and "rack" in view else None
        if self.advice.current(moment) is None:  # (no advice up: no key map built per face)
            return None
        return self.advice.shown(moment, advice_key(self.seat), self.seat.how)

    def why(self) -> Any:
        """The page's "why? numbers": the advice's numbers shown or hidden."""
        view = self.view()
        said = self.advice.why(self.moment(view) if view is not None and "rack" in view
                               else None)
        if said:
            self.seat.say(said)
        return None

    def prompt(self, view: dict[str, Any]) -> str:
        """What the table waits for, in one line."""
        seat, how = self.seat, self.seat.how
        if seat.client.seat is None:
            return "watching"
        if view["over"]:
            won = view["racko"]
            rack = possessive(seat.name(won), won == seat.client.seat, start=True)
            return f"Rack-O! {rack} rack is in order — the round is over"
        if not self.mine(view):
            return f"waiting for {seat.name(view['turn'])}…"
        if self.holding(view):
            return f"You drew {held_text(view['held'])}: " + how(
                "slot key 1-9,0 puts it in · x discards it",
                "tap a slot to put it in, or discard it")
        if self.awaiting_slot(view):
            return f"Discard {view['discard_top']} → which slot? " + how(
                "1-9,0 = slot 5…50 · Esc cancels", "tap a slot, or cancel")
        top = view["discard_top"]
        if not top:
            return "Your turn: " + how("n draws", "draw")
        return "Your turn: " + how(f"d takes the Discard {top} (then a slot), n draws",
                                   f"take the Discard {top} into a slot, or draw")

    # --- after a pump -----------------------------------------------------------------------

    def watch(self) -> list[ev.Event]:
        """The turns played for absent seats (RK-4: the arbiter draws and discards for them),
        told once and kept, one line a seat, until its next one or until it is back."""
        seat = self.seat
        out: list[ev.Event] = []
        stood = getattr(seat.client, "stood_in", None) or []
        for seq, who, status, events in stood:
            discarded = [e["card"] for e in events if e.get("e") == "discard"]
            if seq > self.heard_to and discarded:
                words = (f"{seat.name(who)} ({status}): their turn was played for them — drew "
                         f"and discarded {discarded[-1]} (RK-4)")
                self.stood_in[who] = words
                out.append(ev.StoodIn(words, "RK-4", who, discarded[-1]))
        self.heard_to = max([self.heard_to] + [entry[0] for entry in stood])
        seats = seat.seats
        for who in [s for s in self.stood_in if s < len(seats)]:
            if seats[who].get("status", "here") == "here":
                del self.stood_in[who]
        return out

    # --- intents ----------------------------------------------------------------------------

    def _try(self, move: Move) -> Any:
        return self.seat.try_play(move, self.why_not)

    def draw(self) -> Any:
        """Draw the top of the Draw pile (RK-4)."""
        self.source = None
        return self._try(Draw())

    def tap_discard(self) -> Any:
        """Choose the Discard top as this turn's card: a slot comes next."""
        self.source = None
        if any(isinstance(m, TakeDiscard) for m in self.seat.client.legal_moves()):
            self.source = "discard"
            return None
        return self.seat.refuse(self.why_not(TakeDiscard(SLOTS[0])))

    def take_discard(self, slot: int) -> Any:
        """Take the Discard top into ``slot`` (RK-4), in one intent."""
        self.source = None
        return self._try(TakeDiscard(slot))

    def place(self, slot: int) -> Any:
        """Put the drawn card into ``slot``."""
        return self._try(Place(slot))

    def tap_slot(self, slot: int, key: str | None = None) -> Any:
        """A slot chosen: the Discard goes there when it was chosen first, the drawn card
        when one is held; otherwise say what comes first."""
        view = self.view()
        if self.source == "discard":
            return self.take_discard(slot)
        if self.holding(view) or not self.mine(view):
            return self.place(slot)
        then = f"then {key} puts it into slot {slot}" if key and self.seat.keyed else \
            f"then slot {slot}"
        return self.seat.refuse(f"RK-4: {self.draw_first(view)} — {then}")

    def discard(self) -> Any:
        """Discard the drawn card (RK-4)."""
        view = self.view()
        how = self.seat.how
        if self.source is not None:
            return self.seat.refuse("RK-4: " + how(
                f"x discards a drawn card; the Discard top goes into a slot ({SLOT_WORDS}) "
                "— Esc cancels", "only a drawn card is discarded; the Discard top goes into "
                "a slot — or cancel"))
        if self.mine(view) and not self.holding(view):
            return self.seat.refuse("RK-4: " + how("x discards a drawn card",
                                                   "only a drawn card is discarded") +
                                    " — " + self.draw_first(view))
        return self._try(DiscardHeld())

    def cancel(self) -> Any:
        """Let go of the chosen Discard; a drawn card cannot be let go of (RK-4)."""
        if self.source is not None:
            self.source = None
            self.seat.say("cancelled")
            return None
        if self.holding():
            return self.seat.refuse("RK-4: a drawn card must go into a slot " + self.seat.how(
                f"({SLOT_WORDS}) or be discarded (x)", "or be discarded"))
        return None

    def hint(self) -> Any:
        """The coach's move for this turn and why, from this seat's view alone."""
        seat, view = self.seat, self.view()
        if view is not None and "rack" in view and self.current_advice(view) is not None:
            said = self.advice.press(self.moment(view), lambda: None)  # numbers, then hidden
            if said:
                seat.say(said)
            return None
        self.advice.clear()
        if self.coach is None:
            seat.say("there is no coach at this table")
        elif view is None or view["over"]:
            seat.say("the coach advises on your turn — no round is being played")
        elif not self.mine(view):
            seat.say(f"the coach advises on your turn — it is {seat.name(view['turn'])}'s turn")
        elif seat.client.pending or view.get("held") == HIDDEN_CARD:
            seat.say("the coach waits until your last move has landed")
        else:
            self.advice.press(self.moment(view), lambda: self.coach(view))
        return None
