"""No private name is reached across modules in ``lan_demon/``.

A leading underscore says "only this module uses it": the module may then change it freely.
That stays true only when nothing else reaches it, which the import graph in
``test_layers.py`` cannot see — an attribute is not an import. So the source is read (the AST)
for three ways one module reaches another's private name:

* ``x._name`` where ``x`` is not ``self`` or ``cls`` (another object's private state);
* ``self._name``, ``cls._name`` or ``super()._name`` where ``_name`` is defined nowhere in the
  same module (a subclass reaching its base's private state, or a function bound from
  elsewhere);
* ``from m import _name``.

Dunder names (``__init__``) are public protocol, not private.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(30)

PACKAGE = Path(__file__).resolve().parent.parent / "lan_demon"


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def defined_in(tree: ast.AST) -> set[str]:
    """Every name the module defines: functions, classes, assigned names, parameters, and
    attributes it assigns on ``self`` or ``cls``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                _is_own(node.value):
            names.add(node.attr)
    return names


def _is_own(value: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the object whose class this module may define."""
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
        value.func.id == "super"


def reaches(source: str, base_names: dict[str, set[str]] | None = None
            ) -> list[tuple[int, str]]:
    """(line, what) for each private name of another module that ``source`` reaches.
    ``base_names``: for each class it imports from another module of ours, the names that
    module defines: a subclass's ``self._name`` of one of those is its base's private state."""
    tree = ast.parse(source)
    mine = defined_in(tree)
    inherited = _inherited(tree, base_names or {})
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            own = _is_own(node.value)
            if not own or node.attr not in mine or node.attr in inherited.get(id(node), ()):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom):
            found.extend((node.lineno, f"from {node.module} import {a.name}")
                         for a in node.names if private(a.name))
    return found


def _inherited(tree: ast.AST, base_names: dict[str, set[str]]) -> dict[int, set[str]]:
    """For each attribute node inside a class with a base from another module of ours, the
    names that base's module defines."""
    found: dict[int, set[str]] = {}
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        names = set().union(*(base_names.get(b.id, set()) for b in cls.bases
                              if isinstance(b, ast.Name)))
        if names:
            for node in ast.walk(cls):
                if isinstance(node, ast.Attribute):
                    found[id(node)] = names
    return found


def _imported_classes(tree: ast.AST, package: Path) -> dict[str, Path]:
    """Names imported by ``from lan_demon.x import Name`` -> the module file they come from."""
    found: dict[str, Path] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level and \
                node.module.split(".")[0] == package.name:
            path = package.parent.joinpath(*node.module.split(".")).with_suffix(".py")
            if path.exists():
                found.update((a.asname or a.name, path) for a in node.names)
    return found


def uses(package: Path) -> dict[str, list[int]]:
    """``"path: what"`` -> the lines it is on, over every module under ``package``."""
    defined = {path: defined_in(ast.parse(path.read_text(encoding="utf-8")))
               for path in sorted(package.rglob("*.py"))}
    seen: dict[str, list[int]] = {}
    for path in defined:
        where = path.relative_to(package.parent).as_posix()
        source = path.read_text(encoding="utf-8")
        bases = {name: defined[origin] for name, origin in
                 _imported_classes(ast.parse(source), package).items() if origin != path}
        for line, what in reaches(source, bases):
            seen.setdefault(f"{where}: {what}", []).append(line)
    return seen


def test_the_checker_sees_each_way_of_reaching_a_private_name(tmp_path: Path) -> None:
    """The checker itself, on a tiny tree: what it must find and what it must leave alone."""
    package = tmp_path / "lan_demon"
    package.mkdir()
    (package / "base.py").write_text(
        "class Base:\n"
        "    def __init__(self):\n        self._mine = 1\n        self.__mangled = 2\n"
        "    def _helper(self):\n        return self._mine + self.__mangled\n"
        "    def __repr__(self):\n        return 'Base'\n")
    (package / "child.py").write_text(
        "from lan_demon.base import Base, _hidden\n"
        "class Child(Base):\n"
        "    def _own(self):\n        return self._own_state\n"
        "    def __init__(self):\n        super().__init__()\n        self._own_state = 0\n"
        "    def poke(self, other):\n"
        "        self._mine = 2\n        super()._helper()\n        return other._mine\n"
        "    def fine(self):\n        return self._own() + self.__class__.__name__.count('')\n")
    found = uses(package)
    assert set(found) == {
        "lan_demon/child.py: from lan_demon.base import _hidden",
        "lan_demon/child.py: self._mine",
        "lan_demon/child.py: super()._helper",
        "lan_demon/child.py: other._mine",
    }
    assert found["lan_demon/child.py: self._mine"] == [9]


def test_no_private_name_is_reached_across_modules() -> None:
    found = uses(PACKAGE)
    wrong = [f"{what} (line {', '.join(map(str, lines))})" for what, lines in sorted(found.items())]
    assert not wrong, "private names reached from another module:\n" + "\n".join(wrong)
