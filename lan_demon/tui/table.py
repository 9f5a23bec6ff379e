"""What the terminal shows and what each key means — without prompt_toolkit's machinery.

:class:`Controller` turns the client's state into formatted text and key presses into moves.
It holds no rules: legal moves come from the client's local engine, and a move the engine
refuses is flashed with its rule id, never sent. The game's own table and keys live in one
:class:`GameScreen` per game (``demon.py``, ``racko.py``, ``gin.py``); the lobby, the countdown,
the round-end scores and the help are shared here.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from lan_demon.games import GameError, IllegalMove
from lan_demon.net.client import Client, Notice
from lan_demon.tui.style import Fragments, line

MIN_WIDTH, MIN_HEIGHT = 60, 20
FLASH_SECONDS = 2.5
READ_SECONDS = 6.0  # a refusal or a lost race: long enough to read a sentence


class GameScreen:
    """One game's table and keys. Subclasses fill these in."""

    #: (key, what it does) for the help screen and the hint line
    keys: list[tuple[str, str]] = []
    #: the rules in short, for the help screen
    rules: str = ""

    def render(self, ctl: Controller, width: int, height: int) -> Fragments:
        raise NotImplementedError

    def key(self, ctl: Controller, key: str) -> bool:
        """Handle a key; False when it means nothing here."""
        return False

    def reset(self) -> None:
        """A new round begins."""


class Controller:
    """The state of one player's screen."""

    def __init__(self, client: Client, screen: GameScreen, host: bool = False,
                 clock: Callable[[], float] = time.monotonic):
        self.client = client
        self.screen = screen
        self.host = host
        self.clock = clock
        self.flash_text = ""
        self.flash_rule: str | None = None  # the rule id behind the flash, shown dimmed after it
        self.flash_until = 0.0
        self.help = False
        self.quit = False
        self.last_notices: list[Notice] = []
        self.reconnecting = False
        self.keys_seen = 0  # key presses handled so far (tests wait on it)

    # --- the client ------------------------------------------------------------------------

    def pump(self) -> bool:
        """Handle what arrived; True when the screen should be redrawn."""
        before = (self.client.seq, len(self.client.pending))
        self.client.pump()
        notices = self.client.take_notices()
        for notice in notices:
            self._notice(notice)
        return bool(notices) or before != (self.client.seq, len(self.client.pending))

    def _notice(self, notice: Notice) -> None:
        kind = notice.kind
        if kind in ("beaten", "refused"):
            data = notice.data
            self.flash(data.get("reason") or notice.text, rule=data.get("rule"),
                       seconds=READ_SECONDS)
        elif kind == "reconnecting":
            self.reconnecting = True
        elif kind == "resync" and self.reconnecting:
            self.reconnecting = False
            self.flash("reconnected")
        elif kind == "round":
            self.screen.reset()
            self.flash("Go!")
        elif kind == "presence":
            who = self.name(notice.data.get("seat", -1))
            status = notice.data.get("status")
            if status != "here":
                self.flash(f"{who} is {status}")
        self.last_notices.append(notice)
        del self.last_notices[:-20]

    def flash(self, text: str, rule: str | None = None,
              seconds: float = FLASH_SECONDS) -> None:
        """Say ``text`` on the status line for ``seconds``; ``rule`` (an id such as ``RD-7``)
        follows it, dimmed: words a player understands first, the rule book's id after."""
        self.flash_text = text
        self.flash_rule = rule
        self.flash_until = self.clock() + seconds

    def play(self, move: Any) -> bool:
        """Play through the client; a refusal by the local engine is flashed, nothing is sent."""
        try:
            self.client.play(move)
        except IllegalMove as err:
            self.flash(err.reason, rule=err.rule, seconds=READ_SECONDS)
            return False
        except GameError as err:
            self.flash(str(err))
            return False
        return True

    def engine_verdict(self, move: Any) -> str | None:
        """The local engine's refusal of ``move`` now (rule id and reason), or None."""
        game, client = self.client.game, self.client
        try:
            game.apply(game.copy_state(client.predicted), client.seat, move)
        except GameError as err:
            return str(err)
        return None

    def try_play(self, move: Any, why_not: Callable[[Controller, Any], str]) -> None:
        """Play a legal move; flash why an illegal one is not possible (and send nothing)."""
        if move in self.client.legal_moves():
            self.play(move)
        else:
            self.flash(why_not(self, move))

    # --- facts the screens use -------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self.client.table.get("phase", "lobby")

    @property
    def seats(self) -> list[dict[str, Any]]:
        return self.client.table.get("seats", [])

    def name(self, seat: int) -> str:
        seats = self.seats
        return seats[seat]["name"] if 0 <= seat < len(seats) else f"seat {seat}"

    def ping_text(self) -> str:
        rtt = self.client.rtt
        return "ping —" if rtt is None else f"ping {rtt * 1000:.1f} ms"

    # --- keys ------------------------------------------------------------------------------

    def key(self, key: str) -> None:
        self.keys_seen += 1
        if key == "q":
            self.quit = True
            return
        if key == "?":
            self.help = not self.help
            return
        if self.help:  # any key closes the help
            self.help = False
            return
        if self.phase == "playing":
            if not self.screen.key(self, key):
                self.flash(f"'{key}' does nothing here — press ? for the keys")
            return
        if key in ("enter", "s") and self.phase == "lobby":
            if self.host and self.client.seat == 0:
                self.client.start()
            else:
                self.client.ready()
                self.flash("ready — waiting for the host to start")
        elif key == "enter" and self.phase == "between":
            self.client.ready()
            self.flash("ready for the next round")

    # --- drawing ---------------------------------------------------------------------------

    def render(self, width: int, height: int) -> Fragments:
        if width < MIN_WIDTH or height < MIN_HEIGHT:
            return [("class:warn", f"The terminal is {width}×{height}; lan_demon needs at "
                     f"least {MIN_WIDTH}×{MIN_HEIGHT}.\nMake the window bigger (q quits).")]
        body = self._body(width, height - 2)
        if body and not body[-1][1].endswith("\n"):
            body = body + [("", "\n")]
        used = sum(text.count("\n") for _, text in body)
        pad = [("", "\n" * max(0, height - 2 - used))]  # the status line sits at the bottom
        return self._title(width) + body + pad + self._status(width)

    def _body(self, width: int, height: int) -> Fragments:
        if self.help:
            return self._help()
        if self.reconnecting:
            return line(("class:warn", "reconnecting…"), " the seat is kept; it resumes when "
                        "the arbiter answers")
        phase = self.phase
        if phase == "lobby":
            return self._lobby()
        if phase == "countdown":
            left = max(0.0, self.client.table.get("go", 0) - self.client.arbiter_now())
            return self._lobby() + line(("class:good", f"Starting in {left:.0f}…"))
        if phase in ("between", "over"):
            return self._scores(width)
        return self.screen.render(self, width, height)

    def _title(self, width: int) -> Fragments:
        game = self.client.game.title if self.client.game else "lan_demon"
        me = self.name(self.client.seat) if self.client.seat is not None else "spectator"
        if self.phase in ("between", "over"):  # the round just played, not the next one
            rnd = len(self.client.table.get("results", [])) or 1
        else:
            rnd = self.client.table.get("round", 0) + 1
        text = f" {game} · round {rnd} · {me} "
        right = f" {self.ping_text()} "
        return [("class:title", text + " " * max(0, width - len(text) - len(right)) + right),
                ("", "\n")]

    def _status(self, width: int) -> Fragments:
        now = self.clock()
        if self.flash_text and now < self.flash_until:
            text = f" {self.flash_text} "[:width]
            out = [("class:flash", text)]
            if self.flash_rule and len(text) + len(self.flash_rule) + 2 <= width:
                out.append(("class:dim", f" ({self.flash_rule})"))
            return out
        tail = "  ? help  q quit"
        if self.phase == "playing":
            hint = "  ".join(f"{k} {what}" for k, what in self.screen.keys)
        elif self.phase in ("lobby", "between"):
            hint = "Enter " + ("start" if self.phase == "lobby" and self.host else "ready")
        else:
            hint = ""
        room = max(0, width - len(tail) - 1)
        if len(hint) > room:
            hint = hint[: max(0, room - 1)] + "…"
        return [("class:dim", f" {hint}{tail}")]

    def _lobby(self) -> Fragments:
        cfg = self.client.config
        options = ", ".join(f"{k}: {'on' if v is True else 'off' if v is False else v}"
                            for k, v in cfg.get("options", {}).items()) or "none"
        out = line(("class:me", " Lobby"), ("class:dim", f"  {cfg.get('game', '')}  "
                                            f"rounds: {cfg.get('rounds') or 'default'}  "
                                            f"options: {options}"))
        for i, seat in enumerate(self.seats):
            tags = []
            if seat.get("bot"):
                tags.append("bot")
            if seat.get("ready"):
                tags.append("ready")
            if seat.get("status") != "here":
                tags.append(seat.get("status", ""))
            mark = "▶" if i == self.client.seat else " "
            out += line(f"  {mark} {i + 1:>2}. {seat['name']:<20}",
                        ("class:dim", " ".join(tags)))
        if self.phase == "lobby":
            if self.host and self.client.seat == 0:
                out += line(("class:key", " Enter"), " starts the match")
            else:
                out += line(("class:key", " Enter"), " says you are ready; the host starts")
        return out

    def _scores(self, width: int) -> Fragments:
        from lan_demon.tui.scores import score_board
        return score_board(self, width)

    def _help(self) -> Fragments:
        out = line(("class:me", " Keys"))
        for k, what in self.screen.keys + [("?", "this help"), ("q", "quit")]:
            out += line(("class:key", f"  {k:>8}"), f"  {what}")
        out += line("") + line(("class:me", " The rules in short"))
        for text in self.screen.rules.strip().splitlines():
            out += line(f"  {text}")
        return out + line(("class:dim", " (any key closes this)"))
