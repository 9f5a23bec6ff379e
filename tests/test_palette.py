"""Colour-safe and readable — the palettes checked in simulated colour blindness,
``NO_COLOR`` honoured with no colour escape at all and nothing lost, ``--big`` cards only where
they fit (docs/accessibility.md says what is checked and why these thresholds)."""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.renderer import print_formatted_text

from colour_vision import MACHADO, ciede2000, contrast, delta_e
from demon_client import TableClient, demon_controller
from lan_demon.cli import main
from lan_demon.seat.palette import CLASSIC, NONE, OWNER_CYCLE, PALETTES, SAFE, palette_for
from lan_demon.tui.app import colour_depth
from lan_demon.tui.style import owner_mark, style_for, text_of

pytestmark = pytest.mark.timeout(60)

#: The least CIEDE2000 distance between two colours the table tells apart, in every vision
#: simulated: about eight just-noticeable differences (2.3 each), "another colour" at a
#: glance. The safe palette's closest pair is 19.95 (blue and sky blue, in tritanopia);
#: classic's is 1.3 (green and orange, in protanopia).
APART = 18.0
#: The least WCAG contrast of a card's ink on its face (AA for text).
INK_CONTRAST = 4.5
VISIONS = list(MACHADO)  # normal, protanopia, deuteranopia, tritanopia
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def closest(colours: tuple[str, ...] | list[str], vision: str) -> tuple[float, str, str]:
    """The two of ``colours`` that look most alike to ``vision``, and how far apart."""
    return min((delta_e(a, b, vision), a, b) for a, b in itertools.combinations(colours, 2))


def test_ciede2000_matches_the_published_pairs():
    """Sharma, Wu & Dalal (2005), table 1: pairs 1, 7 and 17."""
    assert ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert ciede2000((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-4)
    assert ciede2000((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)


@pytest.mark.parametrize("vision", VISIONS)
def test_rd2_safe_owner_marks_stay_apart_in_colour_blindness(vision):
    """RD-2: every two owners' marks in the safe palette are APART or more as ``vision``
    sees them (the letters tell apart seats whose colours repeat)."""
    distance, a, b = closest(SAFE.owners, vision)
    assert distance >= APART, f"{a} and {b} look alike in {vision}: ΔE00 {distance:.1f}"


@pytest.mark.parametrize("vision", VISIONS)
def test_safe_suits_lit_cards_and_states_stay_apart_in_colour_blindness(vision):
    """The red suits' ink against the black's, a lit card against a card, and the states
    (good, warning, away) against each other."""
    assert delta_e(SAFE.red, SAFE.black, vision) >= APART
    assert delta_e(SAFE.lit, SAFE.card, vision) >= APART
    distance, a, b = closest([SAFE.good, SAFE.warn, SAFE.away], vision)
    assert distance >= APART, f"states {a} and {b} look alike in {vision}: {distance:.1f}"


@pytest.mark.parametrize("palette", [CLASSIC, SAFE], ids=lambda p: p.name)
def test_a_cards_ink_reads_on_its_face(palette):
    assert contrast(palette.red, palette.card) >= INK_CONTRAST
    assert contrast(palette.black, palette.card) >= INK_CONTRAST


def test_the_check_finds_the_classic_palette_unsafe():
    """The simulation is not a formality: classic's green and orange marks are nearly one
    colour to a protanope (which is why ``safe`` exists), and the check says so."""
    distance, a, b = closest(CLASSIC.owners, "protanopia")
    assert distance < APART / 4 and {a, b} == {"#2ca02c", "#ff7f0e"}
    assert closest(CLASSIC.owners, "normal")[0] > closest(CLASSIC.owners, "protanopia")[0]


def test_owner_classes_keep_every_seat_distinct_in_every_palette():
    """RD-2: seat → (class, letter) is one-to-one for the first 78 seats, and the class's
    colour is the palette's own for that seat."""
    marks = [owner_mark(seat) for seat in range(78)]
    assert len(set(marks)) == 78
    for palette in (CLASSIC, SAFE):
        style = style_for(palette)
        for seat in range(OWNER_CYCLE):
            attrs = style.get_attrs_for_style_str(owner_mark(seat)[0])
            assert "#" + attrs.bgcolor.lower() == palette.owners[seat % len(palette.owners)]


def test_names_in_an_owners_colour_read_on_a_dark_terminal():
    """A name is drawn in its owner's colour where that reads against black (3:1, bold text),
    else in the terminal's own ink: the safe palette's wine mark keeps its colour, its name
    does not; classic's names are as they were."""
    for palette in (CLASSIC, SAFE):
        style = style_for(palette)
        for seat, colour in enumerate(palette.owners):
            attrs = style.get_attrs_for_style_str(f"class:ownerfg{seat}")
            assert attrs.bold
            if contrast(colour, "#000000") >= 3.0:
                assert "#" + attrs.color.lower() == colour
            else:
                assert not attrs.color and colour == "#882255"


def test_no_color_chooses_none_and_a_flag_wins():
    """https://no-color.org: set and not empty means no colour; a flag overrides it."""
    assert palette_for(None, {"NO_COLOR": "1"}) is NONE
    assert palette_for(None, {"NO_COLOR": ""}) is CLASSIC
    assert palette_for(None, {}) is CLASSIC
    assert palette_for("safe", {"NO_COLOR": "1"}) is SAFE
    assert palette_for(" Safe ") is SAFE
    with pytest.raises(ValueError, match="one of classic, safe, none"):
        palette_for("purple")


def ansi(palette_name: str, width: int = 120, height: int = 40, big: bool = False) -> str:
    """A real Racing Demon screen (20 seats, cards lit) as a 256-colour terminal gets it."""
    palette = PALETTES[palette_name]
    ctl = demon_controller(TableClient(20, seed=5, steps=40))
    ctl.big = big
    buf = io.StringIO()
    out = Vt100_Output(buf, lambda: Size(height, width), term="xterm-256color",
                       default_color_depth=colour_depth(palette) or ColorDepth.DEPTH_8_BIT)
    print_formatted_text(out, ctl.render(width, height), style_for(palette))
    return buf.getvalue()


def colour_codes(text: str) -> list[str]:
    """The SGR parameters that set a colour (30–49 and 90–107: foreground, background)."""
    found = []
    for params in SGR.findall(text):
        codes = [int(p) for p in params.split(";") if p]
        i = 0
        while i < len(codes):
            c = codes[i]
            if 30 <= c <= 49 or 90 <= c <= 107:
                found.append(str(c))
                i += 5 if c in (38, 48) and codes[i + 1:i + 2] == [2] else \
                    3 if c in (38, 48) else 1
            else:
                i += 1
    return found


def test_none_draws_no_colour_escape_and_loses_no_signal():
    """NO_COLOR: not one colour escape on a whole 20-seat table; owners by letter (reversed),
    suits by symbol, a card that fits reversed and underlined — while classic and safe do
    colour (so the check can fail)."""
    assert colour_codes(ansi("classic")) and colour_codes(ansi("safe"))
    plain = ansi("none")
    assert colour_codes(plain) == []
    assert any(s in plain for s in "♠♥♦♣")
    style = style_for(NONE)
    for cls in ("class:card.red class:hl", "class:card.black class:hl"):
        attrs = style.get_attrs_for_style_str(cls)
        assert attrs.reverse and attrs.underline  # a lit card, without colour
    mark = style.get_attrs_for_style_str(owner_mark(3)[0])
    assert mark.reverse and not mark.bgcolor and not mark.color
    assert colour_depth(NONE) == ColorDepth.DEPTH_1_BIT


def test_no_color_in_the_environment_is_honoured_by_the_app(monkeypatch):
    """NO_COLOR set: the application is built without colour; --palette safe beside it keeps
    the colours (the flag wins: prompt_toolkit alone would drop them)."""
    from lan_demon.tui.app import build_app
    monkeypatch.setenv("NO_COLOR", "1")
    ctl = demon_controller(TableClient(2, seed=1, steps=5))
    assert build_app(ctl).color_depth == ColorDepth.DEPTH_1_BIT
    assert build_app(ctl, SAFE).color_depth == ColorDepth.DEPTH_8_BIT


def test_big_cards_where_they_fit_and_the_usual_ones_where_not():
    """--big: at 120×40 the cards take a cell of card each side of the face; at 80×24 a
    20-seat table has no room for that, and the screen is exactly the usual one."""
    for width, height in ((80, 24), (60, 20)):
        usual = demon_controller(TableClient(20, seed=5, steps=40))
        big = demon_controller(TableClient(20, seed=5, steps=40))
        big.big = True
        assert text_of(big.render(width, height)) == text_of(usual.render(width, height))
    usual = demon_controller(TableClient(3, seed=5, steps=40))
    big = demon_controller(TableClient(3, seed=5, steps=40))
    big.big = True
    drawn, before = big.render(120, 40), usual.render(120, 40)
    assert text_of(drawn) != text_of(before)
    rows = text_of(drawn).split("\n")
    assert len(rows) <= 40 and max(len(r) for r in rows) <= 120
    faces = [t for s, t in drawn if "class:card." in s and t.strip()]
    assert faces and all(len(t) == 5 for t in faces), faces  # " 10♥ ", "  5♠ "


def test_the_flags_are_refused_in_one_line(capsys):
    assert main(["join", "127.0.0.1:1", "--palette", "purple"]) == 2
    err = capsys.readouterr().err
    assert "there is no palette 'purple': one of classic, safe, none" in err
    assert "Traceback" not in err


def test_the_page_has_the_same_palettes():
    """web/static/table.css holds each palette's colours as CSS variables, the same as
    seat/palette.py's."""
    css = (Path(__file__).resolve().parent.parent / "lan_demon" / "web" / "static" /
           "table.css").read_text(encoding="utf-8")
    for palette in (CLASSIC, SAFE):
        block = re.search(r'\[data-palette="%s"\]\s*\{([^}]*)\}' % palette.name, css)
        assert block, f"no [data-palette={palette.name}] block in table.css"
        found = dict(re.findall(r"--([a-z0-9-]+):\s*(#[0-9a-fA-F]{6})", block.group(1)))
        want = {"red": palette.red, "black": palette.black, "lit": palette.lit,
                **{f"owner{i}": c for i, c in enumerate(palette.owners)}}
        assert {k: v.lower() for k, v in found.items() if k in want} == want
        assert re.search(r"--owners:\s*%d;" % len(palette.owners), block.group(1))
        # the page's own state inks read on its light background, and so do the safe
        # palette's names (each seat's ink: its owner colour, darkened where it must be)
        inks = [f"ink{i}" for i in range(len(palette.owners))] if palette is SAFE else []
        for name in ("ok", "bad", "note", *inks):
            assert contrast(found[name], "#ffffff") >= INK_CONTRAST, (palette.name, name)
        assert contrast(found["lit-edge"], "#ffffff") >= 3.0  # a border: WCAG's non-text 3:1


@pytest.mark.parametrize("game", ["racko", "gin-solitaire"])
def test_big_cards_in_rack_o_and_gin_solitaire(host, game):
    """--big at a real table (a bot beside, seeded): at 120×40 the rack's or the hand's cards
    are drawn big; at 80×24 and 60×20 nothing is cut either way."""
    from lan_demon.bots.runner import make_bot, run_pool
    from lan_demon.net.client import Client
    from lan_demon.tui.app import table_for
    server = host(game, players=2, rounds=1, seed=6)
    client = Client(server.address, name="Ann", context=server.context).connect()
    host.clients.append(client)
    bot = make_bot(server.address, "greedy", "Robo", seed=3, speed="flat-out",
                   context=server.context)
    host.clients.append(bot.client)
    ctl = table_for(client, big=True)
    ctl.ready()

    def dealt() -> bool:
        ctl.pump()
        return ctl.phase == "playing" and client.view() is not None and not client.pending

    run_pool([bot], until=dealt, timeout=30)
    usual = table_for(client)
    for width, height in ((120, 40), (80, 24), (60, 20)):
        big, plain = ctl.render(width, height), usual.render(width, height)
        for drawn in (big, plain):
            rows = text_of(drawn).split("\n")
            assert len(rows) <= height and max(len(r) for r in rows) <= width
        if (width, height) == (120, 40):
            faces = [t for s, t in big if s.startswith(("class:card", "class:good reverse"))
                     and t.strip()]
            assert faces and all(t.startswith(" ") and t.endswith(" ") for t in faces), faces
            words = [text_of(d).rsplit("\n", 1)[0].split() for d in (big, plain)]
            assert words[0] == words[1]  # the same words, bigger (the status lines apart)


@pytest.mark.parametrize("game", ["racing-demon", "racing-demon-german", "racko",
                                  "gin-solitaire"])
def test_big_cards_never_change_what_a_small_screen_says(game):
    """--big beside nothing cut (tests/test_small_screens.py): every screen of every game, at
    60×20 and 80×24, for the fewest and the most seats, says with --big exactly what it says
    without (the same words on every page, nothing past an edge) — bigger cards are drawn
    only where nothing is lost; at 120×40 some screen of the game is drawn big."""
    from small_scenes import SIZES, counts, scenes
    from lan_demon.net.cells import cells
    grew = False
    for players in (counts(game)[0], counts(game)[-1]):
        for scene in scenes(game, players):
            ctl = scene.ctl
            for width, height in [*SIZES, (120, 40)]:
                ctl.big = False
                usual = text_of(ctl.render(width, height))
                ctl.big = True
                big = text_of(ctl.render(width, height))
                ctl.big = False
                rows = big.split("\n")
                assert len(rows) <= height and max(map(cells, rows)) <= width
                assert big.split() == usual.split(), (scene.what, width, height)
                grew = grew or ((width, height) == (120, 40) and big != usual)
    assert grew
