"""Settings for test tables: the test suite's defaults, not the product's (which are a host's,
:mod:`lan_demon.net.settings`) — a seeded deal (seed 0) unless a test asks for secret ones, a
10-second pause between rounds."""

from __future__ import annotations

from typing import Any

from lan_demon.net.settings import Settings, dealing_of


def settings(game: str, seed: int | str | None = 0, **changes: Any) -> Settings:
    """A test table's settings: ``seed`` None deals secretly (committed and revealed)."""
    values: dict[str, Any] = {"pause": 10.0, **changes}
    return Settings(game, dealing=dealing_of(seed), **values)
