"""The user's state folder is private (issue 27): lan_demon makes every missing folder from
``$XDG_STATE_HOME`` down 0700, whatever the umask (:func:`lan_demon.net.tokens.private_dir`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lan_demon.net.tokens import TokenStore

pytestmark = pytest.mark.timeout(60)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_missing_state_folders_are_made_0700_whatever_the_umask(tmp_path, monkeypatch, umask):
    """A missing $XDG_STATE_HOME and its missing parents are the user's private state too; the
    folder above them that already existed keeps its mode."""
    tmp_path.chmod(0o755)
    state = tmp_path / "a" / "b"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    old = os.umask(umask)
    try:
        store = TokenStore("tcp://127.0.0.1:7700", "Ann")
        claimed, _ = store.claim()
        store.release()
    finally:
        os.umask(old)
    assert claimed
    for folder in (tmp_path / "a", state, state / "lan_demon", state / "lan_demon" / "tokens"):
        assert mode(folder) == 0o700, folder
    assert mode(tmp_path) == 0o755  # it existed: not ours to change


def test_without_xdg_state_home_the_missing_local_state_folders_are_0700(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o751)
    home.chmod(0o751)
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(home))
    old = os.umask(0o000)
    try:
        store = TokenStore("tcp://127.0.0.1:7700", "Ann")
        store.claim()
        store.release()
    finally:
        os.umask(old)
    assert [mode(home / p) for p in (".local", ".local/state", ".local/state/lan_demon",
                                     ".local/state/lan_demon/tokens")] == [0o700] * 4
    assert mode(home) == 0o751
