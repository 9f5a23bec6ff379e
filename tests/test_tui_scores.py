"""The round-end and match screen (RD-14, RG-6, RG-7, RK-6, GS-7): sorted, marked, charted,
paged at 20 players on 80×24 without losing a row."""

from __future__ import annotations

import re

import pytest

from lan_demon.tui.style import text_of
from tui_fake import ended

pytestmark = pytest.mark.timeout(60)


def rows(ctl, width=100, height=40) -> list[str]:
    return text_of(ctl.render(width, height)).split("\n")


def ranked(lines: list[str]) -> list[str]:
    found = [re.match(r"^ {1,2}(\d{1,2}) [★ ](\S+) +-?\d+ ", x) for x in lines]
    return [m.group(2) for m in found if m]


def test_rd14_the_board_is_sorted_highest_first_with_the_winner_and_leader_marked():
    ctl, _ = ended("racing-demon", ["Tess", "Bob", "Cy"], [[1, 9, 4], [2, 0, 9]])
    lines = rows(ctl)
    assert ranked(lines) == ["Cy", "Tess", "Bob"]  # this round: 9, 2, 0
    cy = next(x for x in lines if "Cy" in x and "★" in x)
    assert cy.rstrip().endswith("◀")  # Cy leads the match, 13
    head = next(x for x in lines if "total" in x)
    assert "stacked" in head and "pile left" in head and "kings" in head


def test_rg6_rg7_german_penalties_sorted_lowest_first_and_charted_lowest_at_the_top():
    ctl, _ = ended("racing-demon-german", ["Tess", "Bob", "Cy"], [[4, 0, 9], [3, 1, 8]])
    lines = rows(ctl)
    assert ranked(lines) == ["Bob", "Tess", "Cy"]
    assert "lowest is best (RG-7)" in "\n".join(lines)
    top = next(i for i, x in enumerate(lines) if "┤" in x)
    assert lines[top].split("┤")[0].strip() == "0"  # Bob's 0 after round 1: the top
    assert "1" in lines[top].split("┤")[1]  # marker 1 is the best: Bob
    assert lines[top + 5].split("┤")[0].strip() == "17"


def test_the_chart_is_several_rows_tall_and_has_a_legend():
    ctl, _ = ended("racing-demon", ["Tess", "Bob"], [[1, 5], [4, 2], [9, -1]])
    text = "\n".join(rows(ctl))
    assert text.count("┤") == 6 and "round  1" in text
    assert re.search(r"1 Tess 14 +2 Bob 6", text)


def test_twenty_players_at_80x24_page_and_lose_no_row():
    names = [f"P{i:02d}" for i in range(20)]
    ctl, client = ended("racing-demon", names, [list(range(20))])
    ctl.size = (80, 24)  # the terminal's size, as the application gives it with each key
    first = rows(ctl, 80, 24)
    assert "page 1 of " in "\n".join(first)
    pages = int(re.search(r"page 1 of (\d+)", "\n".join(first)).group(1))
    seen: list[str] = []
    texts = []
    for _ in range(pages):
        lines = rows(ctl, 80, 24)
        assert len(lines) <= 24 and max(len(x) for x in lines) <= 80
        assert "waiting until everyone is ready" in "\n".join(lines)  # on every page
        seen += ranked(lines)
        texts.append("\n".join(lines))
        ctl.key("pagedown")
    assert sorted(seen) == sorted(names) and seen[0] == "P19"
    everything = "\n".join(texts)
    assert "next Piles (RD-15: the leaders' grow, the last's shrink)" in everything and "P00 13" in everything
    assert "running total by round" in everything
    ctl.key("pageup")
    assert f"page {pages - 1} of {pages}" in "\n".join(rows(ctl, 80, 24))


def test_rk5_rack_o_banner_and_the_rack_o_part():
    detail = [{"rack": [1, 2, 3, 9, 5, 6, 7, 8, 10, 11], "racko": False},
              {"rack": list(range(1, 11)), "racko": True}]
    ctl, client = ended("racko", ["Tess", "Bob"], [[15, 75]], detail=detail)
    assert ctl.banner_text == "Bob: Rack-O!"
    text = "\n".join(rows(ctl))
    assert "Rack-O" in text and "in order" in text
    assert ranked(text.split("\n")) == ["Bob", "Tess"]


def test_gs7_gin_banner_names_the_knock_and_joker_labels_are_not_cut():
    """GS-6, GS-7: the result holds the deadwood left, not the card knocked with: the banner
    says "knocked, deadwood 5", never "knocked with 5" (which reads as a card)."""
    detail = [{"result": "knock", "deadwood": 5, "count": 20, "player": 15, "joker": 0},
              {"result": "gin", "deadwood": 0, "count": 20, "player": 45, "joker": 0},
              {}, {}]
    ctl, _ = ended("gin-solitaire", ["Tess", "Rosalind L10"], [[15, 45, 0, 0]], detail=detail)
    assert ctl.banner_text == "You knocked, deadwood 5 (20 cards left above the Joker: " \
        "20 − 5 = 15 points, GS-7); Rosalind L10: Gin!"  # Tess is this seat
    text = "\n".join(rows(ctl, 60, 20) + rows(ctl, 80, 24))
    assert "Joker (Rosalind L10)" in text  # a name is whole, a bot's level too


def test_a_round_this_screen_could_not_check_says_not_checked_and_why():
    """§22: a round's deal is checked by re-dealing it from the revealed secret against what
    the host promised before Go. A screen that checked says so; one that could not says NOT
    checked and why — never nothing (a round that was not checked must not pass in
    silence)."""
    from lan_demon.net.witness import DealWitness
    ctl, client = ended("racing-demon", ["Tess", "Bob"], [[3, 1]])
    client.witness = DealWitness()
    client.witness.seen(0).outcome = "ok"
    text = "\n".join(rows(ctl))
    assert "this round's deal was checked" in text and "NOT checked" not in text
    client.witness = DealWitness()
    client.witness.seen(0).outcome, client.witness.seen(0).why = \
        "unchecked", "the host never said what it dealt"
    text = " ".join("\n".join(rows(ctl)).split())
    assert "this round's deal was NOT checked by this screen: the host never said what it " \
        "dealt" in text
    client.witness = DealWitness()  # nothing seen of round 0 at all
    assert "NOT checked" in "\n".join(rows(ctl))
    narrow = rows(ctl, width=80)
    assert max(len(x) for x in narrow) <= 80 and any("NOT checked" in x for x in narrow)


def test_rg2_with_handicap_off_the_round_end_says_nothing_of_rd15s_next_piles():
    """Every German round end said 'next Piles (RD-15: the leaders' grow, the last's shrink): Cleo
    11 · Robo 11' at a table whose lobby said 'handicap off' (RG-2: the German Pile stays 11)."""
    ctl, client = ended("racing-demon-german", ["Cleo", "Robo"], [[3, 5]])
    client.table["config"] = {"game": "racing-demon-german", "options": {"handicap": False}}
    assert "next Piles" not in "\n".join(rows(ctl))
    client.table["config"] = {"game": "racing-demon", "options": {"handicap": True}}
    assert "next Piles (RD-15" in "\n".join(rows(ctl))
