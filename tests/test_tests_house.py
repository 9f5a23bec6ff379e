"""The tests' own house rules, read from their source (the AST), as tests/test_layers.py reads
lan_demon's: a test module imports no other test module (what two of them share lives in a helper
module or in conftest.py, so that running, moving or renaming one never runs or breaks another),
nor a helper module's private name; a test file or test function is named after what it checks,
never after the issue, item or contract number that asked for it (the history is in the commit that
added it); and an assert or a waited-for condition that mixes ``or`` and ``and`` says with brackets
which it means (``A and B or C`` passes on ``C`` alone)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(30)

TESTS = Path(__file__).resolve().parent
#: A number of the project's history in a name: test_issue11_…, test_item4_…, …_contract5_…
NUMBERED = re.compile(r"(?:^|_)(?:issue|item|contract)s?_?\d|(?:^|_)issue_case(?:_|$)")


def modules() -> list[Path]:
    return sorted(TESTS.glob("*.py"))


def is_test_module(name: str) -> bool:
    return name == "conftest" or name.startswith("test_")


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """Every module an ``import`` or ``from … import`` names, with its line (those inside
    functions too: a late import ties two modules together all the same)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def unbracketed_or_of_and(source: str, tree: ast.AST) -> list[int]:
    """Lines of an ``or`` one of whose sides is an unbracketed ``and``, inside an ``assert``
    or a ``lambda`` (the conditions a test waits for)."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    found = []
    checked = [n for n in ast.walk(tree) if isinstance(n, (ast.Assert, ast.Lambda))]
    for top in checked:
        for node in ast.walk(top):
            if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)):
                continue
            for side in node.values:
                if not (isinstance(side, ast.BoolOp) and isinstance(side.op, ast.And)):
                    continue
                at = starts[side.lineno - 1] + side.col_offset - 1
                while at >= 0 and source[at] in " \t\n\\":
                    at -= 1
                if at < 0 or source[at] != "(":
                    found.append(side.lineno)
    return sorted(set(found))


def test_no_test_module_imports_another():
    """conftest.py is pytest's plugin, loaded by pytest, and a test module is collected by
    pytest: importing either runs it a second time under another name."""
    wrong = [f"{path.name}:{line} imports {name}"
             for path in modules()
             for line, name in imported(ast.parse(path.read_text(encoding="utf-8")))
             if is_test_module(name.split(".")[0])]
    assert not wrong, "move what is shared to a helper module or conftest.py:\n" + \
        "\n".join(wrong)


def test_no_private_name_is_imported_from_a_helper_module():
    """A helper module's ``_name`` is its own business: what a test may use has a public
    name (tests/lan_harness.py's ``in_ns``, not test_discovery's ``_in_ns``)."""
    local = {path.stem for path in modules()}
    wrong = [f"{path.name}:{node.lineno} imports {alias.name} from {node.module}"
             for path in modules()
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.ImportFrom) and node.module in local
             for alias in node.names if alias.name.startswith("_")]
    assert not wrong, "\n".join(wrong)


def test_test_files_and_functions_are_named_for_what_they_check():
    wrong = [path.name for path in modules() if NUMBERED.search(path.stem)]
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        wrong += [f"{path.name}:{node.lineno} {node.name}" for node in ast.walk(tree)
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and NUMBERED.search(node.name)]
    assert not wrong, "name these after what they check:\n" + "\n".join(wrong)


def test_asserts_and_waits_bracket_an_and_inside_an_or():
    wrong = []
    for path in modules():
        source = path.read_text(encoding="utf-8")
        wrong += [f"{path.name}:{line}"
                  for line in unbracketed_or_of_and(source, ast.parse(source))]
    assert not wrong, "say which is meant, (A and B) or C, with brackets:\n" + "\n".join(wrong)


@pytest.mark.parametrize("source, lines", [
    ("assert a and b or c\n", [1]),
    ("assert (a and b) or c\n", []),
    ("assert a and (b or c)\n", []),
    ("wait(lambda s: 'x' in s\n     and 'y' in s or 'z' in s)\n", [1]),
    ("x = a and b or c\n", []),  # not a check: left to whoever reads it
])
def test_the_bracket_check_sees_what_it_means_to(source, lines):
    assert unbracketed_or_of_and(source, ast.parse(source)) == lines


@pytest.mark.parametrize("name, numbered", [
    ("test_item4_a_frame_is_capped", True), ("test_issue11_hostile", True),
    ("test_item7_item9_a_journal", True), ("test_issue_case_a_flip", True),
    ("test_contract5_the_board_stays", True), ("test_a_seat_is_kept_for_5_minutes", False),
    ("test_rd11_races_by_arrival", False), ("test_the_items_in_a_hand", False),
])
def test_the_name_check_tells_a_number_of_history_from_a_rule_id(name, numbered):
    assert bool(NUMBERED.search(name)) is numbered
