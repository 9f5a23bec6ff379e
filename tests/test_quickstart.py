"""The README's quick start is two one-line commands that make and use a project-local
venv, so they work on an externally managed system Python (PEP 668), and .ci/run finds them.

The commands themselves are run for real by .ci/run, in a fresh clone, with /usr/bin/python3
first on PATH; these checks are the cheap part: the shape the README promises, and .ci/run's
own reading of it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"

pytestmark = pytest.mark.timeout(60)


def quick_start() -> list[str]:
    """The indented command lines of the README's "Quick start" section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines() if line.startswith("    ")]


def test_the_quick_start_is_two_one_line_commands_in_a_project_venv():
    play, tests = quick_start()
    for command in (play, tests):
        assert command.startswith("python3 -m venv .venv && .venv/bin/pip install -q ")
        # nothing reaches a system pip or a bare command on PATH: PEP 668 refuses those
        assert not re.search(r"(^|&& )(pip|python|python3 -m pip|lan-demon)\b", command)
    assert play.endswith(" && .venv/bin/lan-demon play")
    assert tests.endswith(" && .venv/bin/python -m pytest")
    assert "'.[test]'" in tests


def test_the_readme_says_how_to_come_back_and_how_to_leave():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert ".venv/bin/lan-demon play" in section and "source .venv/bin/activate" in section
    assert "`deactivate`" in section


def test_the_venv_is_ignored_by_git():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert ".venv/" in ignored


def ci_reads(what: str) -> str:
    """.ci/run's own readme_command, sourced out of it and run on the README."""
    script = CI.read_text(encoding="utf-8")
    func = re.search(r"^readme_command\(\) \{.*?^\}$", script, re.S | re.M)
    assert func, ".ci/run defines readme_command"
    out = subprocess.run(["bash", "-c", f'set -euo pipefail\n{func.group(0)}\n'
                          f'readme_command "$1"', "ci", what],
                         cwd=ROOT, capture_output=True, text=True, timeout=30, check=True)
    return out.stdout.strip()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
def test_ci_takes_both_commands_exactly_as_the_readme_writes_them():
    play, tests = quick_start()
    assert ci_reads("pytest") == tests
    assert ci_reads("lan-demon play") == play
    subprocess.run(["bash", "-n", str(CI)], check=True, timeout=30)
