"""``lan-demon arena`` run in this process, as the arena tests call it: its exit code and what
it printed, or the one JSON document ``--json`` prints."""

from __future__ import annotations

import json

from lan_demon.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["arena", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def arena_json(capsys, *argv: str, quiet: bool = False) -> dict:
    """``quiet``: stderr must be empty too (it is not a terminal here: no progress bar)."""
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    if quiet:
        assert err == ""
    return json.loads(out)  # stdout is exactly one JSON document
