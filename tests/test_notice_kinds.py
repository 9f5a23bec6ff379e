"""A client's notice kinds are an enum whose members are exactly the kinds the package emits,
and a kind still reads, compares and serialises as its plain word."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from lan_demon.net.notices import Notice, NoticeKind

pytestmark = pytest.mark.timeout(30)

PACKAGE = Path(__file__).resolve().parent.parent / "lan_demon"


def emitted_kinds() -> dict[str, list[str]]:
    """Each kind the package's code names when it makes a notice — a ``NoticeKind`` member
    or a plain word given to ``Notice(...)`` — and where."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "notices.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            kind = None
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id == "NoticeKind":
                member = NoticeKind.__members__.get(node.attr)
                kind = member.value if member is not None else node.attr
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id == "Notice" and node.args and \
                    isinstance(node.args[0], ast.Constant):
                kind = str(node.args[0].value)
            if kind is not None:
                found.setdefault(kind, []).append(f"{path.name}:{node.lineno}")
    return found


def test_every_kind_emitted_is_a_member_and_every_member_is_emitted():
    emitted = emitted_kinds()
    assert set(emitted) <= {k.value for k in NoticeKind}, emitted
    assert {k.value for k in NoticeKind} <= set(emitted)


def test_gone_and_move_are_kinds():
    assert NoticeKind("gone") is NoticeKind.GONE and NoticeKind("move") is NoticeKind.MOVE


def test_a_kind_given_as_its_word_is_the_member_and_an_unknown_word_is_refused():
    notice = Notice("round_end", data={"round": 0})
    assert notice.kind is NoticeKind.ROUND_END
    with pytest.raises(ValueError):
        Notice("reconnected")  # a seat's event, not a client's notice


def test_a_kind_compares_hashes_and_serialises_as_its_word():
    kind = Notice(NoticeKind.STALL_OVER).kind
    assert kind == "stall_over" and kind in ("stall", "stall_over")
    assert {"stall_over": 1}[kind] == 1
    assert f"{kind}" == "stall_over" and json.dumps({"kind": kind}) == '{"kind": "stall_over"}'
