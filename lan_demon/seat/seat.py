"""A seat at a table: what it is told and what it may do, decided once for every screen.

:class:`Seat` wraps one :class:`~lan_demon.net.client.Client`. It holds

* the **facts** of the table as this seat knows them (:class:`~lan_demon.seat.facts.SeatFacts`:
  the phase, the seats and their shown names, the captain, the ping, the reconnecting / gone
  state, the countdown), and the deal-check alarms and notes;
* the **events** of :mod:`lan_demon.seat.events`, each with its words: :meth:`Seat.pump`
  pumps the client and returns the new ones; the latest thing said is kept as :attr:`line`
  (with its rule) and a round's end as :attr:`banner` — how long each shows is the screen's;
* the **intents** every game has (ready, start, start anyway, leave and the questions they
  ask), and the game's own in :attr:`Seat.game` (a DemonSeat, RackOSeat or GinSeat), each
  returning :class:`Sent` or :class:`Refusal`. Every legality question goes to the engine.

The terminal's :class:`~lan_demon.tui.table.Controller` holds a Seat and draws it, told what
happens as a :class:`SeatListener` (to time what is said, make a sound, hold a banner); the
web gateway holds one per browser seat and sends :func:`lan_demon.seat.face.face`; the SDK's
events are built from these. Nothing here knows keys, colours, widths or seconds on screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from lan_demon.games import GameError, IllegalMove
from lan_demon.net.client import Client
from lan_demon.net.seats import TOKEN_LIFE
from lan_demon.net.table_copy import Notice
from lan_demon.seat import evening
from lan_demon.seat import events as ev
from lan_demon.seat.demon import DemonSeat
from lan_demon.seat.facts import SeatFacts
from lan_demon.seat.gin import GinSeat
from lan_demon.seat.outcomes import Banner, Line, Outcome, Question, Refusal, Sent
from lan_demon.seat.racko import RackOSeat
from lan_demon.seat.scores import ending_text
from lan_demon.seat.words import (named_seats, names_list, presence_words, rotation_words,
                                  split_rule)

#: a seat left during a match is kept this long — its token's life, in minutes
SEAT_KEPT_MINUTES = round(TOKEN_LIFE / 60)
ALARMS_KEPT = 4  # the newest deal alarms kept; the first of them stays (it says the most)
NOTES_KEPT = 4


class SeatListener(Protocol):
    """A screen that shows a seat, told what happens as the seat handles it."""

    def heard(self, line: Line, read: bool) -> None:
        """``line`` was just said (``read``: a sentence to give time to)."""

    def ring(self) -> None:
        """Something worth a sound: the OUT banner, a deal alarm."""

    def told(self, event: ev.Event) -> None:
        """An event of the table's course, once the seat has handled it (before the next
        notice is)."""


class NoScreen:
    """The listener of a seat that no screen times or rings for (the page's, the SDK's): what
    it is told is in the seat's :attr:`~Seat.line`, :attr:`~Seat.banner` and events."""

    def heard(self, line: Line, read: bool) -> None:
        pass

    def ring(self) -> None:
        pass

    def told(self, event: ev.Event) -> None:
        pass


class Seat(SeatFacts):
    """One seat (or spectator) at a table: its facts, its events with their words, its
    intents. ``coach`` (:func:`lan_demon.coach.coach_for`, handed in by the command, as
    players import no bot): the review or advice of the seat's game; ``local``: the in-process
    table of ``lan-demon play``; ``listener``: the screen told what is said and done."""

    def __init__(self, client: Client, coach: Any = None,
                 clock: Callable[[], float] = time.monotonic, local: Any = None,
                 game: Any = None, listener: SeatListener | None = None):
        super().__init__(client)
        self.listener: SeatListener = NoScreen() if listener is None else listener
        self.clock = clock
        self.local = local
        self.coach = coach
        self.line: Line | None = None
        self.banner: Banner | None = None
        self.said = 0  # lines said so far (the next line's id)
        self.said_at = 0.0  # when the latest line was said (the seat's clock)
        self.banners = 0
        self.quit = False  # this seat is leaving: the screen closes its client
        self.confirm: str | None = None  # "start" or "leave": a question waits for its answer
        self.waiting: Line | None = None  # the captain's "waiting: Bob is not ready yet"
        self.rotations = 0  # RD-13 rotations seen this round
        self.last_notices: list[Notice] = []
        self.changed = False  # the last pump changed something a screen shows
        self.keyed = False  # a keyboard's screen: the words name its keys (the terminal)
        # A round whose deal did not match the host's commitments (§22): said on every screen
        # until the table is left, never a passing line that could be missed.
        self.alarms: list[str] = []
        # Plain facts about the latest round's deal (§22): whose randomness it was dealt
        # without, a round NOT checked and why — until the next round's.
        self.deal_notes: list[tuple[int, str]] = []
        self.removed_by: dict[str, Any] | None = None  # the removed notice of our own seat
        self._game = game
        if game is not None:
            game.bind(self)

    @property
    def game(self) -> Any:
        """The game's own seat (:mod:`lan_demon.seat.demon`, ``racko``, ``gin``), made on
        first use from the client's game."""
        if self._game is None and getattr(self.client, "game", None) is not None:
            self._game = game_seat(self.client.game.id, self.coach)
            self._game.bind(self)
        return self._game

    # --- saying -----------------------------------------------------------------------------

    def say(self, words: str, rule: str | None = None, kind: str = "said",
            read: bool = False) -> Line:
        """Tell this seat ``words``; ``rule`` (an id such as ``RD-7``) follows them — seats
        named, not numbered. ``read``: a sentence to read (a screen shows it longer)."""
        if rule is not None:
            words = named_seats(words, self.client.table.get("seats") or [])
        self.said += 1
        self.said_at = self.clock()
        self.line = Line(words, rule, kind, self.said)
        self.heard(self.line, read)
        return self.line

    def how(self, keys: str, taps: str) -> str:
        """The words for doing something: by its keys on a keyed screen, else by name."""
        return keys if self.keyed else taps

    def heard(self, line: Line, read: bool) -> None:
        """``line`` was just said (``read``: give it time): the listener is told."""
        self.listener.heard(line, read)

    def ring(self) -> None:
        """Something worth a sound (the OUT banner, a deal alarm): the listener is told."""
        self.listener.ring()

    def refuse(self, text: str) -> Refusal:
        """A refusal worded ``RULE: words``: said as the words, the rule after."""
        words, rule = split_rule(text)
        line = self.say(words, rule=rule, kind="refusal", read=True)
        return Refusal(line.words, rule)

    # --- the client -------------------------------------------------------------------------

    def pump(self) -> list[ev.Event]:
        """Handle what arrived; the new events, in order (:attr:`changed`: redraw)."""
        client = self.client
        before = (client.seq, len(client.pending))
        client.pump()
        notices = client.take_notices()
        out: list[ev.Event] = []
        for notice in notices:
            out += self._told(self._notice(notice))
            self.last_notices.append(notice)
            del self.last_notices[:-20]
        out += self._told(self._watch_rotations())
        out += self._told(self._watch_ready())
        game = self.game
        if game is not None:
            out += self._told(game.watch())
        self.changed = bool(notices) or bool(out) or before != (client.seq, len(client.pending))
        return out

    def _told(self, events: list[ev.Event]) -> list[ev.Event]:
        """``events``, each told to the listener."""
        for event in events:
            self.listener.told(event)
        return events

    def _notice(self, notice: Notice) -> list[ev.Event]:
        kind, data = notice.kind, notice.data
        event = ev.from_notice(notice, self.client.seat)  # the course's events, then words
        if isinstance(event, ev.Beaten):
            explained = self.game.explain(data) if self.game is not None else None
            line = self.say(explained or event.reason or notice.text,
                            rule=data.get("rule") or "RD-11", kind="race", read=True)
            return [replace(event, words=line.words, rule=line.rule)]
        if isinstance(event, ev.Refused):
            line = self.say(event.reason or notice.text, rule=event.rule, kind="refusal",
                            read=True)
            return [replace(event, words=line.words, rule=line.rule)]
        if isinstance(event, ev.Played):
            return [event]
        if kind == "reconnecting":
            if self.confirm == "start":  # nobody would hear the answer
                self.confirm = None
            if not self.reconnecting:
                self.reconnect_since = self.clock()
            # once the match is over there is nothing to come back to: the scores stay
            self.reconnecting = self.phase != "over"
            return [ev.Reconnecting(notice.text)]
        if kind == "resync" and self.reconnecting:
            self.reconnecting = False
            return [ev.Reconnected(self.say("reconnected").words)]
        if kind == "round":
            if self.game is not None:
                self.game.reset()
            self.rotations = 0
            self.confirm = None
            return [replace(event, words=self.say("Go!").words)]
        if isinstance(event, ev.RoundEnd):
            return [self._round_end(data, event)]
        if isinstance(event, ev.MatchEnd):
            return [replace(event, words="the match is over")]
        if kind == "gone":  # a reconnect refused: the table it was at is no more
            self.reconnecting = False
            self.confirm = None
            return [ev.Gone(notice.text)]
        if kind == "closed":
            self.reconnecting = False
            self.client.table["closed"] = True
            return [ev.Closed(notice.text)]
        if kind == "presence" and self.phase != "over":  # at the end everyone goes
            return self._presence(data)
        if kind in ("pause", "resume", "removed", "stall", "stall_over"):  # §24, §25
            return evening.heard(self, kind, data)
        if kind in ("dishonest", "dispute"):
            alarm = self._alarm(notice)
            if alarm is not None:
                self.ring()
                return [ev.Alarm(alarm)]
        elif kind == "deal_note":
            return self._deal_note(notice)
        return []

    def _presence(self, data: dict[str, Any]) -> list[ev.Event]:
        """Someone stepped away, left or came back: said in words, long enough to read."""
        seat = data.get("seat", -1)
        if seat == self.client.seat:
            return []
        who, status = self.name(seat, as_was=data), data.get("status")
        text = presence_words(who, status, SEAT_KEPT_MINUTES)
        if not text or (status == "here" and self.phase == "lobby") or \
                evening.unsaid(self, seat, status):
            return []
        self.say(text, read=True)
        return [ev.Presence(text, None, seat, who, str(status))]

    def _round_end(self, data: dict[str, Any], event: ev.RoundEnd) -> ev.RoundEnd:
        """Going out is an event: a banner and a sound, held a moment before the scores."""
        self.next_at = data.get("next_at")
        if self.next_at is None and "next_at" not in data:
            pause = self.client.config.get("pause")
            self.next_at = self.client.arbiter_now() + pause if pause is not None else None
        self.confirm = None
        result = data.get("result") or {}
        self.banners += 1
        self.banner = Banner(ending_text(self, result), self.banners)
        self.ring()
        return replace(event, words=self.banner.words)

    def _watch_rotations(self) -> list[ev.Event]:
        """RD-13 in words: the mirror counts the rotations; a new one is announced."""
        mirror = getattr(self.client, "mirror", None)
        count = getattr(mirror, "rotations", None)
        if not isinstance(count, int) or self.phase != "playing":
            return []
        out: list[ev.Event] = []
        if count > self.rotations:
            minute = self.client.table.get("minute_rotation") == count
            words = self.say(rotation_words(count, minute), read=True).words
            out.append(ev.Rotation(words, "RD-13", count, minute))
        self.rotations = count
        return out

    def _alarm(self, notice: Notice) -> str | None:
        """Keep a deal alarm (§22) for every screen; its words when it is new. Our own
        dispute coming back says nothing new."""
        mine = notice.kind == "dispute" and notice.data.get("seat") == self.client.seat and \
            any(a.startswith("DEAL CHECK FAILED") for a in self.alarms)
        head = "DEAL CHECK FAILED" if notice.kind == "dishonest" else "DEAL DISPUTED"
        text = f"{head} — {notice.text}"
        if mine or text in self.alarms:
            return None
        self.alarms.append(text)
        if len(self.alarms) > ALARMS_KEPT:  # the first (what started it) and the newest
            del self.alarms[1:len(self.alarms) - ALARMS_KEPT + 1]
        return text

    def _deal_note(self, notice: Notice) -> list[ev.Event]:
        """A fact about a round's deal, kept with the round it is about: only the latest
        round's are kept (the next round's Go replaces the last round's NOT checked)."""
        round_no = notice.data.get("round")
        round_no = round_no if isinstance(round_no, int) else -1
        latest = max((r for r, _ in self.deal_notes), default=-1)
        if round_no > latest:
            self.deal_notes = []
        if round_no >= latest and notice.text not in (t for _, t in self.deal_notes):
            self.deal_notes.append((round_no, notice.text))
            del self.deal_notes[:-NOTES_KEPT]
            return [ev.DealNote(notice.text, None, round_no)]
        return []

    # --- playing ----------------------------------------------------------------------------

    def play(self, move: Any) -> Outcome:
        """Play through the client; a refusal by the local engine is said, nothing is sent."""
        try:
            self.client.play(move)
        except IllegalMove as err:
            line = self.say(err.reason, rule=err.rule, kind="refusal", read=True)
            return Refusal(line.words, err.rule)
        except GameError as err:
            return Refusal(self.say(str(err), kind="refusal").words)
        return Sent(move)

    def engine_refusal(self, move: Any) -> IllegalMove | GameError | None:
        """The local engine's refusal of ``move`` now, as the error (reason and rule)."""
        game, client = self.client.game, self.client
        try:
            game.apply(game.copy_state(client.predicted), client.seat, move)
        except GameError as err:
            return err
        return None

    def engine_verdict(self, move: Any) -> str | None:
        """The local engine's refusal of ``move`` now (rule id and reason), or None."""
        refusal = self.engine_refusal(move)
        return None if refusal is None else str(refusal)

    def try_play(self, move: Any, why_not: Callable[[Any], str]) -> Outcome:
        """Play a legal move; say why an illegal one is not possible (and send nothing): the
        player's words first, the rule id after (``RK-4: it is …`` → ``it is …``, then RK-4)."""
        if move in self.client.legal_moves():
            return self.play(move)
        return self.refuse(why_not(move))

    # --- every game's intents ---------------------------------------------------------------

    def ready(self) -> Outcome:
        """Say ready (the lobby, or between rounds)."""
        self.client.ready()
        if self.phase == "between":
            self.say("ready for the next round")
        elif self.self_starting:
            self.say("ready — the match starts when every seat is filled and ready")
        else:
            who = self.captain_seat
            self.say("ready — waiting for " + (f"{self.name(who)} (captain) to start"
                                               if who is not None else "the host"))
        return None

    def start(self) -> Outcome:
        """The captain starts the match; with people not ready yet, it asks first."""
        if not self.captain or self.self_starting:
            return self.ready()
        if self.not_ready():
            self.confirm = "start"
            return None
        return self.start_anyway()

    def start_anyway(self) -> Outcome:
        self.confirm = None
        self.client.start()
        self.say("starting the match…")
        return None

    def leave(self, sure: bool = False) -> Outcome:
        """Leave: during a match ask first (the seat is kept a while); otherwise at once."""
        if sure or self.spectator or self.gone or self.phase in ("lobby", "over"):
            self.quit = True
            self.confirm = None
        else:
            self.confirm = "leave"
        return None

    def dismiss(self) -> Outcome:
        """No to the question: stay at the table, or wait for everyone to be ready."""
        question, self.confirm = self.confirm, None
        if question is None and hasattr(self.game, "dismiss"):
            self.game.dismiss()
        elif question == "leave":
            self.say("you stay at the table")
        elif question == "start":
            self.waiting = self.say(waiting_words(self.not_ready(), self._start_how()))
        return evening.kept_seat(self, question)

    def _start_how(self) -> str:
        return self.how("Enter starts the match", "Start the match when you like")

    def _watch_ready(self) -> list[ev.Event]:
        """The captain chose to wait ("waiting: Bob is not ready yet"): once the last of them
        says ready, the line says so — it stood, saying the table waited, over a table all
        ready."""
        said = self.waiting
        if said is None or self.line is not said:
            self.waiting = None
            return []
        if self.phase != "lobby" or self.not_ready():
            self.waiting = None if self.phase != "lobby" else said
            return []
        self.waiting = None
        return [ev.Event(self.say(waiting_words([], self._start_how())).words)]

    def question(self) -> Question | None:
        """The question waiting for an answer, in words (without any key)."""
        game_question = getattr(self.game, "question", None)
        if self.confirm is None and game_question is not None:
            return game_question()
        if self.confirm == "leave":
            if self.local is not None:  # play: the table is ours
                words = "Leave the table? The match ends here (this table runs in your terminal)"
            else:  # (a host not answering keeps nothing until it is back)
                kept = "If the host comes back, it keeps your seat" if self.reconnecting \
                    else "Your seat is kept"
                words = f"Leave the table? {kept} for {SEAT_KEPT_MINUTES} minutes"
            return Question(words, {"do": "leave", "sure": True}, {"do": "dismiss"},
                            "Leave", "Stay")
        if self.confirm == "start":
            waiting = self.not_ready()
            words = "Everyone is ready now" if not waiting else not_ready_words(waiting)
            return Question(words, {"do": "start_anyway"}, {"do": "dismiss"},
                            "Start now", "Wait")
        return evening.question(self)  # "Remove Bob?", or None

    def act(self, do: str, args: dict[str, Any] | None = None) -> Outcome:
        """An intent by name (the page's ``act`` frames; see :mod:`lan_demon.seat.face`):
        every game's here, the game's own in :attr:`game`. An unknown name or a bad argument
        is refused in words, nothing changed."""
        from lan_demon.seat.acts import act
        return act(self, do, args or {})


def waiting_words(late: list[str], start: str) -> str:
    """What the captain is told on choosing to wait (Esc at "start anyway?"): whom the table
    waits for — or, when they said ready while the question was up, that nobody is left to
    wait for and how to start (it said "waiting for everyone to be ready" to a table all
    ready)."""
    if not late:
        return f"everyone is ready now: {start}"
    return f"waiting: {not_ready_words(late)}"


def not_ready_words(late: list[str]) -> str:
    """``Bob is not ready yet``, ``Bo and Eve are not ready yet``."""
    return f"{names_list(late)} {'is' if len(late) == 1 else 'are'} not ready yet"


def game_seat(game_id: str, coach: Any = None) -> Any:
    """The game's own seat for ``game_id``, with its coach (or None)."""
    if game_id.startswith("racing-demon"):
        return DemonSeat(coach)
    if game_id == "racko":
        return RackOSeat(coach)
    return GinSeat(coach)
