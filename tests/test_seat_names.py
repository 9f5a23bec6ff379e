"""Everyone distinct: a seat's name is seated cleaned, at most 12 terminal
cells, unique among look-alikes ("Ann", "Ann ²"), never empty — and every screen draws it
whole, measured in cells, so an emoji name shifts no row."""

from __future__ import annotations

import re

import pytest
from arbiter_harness import Table
from demon_client import TableClient, demon_controller, lines_of

from lan_demon.net.cells import cells
from lan_demon.net.names import NAME_CELLS, name_key, seat_name, seated_words, unique_name
from lan_demon.tui.style import text_of

pytestmark = pytest.mark.timeout(60)

EMOJI_BOB = "🃏Bob🎉👨‍👩‍👧"  # joiners fuse a family in some terminals only


def sit(t: Table, peer: bytes, name: str) -> list[dict]:
    return t.send(peer, "hello", name=name, role="player")


def names(t: Table) -> list[str]:
    return [s.name for s in t.arbiter.seats]


def test_two_anns_are_told_apart_as_ann_and_ann_2():
    t = Table("racing-demon", players=6)
    for peer in (b"A", b"B", b"C"):
        sit(t, peer, "Ann")
    assert names(t) == ["Ann", "Ann ²", "Ann ³"]
    (welcome, *_) = sit(t, b"D", "player")
    assert welcome["name"] == "player"  # the welcome says the name the seat sits under
    assert t.updates("lobby")[-1]["seats"][1]["name"] == "Ann ²"


def test_look_alike_names_are_the_same_name():
    """Case, compatibility forms (full-width letters, a superscript two) and spaces."""
    t = Table("racing-demon", players=8)
    for i, name in enumerate(["Ann", "ann", "ＡＮＮ", " A n n ", "Ann2", "Ann 2"]):
        sit(t, bytes([65 + i]), name)
    assert names(t) == ["Ann", "ann ²", "ＡＮＮ ³", "A n n ⁴", "Ann2 ²", "Ann 2 ³"]  # ² is 2
    assert len({name_key(n) for n in names(t)}) == 6
    assert name_key("Ann ²") == name_key("ann2") and name_key("Zoë") != name_key("Zoe")


def test_an_empty_name_is_refused_in_one_line_and_takes_no_seat():
    t = Table("racing-demon")
    for peer, name in ((b"A", ""), (b"B", "   "), (b"C", "🇩🇪"), (b"D", "\u200d\ufe0f")):
        (refusal,) = sit(t, peer, name)
        assert refusal["t"] == "error" and refusal["code"] == "malformed", refusal
        assert "needs a name" in refusal["reason"] and "\n" not in refusal["reason"]
    assert names(t) == []
    sit(t, b"E", "Eve")
    assert names(t) == ["Eve"]  # the table is as it was


def test_an_emoji_name_is_seated_cleaned_and_within_12_cells():
    t = Table("racing-demon")
    sit(t, b"A", EMOJI_BOB)
    (name,) = names(t)
    assert name == "🃏Bob🎉👨👩" and cells(name) == 11  # the joiners gone; the 👧 did not fit
    assert "\u200d" not in name


@pytest.mark.parametrize("raw", ["Bartholomew Jones", "ÅÅÅÅÅÅÅÅÅÅÅÅÅÅ", "漢字漢字漢字漢字",
                                 "Zoë" + "\u0301" * 5, "a\u3000b", "  Cy  "])
def test_a_seated_name_is_at_most_12_cells_and_a_taken_one_stays_within_them(raw):
    name = seat_name(raw)
    assert 0 < cells(name) <= NAME_CELLS and name == name.strip()
    other = unique_name(name, [name])
    assert other != name and cells(other) <= NAME_CELLS and other.endswith(" ²")
    assert name_key(other) != name_key(name)


def test_the_name_a_player_got_is_said_in_one_line():
    """join prints it and the page shows it (commands/join.py, web/gateway.py)."""
    assert seated_words("Ann", "Ann") is None
    taken = seated_words("Ann", "Ann ²")
    assert taken == "Ann is taken at this table: you sit as Ann ²"
    cut = seated_words("Bartholomew Jones", "Bartholomew")
    assert cut is not None and "shown as Bartholomew" in cut and "taken" not in cut
    for said in (taken, cut):
        assert "\n" not in said


def demon_table(seat: int) -> tuple[TableClient, object]:
    """Four players named to try a screen: two alike, one with emoji, one long."""
    client = TableClient(4, seat=seat)
    for entry, name in zip(client.table["seats"],
                           ["Ann", "Ann ²", seat_name(EMOJI_BOB), "Bartholomew"]):
        entry["name"] = name
    return client, demon_controller(client)


@pytest.mark.parametrize("width,height", [(80, 24), (120, 40)])
def test_an_emoji_name_shifts_no_row_on_the_others_screens(width, height):
    """Every other player's entry lines up: each '│' (Pile | columns) stands at the same
    terminal column on every row of a grid column, whatever letters the names are made of,
    and every name is whole (the emoji row cut the next player's last card to '8')."""
    client, ctl = demon_table(seat=0)
    rows = text_of(ctl.render(width, height)).split("\n")
    assert max(cells(r) for r in rows) <= width
    entries = [r for r in rows if "│" in r and any(n in r for n in ("Ann ²", "🃏", "Barth"))]
    assert len(entries) >= 2, rows
    bars = [[cells(r[:i]) for i, ch in enumerate(r) if ch == "│"] for r in entries]
    assert all(b[:len(bars[-1])] == bars[-1][:len(b)] for b in bars), "\n".join(entries)
    text = "\n".join(rows)
    for name in ("Ann ²", "🃏Bob🎉👨👩", "Bartholomew"):
        assert name in text
    shown = "\n".join(lines_of(ctl, width, height))  # and as a terminal (pyte) draws it
    assert "Bartholomew" in shown and "Ann ²" in shown


def test_an_emoji_name_keeps_its_own_headers_ping_and_unit():
    client, ctl = demon_table(seat=2)
    title = text_of(ctl.render(80, 24)).split("\n")[0]
    assert "🃏Bob🎉👨👩" in title and title.rstrip().endswith("ms")
    assert cells(title) == 80


def test_join_play_and_bot_refuse_an_empty_name_in_one_line(capsys):
    from lan_demon.cli import main
    for argv in (["join", "127.0.0.1:7711"], ["play"], ["bot", "127.0.0.1:7711"]):
        code = main([*argv, "--name", "🇩🇪 "])
        out, err = capsys.readouterr()
        assert code == 2 and err.startswith("lan-demon: --name needs a name"), err
    for name in ("", "   ", "\u200d"):
        code = main(["join", "127.0.0.1:7711", "--name", name])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
        assert err.startswith("lan-demon: --name needs a name the others can read")


def test_join_without_a_name_to_be_had_asks_for_one_until_it_is_given(monkeypatch, state_home):
    """No --name and no login name: asked, again after an empty answer (not "player")."""
    from lan_demon.commands import join, prompts
    answers = iter(["", "🇩🇪", "  Ann "])
    asked: list[str] = []
    monkeypatch.setattr(join, "login_name", lambda: "")
    monkeypatch.setattr(prompts, "ask", lambda prompt: asked.append(prompt) or next(answers))
    assert join.seat_name(None, "tcp://127.0.0.1:7711", False).strip() == "Ann"
    assert asked == ["Your name at the table: "] * 3


def test_you_is_no_name_and_play_sits_you_down_with_your_login_name(monkeypatch, capsys,
                                                                    state_home):
    """Every screen calls its own player "you": a seat named "you" would read "you are OUT!"
    on the others' screens, so --name you is refused in one line; and play, which named every
    newcomer "you", seats them with their login name (asked for when there is none)."""
    from lan_demon.cli import main
    from lan_demon.commands import join, prompts
    for argv in (["join", "127.0.0.1:7711"], ["play"]):
        code = main([*argv, "--name", " You "])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
        assert err.startswith("lan-demon: --name you: every screen calls its own player")
    answers = iter(["you", "Ann"])
    monkeypatch.setattr(join, "login_name", lambda: "")
    monkeypatch.setattr(prompts, "ask", lambda prompt: next(answers))
    assert join.own_name() == "Ann"
    from lan_demon.commands import play
    import argparse
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    assert parser.parse_args([]).name is None  # the login name, found by run()


def test_a_seat_has_one_colour_on_the_terminal_and_the_page():
    """The page's chart and its Racing Demon names colour a seat as the terminal does (by
    seat, from the same ten colours in the classic palette), not by its place in the
    standings. (The colours are the palette's CSS variables, looks.js's
    Looks.ink(seat); tests/test_palette.py holds every palette to seat/palette.py.)"""
    import re
    from pathlib import Path

    from lan_demon.tui.style import OWNER_COLOURS
    static = Path(__file__).parent.parent / "lan_demon" / "web" / "static"
    chart = (static / "scores.js").read_text(encoding="utf-8")
    assert "Looks.ink(side)" in chart and "(k)" not in chart.split("const colour", 1)[1][:40]
    assert "Looks.named(p.seat)" in (static / "demon.js").read_text(encoding="utf-8")
    assert "ink(seat)" in (static / "looks.js").read_text(encoding="utf-8")
    css = (static / "table.css").read_text(encoding="utf-8")
    classic = re.search(r'\[data-palette="classic"\]\s*\{([^}]*)\}', css)
    assert classic is not None
    inks = dict(re.findall(r"--ink(\d):\s*(#[0-9a-f]{6})", classic[1]))
    assert [inks[str(i)] for i in range(10)] == OWNER_COLOURS


def test_twenty_seats_in_two_lobby_columns_show_every_name_whole_at_80x24():
    """play's lobby of 20 (its bots' level from the table): names whole, 12 cells each, both
    columns within 40 cells, the emoji name's row as wide as the others."""
    from tui_fake import FakeClient, Levels, controller, seats

    names = ["Tess", "Ann", "Ann ²", "🃏Bob🎉👨👩"] + [f"Bot{i}" for i in range(4, 20)]
    client = FakeClient(table={"phase": "lobby", "captain": 0, "seats": seats(
        *names, bots=tuple(range(4, 20)), ready=tuple(range(4, 20)))})
    ctl, _ = controller(client, local=Levels(10, tuple(names[4:])),
                        speeds=[f"level {n}" for n in range(1, 11)])
    rows = text_of(ctl.render(80, 24)).split("\n")
    assert max(cells(r) for r in rows) <= 80
    listed = [r for r in rows if ". " in r and any(n in r for n in names)]
    for name in names:
        assert any(f" {name} " in r for r in listed), name
    seconds = [re.search(r" (1[1-9]|20)\. ", r) for r in listed]
    starts = {cells(r[:m.start()]) for r, m in zip(listed, seconds) if m}
    assert len(starts) == 1 and len(listed) == 10  # the second column lines up on every row
    said = " ".join(text_of(ctl.render(80, 24)).split())  # a sentence wraps by cells: whole
    assert "Ann, Ann ² and 🃏Bob🎉👨👩 are not ready yet" in said
    emoji = next(r for r in listed if "🃏" in r)
    other = next(r for r in listed if " Ann " in r)
    assert cells(emoji[:emoji.index("not ready")]) == cells(other[:other.index("not ready")])


def test_the_final_table_keeps_an_emoji_names_column_in_line():
    """The match's result as join, host and play print it: columns right-aligned in cells."""
    from lan_demon.commands.results import format_table
    names = ["Ann", "Ann ²", "🃏Bob🎉👨👩", "Ada L2"]
    result = {"game": "racing-demon", "seed": 1, "winner": ["Ann ²"],
              "rounds": [{"scores": dict(zip(names, (3, 12, -4, 7)))}],
              "totals": dict(zip(names, (3, 12, -4, 7)))}
    rows = format_table(result).split("\n")
    head, scores = rows[1], rows[3]
    assert cells(head) == cells(scores) == cells(rows[5])
    for name, score in zip(names, ("3", "12", "-4", "7")):  # each score ends under its name
        assert cells(head[:head.index(name) + len(name)]) == \
            cells(scores[:scores.index(f" {score}") + 1 + len(score)])
    assert rows[-1] == "(L2 after a bot's name: its level, from 1 to 10)"


def test_twenty_people_named_alike_are_twenty_names_within_12_cells():
    taken: list[str] = []
    for _ in range(20):
        taken.append(unique_name(seat_name("Maximilianus"), taken))
    assert taken[:3] == ["Maximilianus", "Maximilian ²", "Maximilian ³"]
    assert taken[-1] == "Maximilia ²⁰" and len({name_key(n) for n in taken}) == 20
    assert all(cells(n) <= NAME_CELLS for n in taken)


def test_names_alike_stay_apart_when_cut_to_a_small_screens_column():
    """At 60×20 a 20-seat table cuts names to a few cells: the arbiter's mark is kept, so
    "Maximilian ²" and "Maximilian ³" never both read "Max…" (the letters a, b, … too)."""
    from lan_demon.seat.words import fit_name
    assert fit_name("Ann ²", 4) == "Ann²" and fit_name("Maximilian ²", 4) == "Ma…²"
    assert fit_name("Maximilian", 4) == "Max…" and fit_name("Ann ²", 5) == "Ann ²"
    client = TableClient(20, seat=0, seed=5, steps=40)
    names = ["Tess", "Ann", "Ann ²", "Maximilian", "Maximilian ²", "Maximilian ³"] + \
        [f"P{i}" for i in range(6, 20)]
    for entry, name in zip(client.table["seats"], names):
        entry["name"] = name
    text = text_of(demon_controller(client).render(60, 20))
    labels = [label for label in ("Ma…²", "Ma…³", "Maximilian ²", "Maximilian ³")
              if label in text]
    assert len(labels) == 2 and ("Ann ²" in text or "Ann²" in text), text
