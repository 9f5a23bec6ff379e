"""Names measured in terminal cells: emoji, wide characters, combining marks and
joiners never shift a row."""

import pytest

from lan_demon.net.cells import cells, clean, cut, fit, pad

pytestmark = pytest.mark.timeout(10)


@pytest.mark.parametrize("text, width", [
    ("Ann", 3), ("🃏Bob🎉", 7), ("日本", 4), ("e\u0301", 1), ("Zoë", 3), ("", 0)])
def test_cells_counts_what_a_terminal_draws(text, width):
    assert cells(text) == width


def test_clean_drops_characters_of_unsteady_width():
    # a family joined by zero-width joiners: one glyph on some terminals, three on others
    assert clean("🃏Bob🎉👨\u200d👩\u200d👧") == "🃏Bob🎉👨👩👧"
    assert clean("❤\ufe0f Ann") == "❤ Ann"              # emoji presentation selector
    assert clean("👍🏽ok") == "👍ok"                      # skin tone
    assert clean("🇬🇧 Sam") == "Sam"                      # a flag's regional indicators
    assert clean("  Ann\t\n  B. ") == "Ann B."
    assert clean("a\u0301\u0302\u0303\u0304") == "\u00e1\u0302\u0303"  # NFC, then two marks
    assert clean("\u0301x") == "x"                       # a mark on nothing
    assert clean("\x1b[31mred") == "[31mred"              # no escape reaches a terminal


def test_fit_cuts_at_a_cell_boundary_with_an_ellipsis():
    assert fit("🃏Bob🎉", 7) == "🃏Bob🎉"
    assert fit("🃏Bob🎉", 6) == "🃏Bob…"
    assert fit("日本語", 4) == "日…"
    assert cells(fit("日本語", 4)) <= 4
    assert cut("e\u0301x", 1) == "e\u0301"
    assert pad("日", 4) == "日  " and cells(pad("🃏Bob🎉", 5)) == 5
