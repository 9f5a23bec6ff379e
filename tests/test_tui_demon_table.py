"""What the Racing Demon screen shows, drawn from real engine states (no network): the others'
face-up cards, owner marks, stacks by suit, the highlight, race messages, refusals citing the
game's own rules, the spectator's view, and every size fitting (RD-3, RD-5, RD-11, RG-3, RG-4)."""

from __future__ import annotations

import random
import re

import pytest
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.renderer import print_formatted_text
from prompt_toolkit.data_structures import Size

from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import Play
from lan_demon.games.demon_table import Stack
from lan_demon.net.table_copy import Notice
from lan_demon.tui.demon import SOURCE_KEYS, DemonScreen
from lan_demon.tui.demon_words import RACE_GRACE, race_text
from lan_demon.tui.style import STYLE, owner_mark, text_of
from lan_demon.tui.table import Controller
from demon_client import NAMES, TableClient, demon_controller, lines_of

pytestmark = pytest.mark.timeout(120)

SIZES = [(60, 20), (80, 24), (120, 40)]


def ansi(ctl: Controller, width: int, height: int) -> bytes:
    """The screen with its colours as escape codes (for pictures, see tools/)."""
    import io

    buf = io.StringIO()
    out = Vt100_Output(buf, lambda: Size(height, width), term="xterm-256color")
    print_formatted_text(out, ctl.render(width, height), STYLE)
    return buf.getvalue().encode()


def symbol(code: str | None) -> str | None:
    return Card.from_data(code).symbol if code else None


def entry_row(rows: list[str], name: str) -> str:
    found = [r for r in rows if f" {name}" in r]
    assert found, f"{name} is not on the screen"
    return found[0]


def segment(row: str, name: str) -> str:
    """The part of a row that is one player's entry (up to the next mark or the row's end)."""
    at = row.index(f" {name}")
    return row[at - 1:at - 1 + 38]


# --- the others' face-up cards ------------------------------------------------------------

def test_rd3_others_pile_and_line_tops_shown_in_full_at_80x24_with_8_players():
    client = TableClient(8)
    ctl = demon_controller(client)
    rows = lines_of(ctl, 80, 24)
    view = client.view()
    for seat in range(1, 8):
        p = view["players"][seat]
        part = segment(entry_row(rows, NAMES[seat].removesuffix(" (bot)")),
                       NAMES[seat].removesuffix(" (bot)"))
        assert str(p["pile"]) in part
        assert symbol(p["pile_top"]) in part
        for col in p["columns"]:
            assert symbol(col[-1]) in part, (part, col)


@pytest.mark.parametrize("width,height", SIZES)
def test_rd1_twenty_players_fit_every_size_and_everyone_shows_pile_count_and_top(width, height):
    """Everyone is on the screen with their Pile count and top; a name is whole or, when
    not all names fit (20 players and 28 stacks at 60x20), the seat shows its mark alone —
    never a cut name."""
    client = TableClient(20, seed=5, steps=40)
    ctl = demon_controller(client)
    rows = lines_of(ctl, width, height)
    text = "\n".join(rows)
    view = client.view()
    for seat in range(1, 20):
        name = NAMES[seat].removesuffix(" (bot)")
        p = view["players"][seat]
        mark = owner_mark(seat)[1]
        named = [r for r in rows if f"{mark} {name} " in r]
        part = segment(named[0], name) if named else \
            next(r[r.index(f" {mark} "):][:12] for r in rows
                 if re.search(rf" {mark} +{p['pile']} ", r))
        assert symbol(p["pile_top"]) in part and str(p["pile"]) in part
    assert "Stacks" in text and "Pile" in text and "score" in text


def test_rd3_twenty_players_at_60x20_names_first_then_the_nearest_in_full_all_in_full_at_120x40():
    """Names before Lines: at 60x20 with 28 stacks every other player is named (whole) and
    none has room for their Line; at 80x24 the nearest are in full; at 120x40 all are."""
    client = TableClient(20, seed=5, steps=40)
    ctl = demon_controller(client)
    small = "\n".join(lines_of(ctl, 60, 20))
    middle = "\n".join(lines_of(ctl, 80, 24))
    big = "\n".join(lines_of(ctl, 120, 40))
    named = [f" {name.removesuffix(' (bot)')} " in small for name in NAMES[1:]]
    assert named == [True] * 15 + [False] * 4 and "│" not in small
    assert "│" in entry_row(middle.split("\n"), "Ada")  # the nearest in full
    assert big.count("│") == 19  # each other player's Line, in full


def test_rd2_a_player_shown_by_mark_alone_is_named_in_the_help():
    """At 60x20 with 20 players and 28 stacks the farthest seats show their mark alone; the
    help says whose mark is whose, every name whole."""
    ctl = demon_controller(TableClient(20, seed=5, steps=40))
    small = lines_of(ctl, 60, 20)
    assert not any(" Sal " in row for row in small) and any(" t  " in row for row in small)
    ctl.key("?")
    helped = "\n".join(lines_of(ctl, 60, 20))
    assert "Whose pack is whose" in helped and "t Sal" in helped and "b Ada" in helped


def test_rd2_owner_marks_are_distinct_for_twenty_seats_and_shown_on_stacks():
    marks = [owner_mark(seat) for seat in range(20)]
    assert len(set(marks)) == 20
    assert len({letter for _, letter in marks}) == 20  # the letter alone tells them apart
    ctl = demon_controller(TableClient(20, seed=5, steps=40))
    frags = ctl.render(120, 40)
    shown = {(style, text) for style, text in frags if style.startswith("class:owner")}
    assert set(marks) <= shown


# --- stacks -----------------------------------------------------------------------------

def stack_rows(rows: list[str]) -> dict[str, str]:
    return {r.strip()[0]: r for r in rows if r.strip()[:1] and r.strip()[0] in "♠♥♦♣"}


def ranks_in(row: str) -> list[int]:
    """The ranks of the cards in a row of the screen, in order (the row's suit label aside)."""
    faces = [tok for tok in row.split() if len(tok) > 1 and tok[-1] in "♠♥♦♣"]
    return ["A23456789TJQK".index(f[:-1].replace("10", "T")[-1]) + 1 for f in faces]


def test_rd5_stacks_are_grouped_by_suit_and_ordered_by_top_rank():
    client = TableClient(8, seed=3, steps=40)
    ctl = demon_controller(client)
    rows = lines_of(ctl, 120, 40)
    found = stack_rows(rows)
    tops = [Card.from_data(st["top"]) for st in client.view()["stacks"]]
    assert tops, "the deal played forward made no stacks"
    for suit, sym in zip("SHDC", "♠♥♦♣"):
        mine = sorted(c.rank for c in tops if c.suit == suit)
        if not mine:
            continue
        assert ranks_in(found[sym]) == mine, found[sym]


def test_rg3_german_stacks_are_one_run_ordered_by_top_rank_whatever_the_suit():
    client = TableClient(4, german=True, seed=2, steps=40)
    ctl = demon_controller(client)
    rows = lines_of(ctl, 80, 24)
    assert not stack_rows(rows)  # no rows per suit
    tops = sorted(Card.from_data(st["top"]).rank for st in client.view()["stacks"])
    head = next(i for i, r in enumerate(rows) if "Stacks" in r)
    assert ranks_in(rows[head + 1]) == tops and len(tops) >= 3


# --- highlight ----------------------------------------------------------------------------

def test_h_toggles_the_highlight_of_your_cards_that_fit_and_their_stacks():
    client = fit_table()
    ctl = demon_controller(client)
    screen: DemonScreen = ctl.screen
    sources, stacks = screen.fits(ctl)
    assert "pile" in sources and stacks == {7}
    assert not any("class:hl" in style for style, _ in ctl.render(80, 24))
    ctl.key("h")
    lit = [text for style, text in ctl.render(80, 24) if "class:hl" in style]
    assert len(lit) >= len(sources) + len(stacks)
    assert "highlight" in ctl.flash_text
    ctl.key("h")
    assert not any("class:hl" in style for style, _ in ctl.render(80, 24))
    assert ("h", "hint") in screen.keys
    ctl.key("?")
    assert "h  hint" in text_of(ctl.render(80, 40))  # as every game lists it


# --- races and refusals -------------------------------------------------------------------

def fit_table(german: bool = False) -> TableClient:
    """We hold 2♥ on our Pile and an A♥ stack (Bea's ace) is out."""
    client = TableClient(3, german=german, steps=0)
    truth = client.truth
    truth.seats[0].pile[-1] = Card(2, "H", 0)
    truth.stacks = {7: Stack(7, [Card(1, "H", 2)])}
    truth.next_stack = 8
    truth.wants = {(2 if german else (2, "H")): [7]}
    client.sync()
    return client


def lost_race_screen(german: bool = False) -> tuple[TableClient, Controller, str]:
    """As :func:`fit_table`, drawn; then Ada's 2♥ lands on the A♥ stack first."""
    client = fit_table(german)
    truth = client.truth
    ada = truth.seats[1]
    ctl = demon_controller(client)
    ctl.pump()  # the seat sees the A♥ stack (drawing changes nothing), and 2♥ fits it
    ctl.render(80, 24)
    assert any(m == Play("pile", "s7") for m in client.legal_moves())
    truth.stacks[7].cards.append(Card(2, "H", 1))  # Ada's card gets there first
    truth.wants = {(3 if german else (3, "H")): [7]}
    ada.stacked += 1
    client.sync()
    return client, ctl, "p"


def test_rd11_a_card_that_lost_a_race_locally_says_who_beat_you_to_which_stack():
    client, ctl, key = lost_race_screen()
    ctl.key(key)
    assert ctl.flash_text == "Ada beat you to the A♥ stack"
    assert ctl.flash_rule == "RD-11" and not client.sent


def test_rd11_a_card_pressed_just_after_a_rivals_landed_on_screen_still_lost_a_race():
    """Bea's 2♣ landed on the A♣ stack a moment before I pressed my 2♣; the screen had redrawn in
    between, so the refusal read '2♣ fits no stack (needs A♣)' with A♣ nowhere to be seen. A person
    needs about a second to see a card land: a stack changed by another player within RACE_GRACE of
    the key is still a race lost; later, it is not."""
    client, ctl, key = lost_race_screen()
    now = [100.0]
    ctl.clock = lambda: now[0]
    ctl.pump()  # the seat sees Ada's 2♥ on the stack, and the screen draws it
    ctl.render(80, 24)
    now[0] += RACE_GRACE - 0.1
    ctl.key(key)
    assert ctl.flash_text == "Ada beat you to the A♥ stack" and ctl.flash_rule == "RD-11"
    client, ctl, key = lost_race_screen()
    ctl.clock = lambda: now[0]
    ctl.pump()
    ctl.render(80, 24)
    now[0] += RACE_GRACE + 0.1
    ctl.key(key)
    assert ctl.flash_text.startswith("2♥ fits no stack (needs A♥)"), ctl.flash_text
    assert not client.sent


def test_rd11_the_arbiters_beaten_fields_are_worded_with_the_stack_as_shown():
    names = ["Tess", "Ann", "Ada L2"]  # a bot is named as on every screen, its level too
    data = {"code": "beaten", "rule": "RD-11", "by": 1, "stack": 3, "top": "AH", "ms": 12,
            "reason": "Ann got to the A♥ stack first, by 12 ms"}
    assert race_text(names, data) == "Ann beat you to the A♥ stack, by 12 ms"
    assert race_text(names, dict(data, by=2, top="TS@0", ms=0)) == \
        "Ada L2 beat you to the 10♠ stack, by under 1 ms"
    assert race_text(names, {"by": 1, "rule": "RD-11", "reason": "RD-11: Ann got to s2 first"}) \
        == "RD-11: Ann got to s2 first"
    assert race_text(names, {"reason": "Ann got there first"}) == "Ann got there first"
    client = TableClient(3)
    client.table["seats"][1]["name"] = "Ann"
    ctl = demon_controller(client)
    notice = Notice("beaten", "RD-11: …", data)
    assert ctl.screen.explain(ctl, notice) == "Ann beat you to the A♥ stack, by 12 ms"
    assert ctl.screen.explain(ctl, Notice("refused", "x", {"rule": "RD-7"})) is None


def test_rd5_rd7_a_classic_card_with_no_place_says_what_it_needs():
    client = TableClient(3, steps=0)
    me = client.truth.seats[0]
    me.pile[-1] = Card(9, "H", 0)
    me.columns = [[Card(2, "S", 0)], [Card(3, "C", 0)], [Card(12, "D", 0)], [Card(5, "H", 0)]]
    client.truth.stacks, client.truth.wants = {}, {}
    client.sync()
    ctl = demon_controller(client)
    ctl.render(80, 24)
    ctl.key("p")
    assert ctl.flash_text == "9♥ fits no stack (needs 8♥) and no column (a black 10)"
    assert len(ctl.flash_text) + 2 <= 60  # the status line at the smallest size
    assert ctl.flash_rule == "RD-5, RD-7" and not client.sent


def test_rg3_rg4_german_refusal_cites_german_rules_never_rd5_or_rd7():
    client = TableClient(3, german=True, steps=0)
    me = client.truth.seats[0]
    me.pile[-1] = Card(9, "H", 0)
    me.columns[0][-1], me.columns[1][-1] = Card(5, "S", 0), Card(7, "C", 0)  # no aces: no place
    client.truth.stacks, client.truth.wants = {}, {}
    client.sync()
    ctl = demon_controller(client)
    ctl.render(80, 24)
    for key in ("p", "1", "2"):
        ctl.key(key)
        assert "RD-" not in (ctl.flash_rule or "") and "RD-" not in ctl.flash_text
        assert ctl.flash_rule == "RG-3, RG-4"
        assert "no laddering" in ctl.flash_text and len(ctl.flash_text) + 2 <= 60
    assert ctl.flash_text.startswith(symbol(client.view()["players"][0]["columns"][1][-1]))
    ctl.key("w")  # nothing turned yet
    assert ctl.flash_rule == "RG-5" and "Space turns the Pack" in ctl.flash_text


def test_rg3_a_german_race_names_the_stack_and_no_classic_rule():
    client, ctl, key = lost_race_screen(german=True)
    ctl.key(key)
    assert ctl.flash_text == "Ada beat you to the A♥ stack" and ctl.flash_rule == "RD-11"


def test_the_place_chooser_names_stacks_by_their_top_card():
    client, ctl, _ = lost_race_screen()
    client.truth.wants = {}
    client.truth.stacks[7].cards.pop()
    client.truth.wants = {(2, "H"): [7]}
    client.truth.seats[0].columns[0] = [Card(3, "S", 0)]
    client.sync()
    ctl.key("t")
    ctl.key("p")
    if ctl.screen.options:
        assert "the A♥ stack" in ctl.flash_text
    else:
        assert client.sent == [Play("pile", "s7")]


# --- spectators ---------------------------------------------------------------------------

def test_rd3_a_spectator_sees_every_players_public_cards_and_no_hidden_card():
    client = TableClient(8, seat=None, seed=4, steps=30)
    ctl = demon_controller(client)
    for width, height in SIZES:
        rows = lines_of(ctl, width, height)
        text = "\n".join(rows)
        assert "░" not in text and "waste" not in text and "You" not in text
        assert "play the Pile top" not in text_of(ctl.render(width, height))
    rows = lines_of(ctl, 80, 24)
    truth = client.truth
    for seat in range(8):
        name = NAMES[seat].removesuffix(" (bot)")
        part = segment(entry_row(rows, name), name)
        public = {c.symbol for c in truth.seats[seat].pile[-1:]} | \
            {col[-1].symbol for col in truth.seats[seat].columns}
        for card in public:
            assert card in part
        faces = {tok for tok in part.replace("│", " ").split() if tok[-1:] in "♠♥♦♣"}
        assert faces <= public, (part, public)
    seq = len(client.sent)
    ctl.key("p")
    assert len(client.sent) == seq and "you are watching" in ctl.flash_text
    assert ctl.screen.keys == []


# --- sizes --------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [4, 8, 20])
@pytest.mark.parametrize("width,height", SIZES)
def test_nothing_is_cut_at_any_size_and_your_score_reads_whole(players, width, height):
    client = TableClient(players, seed=players, steps=25)
    me = client.truth.seats[0]
    me.stacked = 0  # a score of −(cards left in the Pile): "score −13" must read whole
    client.sync()
    ctl = demon_controller(client)
    rows = lines_of(ctl, width, height)
    score = -len(me.pile)
    assert f"score −{-score}" in "\n".join(rows)
    for key in SOURCE_KEYS:
        assert f"   {key}" in "\n".join(rows) or key in "pw"


@pytest.mark.parametrize("width,height", SIZES)
def test_rd5_eighty_stacks_and_twenty_players_fold_same_tops_and_cut_nothing(width, height):
    """Every ace of 20 packs out: stacks with the same top fold into ``5♥×3``; no one is left
    off the list of players."""
    client = TableClient(20, seed=3, steps=5)
    rng = random.Random(80)
    client.truth.stacks = {i: Stack(i, [Card(rng.randint(1, 12), rng.choice("SHDC"),
                                             rng.randrange(20))]) for i in range(1, 81)}
    client.sync()
    ctl = demon_controller(client)
    text = "\n".join(lines_of(ctl, width, height))
    assert "Stacks 80" in text and "more" not in text
    for seat in range(1, 20):
        assert f"{owner_mark(seat)[1]} " in text
    if width == 60:
        assert "×" in text


def test_rg3_the_german_tables_help_in_the_lobby_gives_the_german_rules():
    """`?` in a German table's lobby (before any deal) gave the classic rules — suits, ladders,
    three at a time, RD-14's score — all wrong there."""
    from lan_demon.tui.app import screen_for
    from lan_demon.tui.demon_words import CLASSIC_RULES, GERMAN_RULES
    assert screen_for("racing-demon-german").rules == GERMAN_RULES
    assert screen_for("racing-demon").rules == CLASSIC_RULES
    client = TableClient(3, german=True, steps=0)
    client.table["phase"], client.state = "lobby", None
    ctl = Controller(client, screen_for("racing-demon-german"),  # type: ignore[arg-type]
                     clock=lambda: 100.0)
    ctl.key("?")
    text = text_of(ctl.render(80, 30))
    assert "RG-3" in text and "RD-14" not in text, text
