"""A table's settings have one written form, and it reads back exactly.

A host's settings were listed by hand in five places; one dropped ``seed: None`` and a resumed
host dealt every later round from seed 0. ``Settings.to_data`` writes every field (None
included) and ``from_data`` reads them back — also through a real journal's host record — and
anything missing is an error unless a named migration of an older journal supplies it.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from lan_demon.games import get_game
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.journal import JournalWriter, read_journal
from lan_demon.net.recovery import host_settings, settings_of
from lan_demon.net.settings import (MAX_FAIRNESS_MS, MAX_LAG_CAP_MS, PAUSE, Secret, Seeded,
                                    Settings, SettingsError)

GAMES = ["racing-demon", "racing-demon-german", "racko", "gin-solitaire"]
ROUNDS = {"racing-demon": (1, 20), "racing-demon-german": (5, 10), "racko": (1, 9),
          "gin-solitaire": (1, 9)}
PLAYERS = {"racing-demon": (2, 8), "racing-demon-german": (2, 8), "racko": (2, 4),
           "gin-solitaire": (1, 4)}


def seconds(top: float = 1e6) -> st.SearchStrategy[float]:
    return st.floats(0, top, allow_nan=False, allow_infinity=False)


@st.composite
def any_settings(draw: st.DrawFn) -> Settings:
    game = draw(st.sampled_from(GAMES))
    low, high = ROUNDS[game]
    options = {}
    for name, default in get_game(game).default_options().items():
        if isinstance(default, bool):
            options[name] = draw(st.booleans())
    dealing = draw(st.one_of(st.just(Secret()),
                             st.builds(Seeded, st.one_of(st.integers(-2**63, 2**63 - 1),
                                                         st.text(max_size=20)))))
    return Settings(
        game,
        players=draw(st.one_of(st.none(), st.integers(*PLAYERS[game]))),
        rounds=draw(st.one_of(st.none(), st.integers(low, high))),
        dealing=dealing, options=options,
        fairness_ms=draw(seconds(MAX_FAIRNESS_MS)), lag_cap_ms=draw(seconds(MAX_LAG_CAP_MS)),
        countdown=draw(seconds()), pause=draw(st.one_of(st.none(), seconds())),
        turn_timeout=draw(seconds()), rate_limit=draw(seconds()), rate_burst=draw(seconds()))


@hypothesis_settings(max_examples=200, deadline=None, derandomize=True)
@given(any_settings())
def test_settings_read_back_exactly_from_their_written_form(s: Settings) -> None:
    data = s.to_data()
    assert set(data) == {f.name for f in dataclasses.fields(Settings)}  # every field written
    assert Settings.from_data(data) == s


@hypothesis_settings(max_examples=25, deadline=None, derandomize=True)
@given(any_settings())
def test_settings_read_back_exactly_through_a_real_journal(tmp_path_factory, s: Settings) -> None:
    path = Path(tmp_path_factory.mktemp("j")) / "t.journal"
    writer = JournalWriter(path)
    Arbiter(s).attach_journal(writer, {"port": 7700, "pub_port": 7701})
    writer.close()
    assert host_settings(read_journal(path), path) == s


def test_secret_deals_are_written_as_such_and_never_read_as_a_seed() -> None:
    """``seed: None`` is written, never left out to be read as the default seed 0."""
    data = Settings("racko").to_data()
    assert data["dealing"] == {"kind": "secret"}
    back = Settings.from_data(data)
    assert back.dealing == Secret() and not back.seeded and back.seed is None
    assert back.public()["seeded"] is False


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Settings)])
def test_a_missing_setting_is_an_error_never_a_default(field: str) -> None:
    data = Settings("racing-demon", dealing=Seeded(4)).to_data()
    del data[field]
    with pytest.raises(SettingsError, match=f"settings without {field}"):
        Settings.from_data(data)


def test_an_unknown_setting_is_an_error() -> None:
    data = {**Settings("racko").to_data(), "colour": "blue"}
    with pytest.raises(SettingsError, match="does not know: colour"):
        Settings.from_data(data)


def test_version_2_s_host_config_is_read_by_its_named_migration() -> None:
    """Version 2 wrote ``seed`` (None: secret), and no brake: the migration supplies them."""
    old = {"game": "racko", "players": 2, "rounds": None, "seed": None, "options": {},
           "fairness_ms": 30.0, "countdown": 3.0, "pause": None, "turn_timeout": 30.0}
    s = settings_of({"v": 2, "config": old}, "journal")
    assert s.dealing == Secret() and s.pause is None and s.lag_cap_ms == 10.0
    assert (s.rate_limit, s.rate_burst) == (5000.0, 10000.0)
    assert settings_of({"v": 2, "config": {**old, "seed": 0}}, "journal").dealing == Seeded(0)
    with pytest.raises(Exception, match="does not know: seed"):  # not in version 3
        settings_of({"v": 3, "config": old}, "journal")


def test_the_options_in_force_are_the_settings_options() -> None:
    """``match.options`` in the journal was only what the host set; the settings hold every
    option of the game (RD-15's handicap, RG-2's default)."""
    assert dict(Settings("racing-demon").options) == {"handicap": True}
    assert dict(Settings("racing-demon-german").options) == {"handicap": False}
    with pytest.raises(SettingsError, match="has no option 'handicap'"):
        Settings("racko", options={"handicap": True})


def test_the_product_defaults_are_a_hosts() -> None:
    s = Settings("racing-demon")
    assert (s.dealing, s.pause, s.countdown, s.fairness_ms, s.lag_cap_ms) == \
        (Secret(), PAUSE, 3.0, 30.0, 10.0)
    assert PAUSE == 60.0


@pytest.mark.parametrize("change, words", [
    ({"lag_cap_ms": 250}, "RD-11: the lag cap is 0 to 100 ms, not 250"),
    ({"fairness_ms": -1}, "RD-11: the fairness window is 0 to 250 ms, not -1"),
    ({"countdown": math.nan}, "the countdown (seconds) is 0 or more, not nan"),
    ({"pause": -2}, "pause is 0 seconds or more, or None (no limit), not -2"),
    ({"dealing": 7}, "dealing is Seeded(seed) or Secret(), not 7"),
])
def test_a_bad_setting_is_one_line(change: dict, words: str) -> None:
    with pytest.raises(SettingsError) as err:
        Settings("racing-demon", **change)
    assert str(err.value) == words


def test_settings_are_frozen() -> None:
    s = Settings("racko")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.pause = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.options["x"] = 1  # type: ignore[index]
