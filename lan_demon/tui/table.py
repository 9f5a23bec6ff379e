"""What the terminal shows and what each key means — without prompt_toolkit's machinery.

:class:`Controller` turns the client's state into formatted text and key presses into moves.
It holds the seat (:class:`~lan_demon.seat.seat.Seat`: the facts, the words, the intents) and
listens to it. It holds no rules: legal moves come from the client's local engine, and a move
the engine refuses is flashed with its rule id, never sent. The game's own table and keys
live in one :class:`GameScreen` per game (``demon.py``, ``racko.py``, ``gin.py``); the frame
around them is shared here: the title, the countdown, the banner, the status line and the
pages, with the lobby from ``lobby.py``, the round-end scores from ``scores.py``, the help
from ``text.py`` and what shows while cut off from the table from ``cut_off.py``. The facts
they all read (the phase, the seats, the captain, …) are ``facts.py``'s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, Callable

from lan_demon.net.cells import cells
from lan_demon.net.client import Client
from lan_demon.net.forwarded import Fact
from lan_demon.seat.outcomes import Line
from lan_demon.seat.events import Event, Go, RoundEnd
from lan_demon.seat.seat import Seat
from lan_demon.seat.words import watching
from lan_demon.tui.cut_off import cut_off_rows
from lan_demon.tui.deal_words import deal_rows
from lan_demon.tui.facts import MIN_HEIGHT, MIN_WIDTH, key_hints, starting, too_small
from lan_demon.seat import evening
from lan_demon.tui.evening_rows import evening_rows
from lan_demon.tui.lobby import lobby, lobby_footer, next_speed
from lan_demon.tui.scores import footer, score_board
from lan_demon.tui.style import Fragments, big_cards, clip_line, keep_rows, line, text_of
from lan_demon.tui.text import help_page, hint_rows, join_lines, lines_of, wrap, wrap_lines

FLASH_SECONDS = 2.5
READ_SECONDS = 6.0  # a refusal or a lost race: long enough to read a sentence
BANNER_SECONDS = 3.0  # "Cy is OUT!" is held this long before the scores
SAID_ROWS = 3  # the rows a sentence on the status line may take
PAGE_KEYS = {"pagedown": 1, "space": 1, "pageup": -1}
NOTHING = "'{key}' does nothing here — press ? for the keys"  # a key without a meaning now


@dataclass(frozen=True)
class Drawn:
    """A screen drawn, and what drawing it found (the big cards' choice and the page keys
    read these)."""

    fragments: Fragments
    cut: bool = False  # a row of the body was cut at the edge
    pages: int = 1  # the pages the body took


class GameScreen:
    """One game's table and keys. Subclasses fill these in."""

    #: (key, what it does) for the help screen and the hint line
    keys: list[tuple[str, str]] = []
    #: the rules in short, for the help screen
    rules: str = ""
    #: key -> a word or two, for a status line too narrow for the full words of ``keys``
    brief: dict[str, str] = {}

    def render(self, ctl: Controller, width: int, height: int) -> Fragments:
        raise NotImplementedError

    def key(self, ctl: Controller, key: str) -> bool:
        """Handle a key; False when it means nothing here."""
        return False

    def reset(self) -> None:
        """A new round begins."""

    def who_is_who(self, ctl: Controller, width: int) -> Fragments:
        """What the help says first about the players (nothing unless a game says)."""
        return []


class Controller:
    """The state of one player's (or spectator's) screen: it holds a
    :class:`~lan_demon.seat.seat.Seat` (:attr:`seat`, which it listens to) and draws it, with
    the terminal's keys and timings."""

    # the seat's facts, kept by the seat
    client = Fact("seat", writable=True)
    clock = Fact("seat", writable=True)
    local = Fact("seat", writable=True)
    game = Fact("seat", writable=True)
    phase = Fact("seat", writable=True)
    seats = Fact("seat", writable=True)
    gone = Fact("seat", writable=True)
    spectator = Fact("seat", writable=True)
    captain_seat = Fact("seat", writable=True)
    captain = Fact("seat", writable=True)
    self_starting = Fact("seat", writable=True)
    reconnecting = Fact("seat", writable=True)
    reconnect_since = Fact("seat", writable=True)
    next_at = Fact("seat", writable=True)
    confirm = Fact("seat", writable=True)
    quit = Fact("seat", writable=True)
    changed = Fact("seat", writable=True)
    line = Fact("seat", writable=True)
    banner = Fact("seat", writable=True)
    alarms = Fact("seat", writable=True)
    deal_notes = Fact("seat", writable=True)
    removed_by = Fact("seat", writable=True)
    name = Fact("seat", writable=True)
    names = Fact("seat", writable=True)
    not_ready = Fact("seat", writable=True)
    ping_text = Fact("seat", writable=True)
    countdown = Fact("seat", writable=True)
    question = Fact("seat", writable=True)
    how = Fact("seat", writable=True)
    # the seat's intents
    say = Fact("seat", writable=True)
    refuse = Fact("seat", writable=True)
    play = Fact("seat", writable=True)
    act = Fact("seat", writable=True)
    ready = Fact("seat", writable=True)
    start = Fact("seat", writable=True)
    start_anyway = Fact("seat", writable=True)
    leave = Fact("seat", writable=True)
    dismiss = Fact("seat", writable=True)

    def __init__(self, client: Client, screen: GameScreen, host: bool = False,
                 clock: Callable[[], float] = time.monotonic, bell: bool = True,
                 local: Any = None, speeds: Sequence[str] = ()):
        """``local``: the in-process table of ``lan-demon play``, whose bots' level the lobby
        can change (``v``) to each of ``speeds`` in turn (the levels' labels, lowest first;
        empty when the table has no bots)."""
        self.seat = Seat(client, clock=clock, local=local, game=getattr(screen, "game", None),
                         listener=self)
        self.seat.keyed = True  # the words name this screen's keys
        self.screen = screen
        self.host = host
        self.bell = bell  # False: never ring the terminal bell (--no-bell)
        self.speeds = tuple(speeds)
        self.output: Any = None  # has .bell(); build_app sets the application's output
        self.flash_text = ""
        self.flash_rule: str | None = None  # the rule id behind the flash, shown dimmed after it
        self.flash_until = 0.0
        self.help = False
        self.banner_until = 0.0
        self.banner_seconds = BANNER_SECONDS
        self.page = 0  # the page of a long scoreboard or help
        self.size = (MIN_WIDTH, MIN_HEIGHT)  # the terminal, as the application gives it with a key
        self.keys_seen = 0  # key presses handled so far (tests wait on it)
        self.big = False  # --big: larger cards where they fit

    @property
    def banner_text(self) -> str:
        """"Cy is OUT!" at a round's end."""
        return self.banner.words if self.banner is not None else ""

    def too_small(self, width: int | None = None, height: int | None = None) -> bool:
        """The terminal (at ``width`` × ``height``, else at :attr:`size`) is too small."""
        if width is None or height is None:
            return too_small(*self.size)
        return too_small(width, height)

    # --- the seat ---------------------------------------------------------------------------

    def pump(self) -> bool:
        """Handle what arrived; True when the screen should be redrawn."""
        self.seat.pump()
        return self.changed

    def told(self, event: Event) -> None:
        """A new round clears the game's screen; a round's end holds its banner a moment."""
        if isinstance(event, Go):
            self.screen.reset()
            self.banner_until = 0.0
        elif isinstance(event, RoundEnd):
            self.flash_text = ""
            self.flash_until = 0.0
            self.page = 0
            self.banner_until = self.clock() + self.banner_seconds

    def heard(self, line: Line, read: bool) -> None:
        """What the seat says shows on the status line, a sentence long enough to read."""
        self.flash_text = line.words
        self.flash_rule = line.rule
        self.flash_until = self.clock() + (READ_SECONDS if read else FLASH_SECONDS)

    def ring(self) -> None:
        """The terminal bell, unless it was turned off (``table_for(..., bell=False)``)."""
        if self.bell and self.output is not None:
            self.output.bell()
            flush = getattr(self.output, "flush", None)
            if flush is not None:
                flush()

    def flash(self, text: str, rule: str | None = None,
              seconds: float = FLASH_SECONDS) -> None:
        """Say ``text`` on the status line for ``seconds``; ``rule`` (an id such as ``RD-7``)
        follows it, dimmed: words a player understands first, the rule book's id after — with
        seats named, not numbered."""
        self.say(text, rule)
        self.flash_until = self.clock() + seconds

    def flash_refusal(self, text: str) -> None:
        """A refusal worded ``RULE: words``: flashed as the words, the rule dimmed after."""
        self.refuse(text)

    # --- keys ------------------------------------------------------------------------------

    def key(self, key: str) -> None:
        self.keys_seen += 1
        if self.too_small():  # nothing happens blind behind the "too small" message
            if key == "q":
                self.quit = True
            return
        if self.confirm is not None:
            self._answer(key)
            return
        if key == "q":
            self._leave()
            return
        if key == "?":
            self.help, self.page = not self.help, 0
            return
        if self.help:  # paging keys turn its pages; any other key closes it
            if key in PAGE_KEYS:
                self._turn_page(PAGE_KEYS[key])
            else:
                self.help = False
            return
        phase = self.phase
        if phase in ("between", "over") and key in PAGE_KEYS:
            self._turn_page(PAGE_KEYS[key])
            return
        if key in ("P", "R") and not self.spectator and not self.reconnecting and \
                not self.gone:  # the captain runs the evening (§24)
            intent = evening.keys(self.seat).get(key)
            if intent is not None:
                self.act(intent["do"], intent)
                return
        if self.reconnecting or self.gone:  # nothing would reach the arbiter: say so
            self.flash("the host is not answering: nothing starts or plays until it does "
                       "— q leaves" if not self.gone else "this table is gone — q leaves")
            return
        if phase == "playing":
            # the last message was about the last key
            self.flash_text = ""
            self.flash_rule = None
            if (evening.paused(self.seat) or evening.stalled(self.seat)) and not self.spectator:
                self.flash(evening.pause_words(self.seat) or "")
            elif self.spectator:
                self.flash(watching(self.how))
            elif not self.screen.key(self, key):
                self.flash(NOTHING.format(key=key))
            return
        if self.spectator:
            return
        if phase == "lobby" and not self._lobby_key(key):
            self.flash(NOTHING.format(key=key))
        elif phase == "countdown":
            self.flash("the round starts in a moment: the keys play from Go")
        elif key == "enter" and phase == "between":
            self.ready()
        elif phase in ("between", "over"):  # a key that says nothing looks broken
            self.flash("the match is over — q leaves" if phase == "over" else
                       "the round is over: Enter when you are ready for the next — q leaves")

    def _turn_page(self, step: int) -> None:
        last = self.pages - 1
        self.page = max(0, min(last, min(self.page, last) + step))

    def _lobby_key(self, key: str) -> bool:
        """A lobby key: False when it means nothing there (the caller says so)."""
        if key in ("v", "V") and self.local is not None and self.speeds:  # V: a level down
            self.flash(f"the bots now play at {next_speed(self, -1 if key == 'V' else 1)}")
        elif key not in ("enter", "s"):
            return False
        else:
            self.start()
        return True

    def _leave(self) -> None:
        """During a match, ask first (the seat is kept a while); otherwise leave at once."""
        self.leave()
        if self.confirm == "leave":
            self.flash_text = ""  # its keys show on the status line

    def _answer(self, key: str) -> None:
        if self.confirm == "leave" and key == "y":
            self.leave(sure=True)
        elif self.confirm == "start" and key in ("enter", "y"):
            self.start_anyway()
        elif (question := evening.question(self.seat)) is not None and \
                (key in ("enter", "y") or (key == "b" and question.other)):
            intent = dict(question.other if key == "b" else question.yes)  # (the seat's)
            self.act(intent.pop("do"), intent)
        else:
            self.dismiss()

    # --- drawing ---------------------------------------------------------------------------

    def render(self, width: int, height: int) -> Fragments:
        """The whole screen: never wider than ``width`` nor taller than ``height``. With
        ``--big`` (:attr:`big`) the cards are drawn big where the screen then says all that
        the usual one says (nothing cut, folded, shortened or paged), else as usual. Drawing
        changes nothing: the same state draws the same screen however often it is drawn."""
        if not self.big:
            return self.draw(width, height).fragments
        with big_cards():
            drawn = self.draw(width, height)
        usual = self.draw(width, height).fragments
        if not drawn.cut and drawn.pages == 1 and \
                text_of(drawn.fragments).split() == text_of(usual).split():
            return drawn.fragments
        return usual

    @property
    def pages(self) -> int:
        """How many pages the scoreboard or help takes on the terminal (:attr:`size`)."""
        return self.draw(*self.size).pages

    def draw(self, width: int, height: int) -> Drawn:
        """The screen at ``width`` × ``height`` in the usual cards, with what the drawing
        found: a row of the body cut at the edge, the pages the body took."""
        if self.too_small(width, height):
            return Drawn(self._too_small(width, height))
        status = self._status_rows(width, height)  # the bottom rows: a sentence, or the keys
        top = lines_of(self._alarms(width) + self._question(width))
        foot = lines_of(self._footer(width))  # stays on every page
        room = height - 1 - len(status) - len(top) - len(foot)
        body, pages = self._paged(lines_of(self._body(width, room)), room)
        rows = lines_of(self._title(width)) + top + body
        rows += [[]] * max(0, height - len(status) - len(foot) - len(rows))
        cut = any(cells(text_of(r)) > width for r in body)  # (the cards' rows: body's)
        rows = [clip_line(r, width) for r in keep_rows(rows + foot, height - len(status))]
        return Drawn(join_lines(rows + status[:-1]) + status[-1], cut, pages)

    def _too_small(self, width: int, height: int) -> Fragments:
        say = f"Too small: {width}×{height} — needs at least {MIN_WIDTH}×{MIN_HEIGHT}"
        if len(say) > width:
            say = f"Too small: need {MIN_WIDTH}×{MIN_HEIGHT}"
        rows = [clip_line([("class:warn", say)], width)]
        if height > 1:
            rows.append(clip_line([("class:dim", "q leaves")], width))
        return join_lines(rows[:height])

    def _paged(self, body: list[Fragments], room: int) -> tuple[list[Fragments], int]:
        """A body taller than ``room`` shown a page at a time, the last line saying which;
        with how many pages it takes."""
        if len(body) <= room:
            return body, 1
        per = max(1, room - 1)
        pages = -(-len(body) // per)
        page = max(0, min(self.page, pages - 1))  # (a page past the end: the terminal grew)
        shown = body[page * per:(page + 1) * per]
        shown += [[]] * (per - len(shown))
        return shown + [[("class:key", f" page {page + 1} of {pages}"),
                         ("class:dim", " — PgDn/space next, PgUp back")]], pages

    def _alarms(self, width: int) -> Fragments:
        return deal_rows(self, width) + evening_rows(self, width)

    def _question(self, width: int) -> Fragments:
        question = self.question() if self.confirm is not None else None
        if question is None:
            return []
        if self.confirm == "leave":
            keys = "y leaves, any other key stays"
        elif self.confirm.startswith("remove:"):
            keys = "y removes, b a bot plays on, any other key keeps them" \
                if question.other else "y removes, any other key keeps them"
        elif self.not_ready():
            keys = "Enter again or y starts anyway, Esc waits"
        else:  # they said ready while the question was up
            keys = "Enter starts the match, Esc waits"
        return wrap(f"{question.words} — {keys}", width, "class:flash")

    def _body(self, width: int, height: int) -> Fragments:
        if self.help:
            captain = [("P", "pause or resume the table (the captain)"),
                       ("R", "remove the seat away longest, or let a bot play it on "
                             "(the captain)")]
            return self.screen.who_is_who(self, width) + help_page(
                [] if self.spectator else list(self.screen.keys) +
                (captain if self.captain else []), self.screen.rules, width)
        phase = self.phase
        cut_off = cut_off_rows(self, width)
        if cut_off is not None:
            return cut_off
        if phase == "lobby":
            return lobby(self, width, height)
        if phase == "countdown":
            left = max(0.0, (self.client.table.get("go") or 0) - self.client.arbiter_now())
            if self.client.scores.results:  # between rounds: not the lobby
                return line(("class:good", f" Round {self.client.table.get('round', 0) + 1} "
                             f"starts {starting(left)}"))
            return lobby(self, width, height) + line(("class:good", f" Starting {starting(left)}"))
        if phase in ("between", "over"):
            if self.clock() < self.banner_until:
                return self._banner(width, height)
            return self._scores(width)
        return self.screen.render(self, width, height)

    def _footer(self, width: int) -> Fragments:
        """Between rounds and at the end: what happens next, under every page of scores."""
        if self.help or self.reconnecting or self.gone:
            return []
        if self.phase == "lobby":
            return lobby_footer(self, width)
        if self.phase not in ("between", "over") or self.clock() < self.banner_until:
            return []
        return footer(self, width)

    def _banner(self, width: int, height: int) -> Fragments:
        """The round's end in a box of rules, each line centred; a sentence wider than the
        screen on as many lines as it takes."""
        text = self.banner_text or "The round is over"
        said = wrap_lines(text, width - 4)
        pad = max(0, (height - 2 - len(said)) // 2)
        out: Fragments = [("", "\n" * pad)]
        bar = "═" * min(width - 2, max(cells(row) for row in said) + 8)
        for row, style in [(bar, "class:dim")] + [(r, "class:good") for r in said] + \
                [(bar, "class:dim")]:
            out += line(" " * max(0, (width - cells(row)) // 2), (style, row))
        return out

    def _title(self, width: int) -> Fragments:
        game = self.client.game.title if self.client.game else "lan_demon"
        if self.spectator:
            me = f"{self.client.name} watching"
        else:
            me = self.name(self.client.seat)
        if self.phase in ("between", "over"):  # the round just played, not the next one
            rnd = self.client.scores.played or 1
        else:
            rnd = self.client.table.get("round", 0) + 1
        text = f" {game} · round {rnd} · {me} "
        right = f" {self.ping_text()} "
        if cells(text) + cells(right) > width:  # the ping goes whole, never its unit alone
            right = ""
        gap = " " * max(0, width - cells(text) - cells(right))
        return [("class:title", text + gap + right), ("", "\n")]

    def _status_rows(self, width: int, height: int = MIN_HEIGHT) -> list[Fragments]:
        """The status line: what the seat says now, wrapped, its rule id after it (a
        sentence longer than :data:`SAID_ROWS` rows, or a quarter of a tall screen, is only
        text no seat writes: it ends with "…" there); else the keys of this moment, whole,
        on as few rows as they take — in the seat's short words when their full words take
        more than two (a dropped hint is a key nobody learns)."""
        now = self.clock()
        if self.flash_text and now < self.flash_until:
            rule = f"({self.flash_rule})" if self.flash_rule else ""
            said = wrap_lines(f"{self.flash_text} {rule}", width - 1, " ", "   ")
            most = max(SAID_ROWS, height // 4)
            if len(said) > most:  # the rule id stays
                said = said[:most]
                said[-1] = said[-1].rsplit(" ", 1)[0] + " … " + rule
            rows = [[("class:flash", row)] for row in said]
            if rule and said[-1].endswith(rule):
                rows[-1] = [("class:flash", said[-1][: -len(rule)]), ("class:dim", rule)]
            return rows
        tail = ["? help", "q leave"] if self.confirm is None else []  # (q would stay)
        hints = key_hints(self)
        keys = list(self.screen.keys)
        short = hints
        if hints == [f"{k} {what}" for k, what in keys]:  # the game's keys: they have short words
            short = [f"{k} {self.screen.brief.get(k, what)}" for k, what in keys]
        for words in (hints, short):
            rows = hint_rows(words + tail, width)
            if len(rows) <= 2:
                break
        return [[("class:dim", row)] for row in rows]

    def _scores(self, width: int) -> Fragments:
        return score_board(self, width)
