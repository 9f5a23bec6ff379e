"""A table's settings: one frozen value, written whole and read back whole.

A host's settings are written in five places (the journal's host record, the restorer's list
of keys, the journal's comment, the public config, the command's defaults). Listed by hand in
each, one list leaves a field out, another reads a missing ``seed`` as "use the default 0", and
a crashed host without ``--seed`` comes back dealing every later round from seed 0 — public
deals, and a false alarm on every screen. So the settings have one written form, made from the
fields themselves:

* :class:`Settings` is frozen; :meth:`Settings.to_data` writes **every** field (``None``
  included) and :meth:`Settings.from_data` reads them back, refusing an unknown key and a
  missing one — unless a named migration of an older journal version supplies it
  (:data:`MIGRATIONS`), so that "missing" never quietly means "the default".
* How the deals are made is a type of its own, not ``seed=None``: :class:`Seeded` (every round
  from the seed: reproducible, so not secret) or :class:`Secret` (every round from a fresh
  secret the host commits to, mixed with every player's nonce; PROTOCOL.md §22).
* The defaults below are the product's (what ``lan-demon host`` uses when a flag is left out).
  Tests build theirs with a factory of their own (``tests/table_settings.py``), whose defaults
  are a test's (a seed, a short pause).

What is *not* here is not a setting of the match: the room code (a secret, said aloud, never
journaled), the table's CURVE key and the PUB endpoint (which the socket layer learns when it
binds) live on the arbiter.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

from lan_demon.games import BadConfig, get_game

FAIRNESS_MS = 30.0  # RD-11's window for contested plays (PROTOCOL.md §8)
MAX_FAIRNESS_MS = 250.0
#: RD-11: the most a move's claimed ``ts`` may precede its arrival, measured delay and tolerance
#: together, in ms (PROTOCOL.md §8): all a client that lies about its link can gain.
LAG_CAP_MS = 10.0
MAX_LAG_CAP_MS = 100.0
COUNTDOWN = 3.0  # seconds from the start (or a round's end) to Go
PAUSE = 60.0  # the longest wait between rounds: long enough to read the scores
#: How long a joining client (a person's, a bot's, a browser's seat) waits for the arbiter's
#: welcome before it says the host does not answer: a LAN's answer takes milliseconds.
CONNECT_TIMEOUT = 5.0
TURN_TIMEOUT = 30.0  # an absent player's Rack-O / Gin Solitaire turn is played after this
#: Messages per second one connection may send, and how many at once (PROTOCOL.md §10). A
#: flat-out bot sends ~1,000-2,000 a second (docs/benchmarks.md); 0 turns the limit off.
RATE_LIMIT = 5000.0
RATE_BURST = 2 * RATE_LIMIT  # as ``host --rate-limit N``'s bursts of 2N


class SettingsError(BadConfig):
    """Settings that cannot be: a bad value, or a written form this version cannot read."""


@dataclass(frozen=True)
class Seeded:
    """Every round dealt from the seed (PROTOCOL.md §21.1): the same deals on every run, and
    known to anyone who knows the seed — so the table says they are not secret."""

    seed: int | str

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, str)):
            raise SettingsError(f"a seed is a whole number or a word, not {self.seed!r}")

    def to_data(self) -> dict[str, Any]:
        return {"kind": "seeded", "seed": self.seed}


@dataclass(frozen=True)
class Secret:
    """Every round dealt from a fresh 256-bit host secret, committed to before the round and
    revealed after it, mixed with every player's nonce (PROTOCOL.md §22)."""

    def to_data(self) -> dict[str, Any]:
        return {"kind": "secret"}


Dealing = Seeded | Secret


def dealing_from_data(data: Any) -> Dealing:
    if isinstance(data, dict) and data.get("kind") == "secret" and set(data) == {"kind"}:
        return Secret()
    if isinstance(data, dict) and data.get("kind") == "seeded" and set(data) == {"kind", "seed"}:
        return Seeded(data["seed"])
    raise SettingsError(f"not a way of dealing: {data!r}")


def dealing_of(seed: int | str | None) -> Dealing:
    """A command line's ``--seed``: given, the seed's deals; left out, secret ones."""
    return Secret() if seed is None else Seeded(seed)


#: the settings that are a number from 0 up to a ceiling: (field, its name in words, ceiling)
_RANGES = (("fairness_ms", "RD-11: the fairness window", MAX_FAIRNESS_MS),
           ("lag_cap_ms", "RD-11: the lag cap", MAX_LAG_CAP_MS),
           ("countdown", "the countdown (seconds)", math.inf),
           ("turn_timeout", "the turn timeout (seconds)", math.inf),
           ("rate_limit", "the rate limit (tokens a second)", math.inf),
           ("rate_burst", "the rate limit's burst", math.inf))


@dataclass(frozen=True)
class Settings:
    """Everything a host decides about its table before anyone sits down, as one value."""

    game: str
    players: int | None = None  # start by itself when this many seats are filled and ready
    rounds: int | None = None  # None: the game's own length (Game.default_rounds)
    dealing: Dealing = field(default_factory=Secret)
    #: every option of the game, its default where the host set none (the options in force)
    options: Mapping[str, Any] = field(default_factory=dict)
    fairness_ms: float = FAIRNESS_MS
    lag_cap_ms: float = LAG_CAP_MS
    countdown: float = COUNTDOWN
    #: the longest wait between rounds for the people present to say ready; None: no limit (the
    #: next round waits for every present person); 0: at once
    pause: float | None = PAUSE
    turn_timeout: float = TURN_TIMEOUT
    rate_limit: float = RATE_LIMIT  # 0: no brake (benchmarks)
    rate_burst: float = RATE_BURST

    def __post_init__(self) -> None:
        game = get_game(self.game)  # an unknown game: BadConfig naming the known ones
        if self.players is not None:
            game.check_players(self.players)
        if self.rounds is not None:
            game.check_rounds(self.rounds)
        if not isinstance(self.dealing, (Seeded, Secret)):
            raise SettingsError(f"dealing is Seeded(seed) or Secret(), not {self.dealing!r}")
        merged = game.default_options()
        unknown = sorted(set(self.options) - set(merged))
        if unknown:
            raise SettingsError(f"{game.title} has no option {unknown[0]!r}; it has: "
                                f"{', '.join(sorted(merged)) or 'none'}")
        merged.update(self.options)
        object.__setattr__(self, "options", MappingProxyType(merged))
        for name, words, high in _RANGES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not 0 <= value <= high or math.isnan(value) or math.isinf(value):
                top = f"0 to {high:g}" if high != math.inf else "0 or more"
                shown = f"{value:g}" if isinstance(value, (int, float)) else repr(value)
                raise SettingsError(f"{words} is {top}{' ms' if name.endswith('_ms') else ''}, "
                                    f"not {shown}")
            object.__setattr__(self, name, float(value))
        if self.pause is not None:
            if isinstance(self.pause, bool) or not isinstance(self.pause, (int, float)) or \
                    not 0 <= self.pause < math.inf:
                raise SettingsError(f"pause is 0 seconds or more, or None (no limit), not "
                                    f"{self.pause!r}")
            object.__setattr__(self, "pause", float(self.pause))

    def __deepcopy__(self, memo: dict[int, Any]) -> Settings:
        return self  # frozen, its options a read-only view: nothing to copy

    def __reduce__(self) -> tuple[Any, ...]:
        return (Settings.from_data, (self.to_data(),))  # (a mapping proxy does not pickle)

    @property
    def seeded(self) -> bool:
        return isinstance(self.dealing, Seeded)

    @property
    def seed(self) -> int | str | None:
        """The seed of a seeded table; None at a table of secret deals."""
        return self.dealing.seed if isinstance(self.dealing, Seeded) else None

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    # --- the one written form ----------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        """Every field, by its name, ``None`` included: the journal's ``host.config``."""
        data: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "dealing":
                value = value.to_data()
            elif f.name == "options":
                value = dict(value)
            data[f.name] = value
        return data

    @classmethod
    def from_data(cls, data: Any, version: int = 0) -> Settings:
        """The settings :meth:`to_data` wrote. ``version``: the journal version that wrote
        them, when older than today's — its named migration (:data:`MIGRATIONS`) supplies
        what it did not write. Anything else missing, or a key this version does not know,
        is a :class:`SettingsError`."""
        if not isinstance(data, dict):
            raise SettingsError("the settings are not a map")
        for old, migrate in sorted(MIGRATIONS.items()):
            if version and version <= old:
                data = migrate(dict(data))
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(data) - set(names))
        missing = [n for n in names if n not in data]
        if unknown:
            raise SettingsError(f"settings this version of lan-demon does not know: "
                                f"{', '.join(unknown)}")
        if missing:
            raise SettingsError(f"settings without {', '.join(missing)}")
        values = dict(data)
        values["dealing"] = dealing_from_data(values["dealing"])
        if not isinstance(values["options"], dict):
            raise SettingsError("the settings' options are not a map")
        try:
            return cls(**values)
        except TypeError as err:
            raise SettingsError(f"bad settings ({err})") from None

    def public(self) -> dict[str, Any]:
        """What every client is told of them (the ``config`` of a welcome and a snapshot,
        PROTOCOL.md §4.4): the settings that shape play. ``seeded`` is fixed for the match."""
        return {"game": self.game, "players": self.players, "rounds": self.rounds,
                "options": dict(self.options), "fairness_ms": self.fairness_ms,
                "countdown": self.countdown, "pause": self.pause, "seeded": self.seeded}


def _from_version_2(data: dict[str, Any]) -> dict[str, Any]:
    """Journal version 2's host config: ``seed`` (None: secret deals) instead of ``dealing``;
    no ``rate_limit``/``rate_burst`` (its hosts braked at the defaults then, and a resumed one
    did too); ``lag_cap_ms`` missing before it was journaled (the fixed 10 ms then)."""
    if "dealing" not in data:
        seed = data.pop("seed", None)
        data["dealing"] = dealing_of(seed).to_data()
    data.setdefault("lag_cap_ms", LAG_CAP_MS)
    data.setdefault("rate_limit", RATE_LIMIT)
    data.setdefault("rate_burst", RATE_BURST)
    data.setdefault("options", {})
    return data


#: journal version -> what turns its host config into today's (applied in order, oldest first)
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {2: _from_version_2}

