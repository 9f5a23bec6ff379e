"""examples/raw_client.py: a client written from protocol/PROTOCOL.md alone plays a real match.

It runs as its own process against a live arbiter on 127.0.0.1, at a table with two lan_demon
bots, and must reach the match end with the arbiter's own final scores. Its mirror is built
only from the events as §18.4 describes them, and it checks every beat's state hash (§9): no
mismatch may occur, so the document's recipe is exact, not just good enough.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from table_settings import settings
from lan_demon.games import get_game
from lan_demon.net.codec import state_hash
from lan_demon.net.server import ArbiterServer
from net_harness import play_beside_bots

pytestmark = pytest.mark.timeout(90)

RAW_CLIENT = Path(__file__).resolve().parent.parent / "examples" / "raw_client.py"
ALLOWED = {"zmq", "msgpack"}


def imported_modules(path: Path) -> set[str]:
    """The top-level module of every import in a file, read from its syntax tree."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("" if node.level else (node.module or "").partition(".")[0])
    return names


def test_the_raw_client_imports_only_pyzmq_msgpack_and_the_standard_library():
    modules = imported_modules(RAW_CLIENT)
    assert "lan_demon" not in modules and "" not in modules  # no relative imports either
    assert {"zmq", "msgpack"} <= modules
    assert modules - ALLOWED <= set(sys.stdlib_module_names), modules - ALLOWED


def test_rd14_the_raw_client_plays_racing_demon_to_the_end_with_lan_demon_bots(context):
    """Two rounds for three seats; the raw client's printed totals are the arbiter's (RD-14);
    its mirror, kept by §18.4's events alone, ends equal to the table (same state hash, §9),
    and no beat's hash it checked on the way differed."""
    server = ArbiterServer(settings("racing-demon", players=3, rounds=2, seed=21, countdown=0,
                                  pause=0), port=0, context=context).start()
    try:
        code, out, err = play_beside_bots([str(RAW_CLIENT), f"127.0.0.1:{server.port}",
                                           "--name", "Raw", "--pace", "0.01"], server, context)
    finally:
        server.stop()
    assert code == 0, f"stdout:\n{out}\nstderr:\n{err}"
    totals = server.arbiter.result["totals"]
    assert set(totals) == {"Raw", "bot0", "bot1"}
    assert f"final scores: {', '.join(f'{n} {p}' for n, p in totals.items())}" in out
    game = get_game("racing-demon")
    public = game.state_to_data(game.redact(server.arbiter.state, None))
    assert f"public mirror hash {state_hash(public)} at update" in err
    stats = dict((k, int(v)) for k, v in re.findall(r"(\w+) (\d+)", err.splitlines()[-1]))
    assert stats["moves"] > 0 and stats["hash_bad"] == 0, err


def test_the_raw_client_rejects_a_bad_address_with_one_line():
    proc = subprocess.run([sys.executable, str(RAW_CLIENT), "nowhere"], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2
    assert "not an address" in proc.stderr and "Traceback" not in proc.stderr
