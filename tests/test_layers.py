"""The house's layers, drawn from its own imports, so that they stay true.

    games/  (pure rule engines)
      ^
    net/    (codec, arbiter, server, client)
      ^
    seat/   (what a seat is told and may do, decided once for every screen)
      ^
    bots/   tui/   web/   (players: never each other)
      ^
    coach/  (reviews and advice: what the bots would do, from a seat's view)
      ^
    cli.py  commands/   (the lan-demon command; nothing imports it, and it hands the TUI its
                         coach, as the TUI imports no bot)

Every ``import`` statement in ``lan_demon/`` is read from the source (the AST), including those
inside functions and under ``if TYPE_CHECKING:``: an import that only runs late still ties two
rooms together for whoever reads or moves them. The checks are a direction (each layer imports
only the layers below it), no circle at all (a strongly connected set of two or more modules),
and no room too big to hold in mind.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(30)

PACKAGE = Path(__file__).resolve().parent.parent / "lan_demon"

#: What each layer may import of ours, besides itself.
ALLOWED = {
    "games": set(),
    "net": {"games"},
    "seat": {"games", "net"},
    "bots": {"games", "net", "seat"},
    "tui": {"games", "net", "seat"},
    "web": {"games", "net", "seat"},
    "coach": {"games", "net", "bots", "seat"},
    "commands": {"games", "net", "seat", "bots", "tui", "web", "coach", "root"},
    "root": {"games", "net", "seat", "bots", "tui", "web", "coach", "commands"},  # cli etc.
}

#: Lines a module may have before its docstring must say why it is one piece.
MOST_LINES = 500


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ours that ``path`` imports: ``from lan_demon.x import y`` counts
    ``lan_demon.x.y`` when that is a module, else ``lan_demon.x``; relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "lan_demon")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "lan_demon":
                continue
            subs = {f"{target}.{a.name}" for a in node.names} & known
            found.update(subs or {target})
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def layer(name: str) -> str:
    parts = name.split(".")
    if len(parts) == 1 or parts[1] in ("cli", "__main__"):
        return "root"
    return parts[1] if parts[1] in ALLOWED else "root"


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of two or more modules (or one importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_imports_inside_functions_and_type_checking(tmp_path: Path) -> None:
    """The checker itself: a late import and a TYPE_CHECKING one are both edges."""
    source = tmp_path / "lan_demon" / "net" / "late.py"
    source.parent.mkdir(parents=True)
    source.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from lan_demon.tui import table\n"
                      "def f():\n    from lan_demon.bots.runner import run_pool\n"
                      "from . import codec\n")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "lan_demon"
    try:
        found = imports_of("lan_demon.net.late", source,
                           {"lan_demon.tui.table", "lan_demon.net.codec"})
    finally:
        PACKAGE = saved
    assert found == {"lan_demon.tui.table", "lan_demon.bots.runner", "lan_demon.net.codec"}
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_each_layer_imports_only_the_layers_below_it() -> None:
    """games <- net <- bots, tui (never each other) <- commands; nothing imports a command."""
    wrong = []
    for name, deps in sorted(graph().items()):
        mine = layer(name)
        for dep in sorted(deps):
            theirs = layer(dep)
            if theirs != mine and theirs not in ALLOWED[mine]:
                wrong.append(f"{name} ({mine}) imports {dep} ({theirs})")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_no_import_circle_anywhere() -> None:
    found = circles(graph())
    assert not found, "import circles: " + "; ".join(" -> ".join(c) for c in found)


def test_no_room_too_big_to_hold_in_mind() -> None:
    """A module over ~500 lines says in its docstring why it must be one piece ("one piece")."""
    big = []
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        doc = ast.get_docstring(ast.parse(text)) or ""
        if lines > MOST_LINES and "one piece" not in doc:
            big.append(f"{name}: {lines} lines")
    assert not big, "modules too big, with no word on why:\n" + "\n".join(big)


def test_nothing_is_re_exported_for_older_callers() -> None:
    said = [name for name, path in modules().items()
            if "older callers" in path.read_text(encoding="utf-8")]
    assert not said, f"re-exports kept for older callers in: {said}"
