"""Nothing cut at 60×20 or 80×24, for 1–20 seats in all four games.

Every terminal screen (tests/small_scenes.py: the lobby and the captain's question, the
countdown, the table in play with a lost race, the leave question, a deal alarm, a
spectator's table, the help, the banner, the scores and the match end) is drawn at both sizes,
every page of it, and fails on:

* a row wider than the terminal (in cells: emoji take two) or more rows than it has;
* a cut line — anything the safety nets ``clip_line`` and ``keep_rows`` had to cut off (a
  row past the right edge, a row below the bottom), or text a screen cut with a slice of its
  own (the second test);
* a cut word — a name shortened (``fit_name``, ``short``, ``cells.fit``: the name is shown
  whole or not at all), or a word on the small screen that is only the start of a word the
  same screen shows whole when it has room (``demon, a car``, ``Quin12`` for Quincy), or an
  ellipsis the roomy screen does not have;
* a key hint dropped: every key the status line offers now is on the screen.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest

import lan_demon.net.cells as cells_module
from lan_demon.net.cells import cells
from lan_demon.tui import style
from lan_demon.tui.facts import key_hints
from lan_demon.tui.style import text_of
from small_scenes import GAMES, SIZES, counts, scenes

pytestmark = pytest.mark.timeout(120)
ROOMY = (200, 80)  # the size at which no screen needs to shorten anything
ELLIPSIS = "…"
PUNCTUATION = "()[],.;:!?'\"—-·"


class Cuts:
    """What the screens cut while drawing: every call of a cutting function that shortened
    the text it was given (the text the screen was given, against what it shows)."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def spy(self, name: str, real: Callable[..., Any], text_of_args: Callable[..., str],
            shown: Callable[[Any], str]) -> Callable[..., Any]:
        def cutting(*args: Any, **kw: Any) -> Any:
            out = real(*args, **kw)
            given = text_of_args(*args, **kw)
            if shown(out).rstrip() != given.rstrip():
                self.found.append(f"{name} cut {given!r} to {shown(out)!r}")
            return out
        return cutting


@pytest.fixture
def cuts(monkeypatch: pytest.MonkeyPatch) -> Cuts:
    """Spies on every module of the screens that holds a cutting function (they import
    them by name), so a new screen using them is watched too."""
    found = Cuts()
    watched = {
        "clip_line": (style.clip_line, lambda frags, width: text_of(frags), text_of),
        "keep_rows": (style.keep_rows, lambda rows, height: rows_text(rows), rows_text),
        "fit_name": (sys.modules["lan_demon.seat.words"].fit_name,
                     lambda name, width: name, str),
        "short_name": (sys.modules["lan_demon.seat.words"].short_name,
                       lambda name, width: name, str),
        "short": (sys.modules["lan_demon.seat.scores"].short,
                  lambda name, width: name, str),
        "fit": (cells_module.fit, lambda text, width: text, str),
    }
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("lan_demon."):
            continue
        for name, (real, given, shown) in watched.items():
            if getattr(module, name, None) is real:
                monkeypatch.setattr(module, name, found.spy(name, real, given, shown))
    return found


def rows_text(rows: list[Any]) -> str:
    """Rows of fragments as text, blank rows at the end left out (dropping those is no cut)."""
    return "\n".join(text_of(r) for r in rows).rstrip()


def pages(ctl: Any, width: int, height: int) -> list[list[str]]:
    """Every page of the screen as rows of text, each checked to fit the terminal."""
    ctl.size = (width, height)
    out = []
    for page in range(max(1, ctl.pages)):
        ctl.page = page
        rows = text_of(ctl.render(width, height)).split("\n")
        assert len(rows) <= height, f"{len(rows)} rows on a screen {height} high"
        for row in rows:
            assert cells(row) <= width, f"a row of {cells(row)} cells at {width}: {row!r}"
        out.append(rows)
    ctl.page = 0
    return out


def words(rows: list[str]) -> set[str]:
    return {w for row in rows for w in row.split()}


def cut_words(small: set[str], roomy: set[str]) -> list[str]:
    """Words of the small screen that are the start of a word the roomy one shows whole
    (a number glued on after it, as a count beside a cut name, is looked through), and
    ellipses the roomy screen has not. Words are compared without the punctuation around
    them: "bot," is the "bot" of "(bot)", not a cut "bots'"."""
    bare = {w.strip(PUNCTUATION) for w in roomy}
    out = []
    for word in sorted(small - roomy):
        if not any(ch.isalnum() for ch in word):
            continue  # a rule drawn across the screen is as long as the screen is wide
        if ELLIPSIS in word:
            out.append(word)
            continue
        stem = re.sub(r"\d+$", "", word.strip(PUNCTUATION)).strip(PUNCTUATION)
        if len(stem) == 1 and stem != word:
            continue  # a letter and a number: a mark or a level ("L2"), not a cut word
        if stem and stem not in bare and any(r != stem and r.startswith(stem) for r in bare
                                             if len(r) > 1):
            out.append(word)
    return out


CASES = [(game, n) for game in GAMES for n in counts(game)]


@pytest.mark.parametrize("game,players", CASES)
def test_every_screen_at_60x20_and_80x24_cuts_no_word_and_drops_no_key(
        game: str, players: int, cuts: Cuts) -> None:
    problems: list[str] = []
    for scene in scenes(game, players):
        roomy = words([r for p in pages(scene.ctl, *ROOMY) for r in p])
        for width, height in SIZES:
            where = f"{game}, {players} seats, {scene.what}, {width}×{height}"
            shown = pages(scene.ctl, width, height)
            for cut in cuts.found:  # (the roomy screen's first: it may cut nothing either)
                problems.append(f"{where}: {cut}")
            cuts.found.clear()
            for n, rows in enumerate(shown, 1):
                for word in cut_words(words(rows), roomy):
                    problems.append(f"{where}, page {n}: the word {word!r} is cut")
                bottom = words(rows[-4:])
                for hint in key_hints(scene.ctl) + ["? help", "q leave"]:
                    key = hint.split()[0]
                    if scene.ctl.flash_text or scene.ctl.confirm:
                        continue  # the status line says a sentence now; its keys are asked
                    if key not in bottom:
                        problems.append(f"{where}, page {n}: the hint {hint!r} is missing")
    problems = list(dict.fromkeys(problems))
    assert not problems, "\n".join(problems[:60]) + f"\n({len(problems)} in all)"


#: a slice of text by a width ("[: width - 24]", "[:room]"): a cut no drawn screen shows
#: as one when it falls between two words ("demon, a card" for "…, a card every 2.2 s")
WIDTH_SLICE = re.compile(r"(?<=[\w)\]\"'])\[[^\]\[]*:[^\]\[]*\b(width|room|cols)\b[^\]\[]*\]")


def test_no_screen_cuts_text_with_a_slice_of_its_own():
    """A screen cuts only through what the test above watches (``clip_line``,
    ``cells.fit``, ``fit_name``): a slice such as ``text[: width - 24]`` cut the bots'
    words in play's lobby to "demon, a card" between two words, where no check of the
    drawn screen can see a cut."""
    found = []
    for path in sorted(Path(style.__file__).parent.glob("*.py")):
        for n, row in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if WIDTH_SLICE.search(row.split("#")[0]):
                found.append(f"{path.name}:{n}: {row.strip()}")
    assert not found, "\n".join(found)
