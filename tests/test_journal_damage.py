"""Issue 30, items 2 and 3: resume never destroys data. One flipped bit in the middle of a
journal was read as a torn last record and the file was cut there; a disk that could not take
the ``resumed`` record printed a traceback. Journals come from the pure arbiter driven by
greedy bots on a fake clock (tests/test_crash.py's ``play_uncrashed``); resumes go through the
same functions ``host --resume`` uses, without sockets."""

from __future__ import annotations

import sys
from pathlib import Path

import msgpack
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_crash import play_uncrashed  # noqa: E402

from lan_demon.net.journal import JournalError, JournalWriter, read_journal  # noqa: E402
from lan_demon.net.recovery import restore, take_up  # noqa: E402

pytestmark = pytest.mark.timeout(60)
PORTS = {"port": 7310, "pub_port": 7311}


def record_spans(data: bytes) -> list[tuple[int, int, dict]]:
    """(start, end, record) of each whole record."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    spans, start = [], 0
    for record in unpacker:
        spans.append((start, unpacker.tell(), record))
        start = unpacker.tell()
    return spans


def resume_file(path: Path) -> None:
    """What ``host --resume`` does to the file, without sockets: read, restore, open the
    writer (which cuts a torn tail) and write the ``resumed`` record."""
    read = read_journal(path)
    restored = restore(read, 5000.0, path)
    writer = JournalWriter(path, keep=read.size)
    try:
        restored.arbiter.attach_journal(writer, PORTS)
        take_up(restored, 5000.0)
    finally:
        writer.close()


@pytest.fixture(scope="module")
def demon(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole Racing Demon match (2 seats, 2 rounds)."""
    path = tmp_path_factory.mktemp("demon") / "demon.journal"
    play_uncrashed(path, "racing-demon", 2, 7)
    return path


def copy_of(path: Path, tmp_path: Path, data: bytes | None = None) -> Path:
    target = tmp_path / path.name
    target.write_bytes(path.read_bytes() if data is None else data)
    secret = Path(str(path) + ".secret")
    Path(str(target) + ".secret").write_bytes(secret.read_bytes())
    return target


def test_issue_case_a_float_marker_flipped_mid_journal_refuses_and_keeps_the_file(
        demon, tmp_path):
    """The issue's exact case: a float marker 0xcb flipped to 0x4b inside a move record in
    the middle of a finished journal — here every float marker of every move record in its
    second half, in turn (three of them were read as a torn last record, and the file was
    cut there). Resume refuses in one line naming the record; the file is left as it was."""
    data = demon.read_bytes()
    spans = record_spans(data)
    flips = [(at, number) for number, (start, end, record) in enumerate(spans, 1)
             if record["j"] == "move" and start > len(data) // 2
             for at in range(start, end) if data[at] == 0xcb]
    assert len(flips) > 100
    for at, number in flips:
        flipped = bytearray(data)
        flipped[at] = 0x4b
        path = copy_of(demon, tmp_path, bytes(flipped))
        with pytest.raises(JournalError) as refused:
            resume_file(path)
        line = str(refused.value)
        assert "\n" not in line and f"record {number} (move) is damaged" in line, (at, line)
        assert path.read_bytes() == bytes(flipped), at
