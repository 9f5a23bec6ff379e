"""Resume never destroys data. One flipped bit in the middle of a
journal was read as a torn last record and ``host --resume`` cut the file there; a disk that
could not take the ``resumed`` record printed a traceback. Journals come from the pure arbiter
driven by greedy bots on a fake clock (tests/journal_harness.py); resumes go through the functions
``host --resume`` uses (:func:`resume_file`, without sockets, and ``main`` once); a full disk
is an injected write error (``journal._write_all`` failing part-way), never a real one."""

from __future__ import annotations

import errno
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from journal_harness import finish_from, moves_of, play_uncrashed, tokens_of  # noqa: E402

from lan_demon.cli import main  # noqa: E402
from lan_demon.net import journal as journal_module  # noqa: E402
from lan_demon.net import journal_frames  # noqa: E402
from lan_demon.net import record as record_module  # noqa: E402
from lan_demon.net.audit import verify  # noqa: E402
from lan_demon.net.journal import JournalError, JournalWriter, read_journal  # noqa: E402
from lan_demon.net.recovery import restore, take_up  # noqa: E402

pytestmark = pytest.mark.timeout(60)
PORTS = {"port": 7310, "pub_port": 7311}
NOW = 5000.0


def record_spans(data: bytes) -> list[tuple[int, int, dict]]:
    """(start, end, record) of each whole record."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    spans, start = [], 0
    for record in unpacker:
        spans.append((start, unpacker.tell(), record))
        start = unpacker.tell()
    return spans


def resume_file(path: Path) -> dict[str, Any]:
    """What ``host --resume`` does to the file, without sockets (recovery.resume less the
    server): read, restore, open the writer (which cuts a torn tail) and take up (which writes
    the ``resumed`` record). Returns the resumed arbiter's durable state."""
    read = read_journal(path)
    restored = restore(read, NOW, path)
    writer = JournalWriter(path, keep=read.size)
    try:
        restored.arbiter.attach_journal(writer, PORTS)
        take_up(restored, NOW)
        return restored.arbiter.durable()
    finally:
        writer.close()


def copy_of(path: Path, tmp_path: Path, data: bytes | None = None, name: str = "") -> Path:
    """The journal (or ``data`` in its place) and its secrets file, under ``tmp_path``."""
    target = tmp_path / (name or path.name)
    target.write_bytes(path.read_bytes() if data is None else data)
    Path(f"{target}.secret").write_bytes(Path(f"{path}.secret").read_bytes())
    return target


def put_byte(path: Path, at: int, value: int) -> None:
    """One byte of the file changed in place (quicker than writing it again, which
    truncates)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, bytes([value]), at)
    finally:
        os.close(fd)


def torn_copies(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".torn*"))


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole Rack-O match (2 seats, 3 rounds: a small journal, so that many resumes of it
    are quick), its host paused now and then, crashed once mid-round and resumed: every kind
    of record a seeded table writes, ``pause``, ``resume`` and ``resumed`` among them."""
    folder = tmp_path_factory.mktemp("small")
    full = folder / "full.journal"
    play_uncrashed(full, "racko", 2, 3, pauses=random.Random(3))
    data = full.read_bytes()
    spans = record_spans(data)
    cut = spans[[r["j"] for _, _, r in spans].index("move") + 40][1]
    path = folder / "small.journal"
    path.write_bytes(data[:cut])
    Path(f"{path}.secret").write_bytes(Path(f"{full}.secret").read_bytes())
    finish_from(path, moves_of(full), ["bot0", "bot1"], tokens_of(full))
    return path


# --- a flipped bit is damage, never a torn record ------------------------------------------------


@pytest.fixture(scope="module")
def version_3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole Racing Demon match journaled as lan-demon wrote before checksums (version 3,
    the format of the damaged journal that asked for this): a resumed one goes on in it."""
    path = tmp_path_factory.mktemp("v3") / "v3.journal"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(record_module, "JOURNAL_VERSION", 3)
        play_uncrashed(path, "racing-demon", 2, 7)
    read = read_journal(path)
    assert read.version == 3 and not read.checksums
    return path


@pytest.mark.parametrize("journal", ["version_3", "small"])
def test_a_float_marker_flipped_mid_journal_refuses_and_keeps_the_file(
        journal, request, tmp_path):
    """The case seen in the field: a float marker 0xcb flipped to 0x4b inside a move record in
    the middle of a finished journal — here every float marker of every move record in its
    second half, in turn, in a version 3 journal and a version 4 one. Some leave bytes the
    decoder runs out of data in, which were read as a torn last record (the file was cut
    there). Resume refuses in one line naming the record; the file is left as it was."""
    original = request.getfixturevalue(journal)
    data = original.read_bytes()
    spans = record_spans(data)
    flips = [(at, number) for number, (start, end, record) in enumerate(spans[:-1], 1)
             if record["j"] == "move" and start > len(data) // 2
             for at in range(start, end) if data[at] == 0xcb]
    assert len(flips) > 100
    looked_torn = 0
    path = copy_of(original, tmp_path)
    for at, number in flips:
        flipped = bytearray(data)
        flipped[at] = 0x4b
        whole, stopped = journal_frames._spans(bytes(flipped))
        looked_torn += not stopped and whole[-1][1] < len(data)
        put_byte(path, at, 0x4b)
        with pytest.raises(JournalError) as refused:
            resume_file(path)
        line = str(refused.value)
        # (version 3: an edit the chain finds names the record before the one it broke)
        assert "\n" not in line and (f"record {number} (move) is damaged" in line or
                                     f"record {number} was edited" in line), (at, line)
        assert path.read_bytes() == bytes(flipped) and not torn_copies(path), at
        put_byte(path, at, 0xcb)
    if journal == "version_3":  # it holds three of them
        assert looked_torn, "none of the flips was the case seen in the field"


def test_every_single_bit_flip_refuses_or_resumes_exactly_and_never_shortens(
        small, tmp_path):
    """600 single-bit flips (seeded), 40 in records of each kind the journal holds and the
    rest anywhere: resume either refuses in one line naming a record, the file byte for byte
    as it was, or resumes to exactly the state resumed from the undamaged journal. (With
    version 4's checksums every one of them is refused.)"""
    data = small.read_bytes()
    spans = record_spans(data)
    kinds = Counter(r["j"] for _, _, r in spans)
    assert set(kinds) >= {"host", "seat", "ready", "seq", "match", "countdown", "round", "move",
                          "round_end", "match_end", "pause", "resume", "resumed"}, kinds
    exact = resume_file(copy_of(small, tmp_path, name="undamaged.journal"))
    rng = random.Random(30)
    by_kind: dict[str, list[tuple[int, int]]] = {}
    for start, end, record in spans:
        by_kind.setdefault(record["j"], []).append((start, end))
    bits = []
    for kind in sorted(by_kind):
        for _ in range(40):
            start, end = rng.choice(by_kind[kind])
            bits.append(rng.randrange(start * 8, end * 8))
    bits += [rng.randrange(len(data) * 8) for _ in range(600 - len(bits))]
    assert len(bits) >= 500
    path = copy_of(small, tmp_path)
    refused = Counter()
    began = time.perf_counter()
    for bit in bits:
        flipped = bytearray(data)
        flipped[bit // 8] ^= 1 << (bit % 8)
        put_byte(path, bit // 8, flipped[bit // 8])
        try:
            state = resume_file(path)
        except JournalError as err:
            line = str(err)
            assert "\n" not in line and " record " in line, (bit, line)
            assert path.read_bytes() == flipped and not torn_copies(path), bit
            refused[line.split(": ", 1)[1].split(" is ", 1)[0]] += 1
            put_byte(path, bit // 8, data[bit // 8])
            continue
        assert state == exact, bit
        after = path.read_bytes()
        assert len(after) > len(flipped) and after.startswith(flipped), bit
        path.write_bytes(data)
    took = time.perf_counter() - began
    assert sum(refused.values()) == len(bits), refused  # version 4: every flip is found
    print(f"\n{len(bits)} flips over {len(kinds)} kinds ({', '.join(sorted(kinds))}): "
          f"{sum(refused.values())} refused, in {took:.2f} s")


# --- a genuinely torn last record ----------------------------------------------------------------


def test_a_torn_last_record_is_left_out_and_the_whole_journal_kept_beside_it(small, tmp_path):
    """Cut anywhere inside its last record (a crash mid-write): resume leaves the record out,
    after copying the whole file to <journal>.torn, byte for byte; a second torn resume keeps
    the first copy and makes .torn-2."""
    data = small.read_bytes()
    start, end, _ = record_spans(data)[-1]
    for cut in sorted({start + 1, start + (end - start) // 2, end - 5, end - 1}):
        folder = tmp_path / str(cut)
        folder.mkdir()
        path = copy_of(small, folder, data[:cut])
        resume_file(path)
        (copy,) = torn_copies(path)
        assert copy.name == path.name + ".torn" and copy.read_bytes() == data[:cut]
        assert copy.stat().st_mode & 0o777 == 0o600
        after = read_journal(path)
        resumed = after.records[len(record_spans(data)) - 1]
        assert not after.torn and resumed["j"] == "resumed" and resumed["torn"] is True
        assert path.read_bytes().startswith(data[:start])
    again = path.read_bytes()
    path.write_bytes(again + b"\x8a")  # torn again, after the resume
    resume_file(path)
    assert [p.name for p in torn_copies(path)] == [path.name + ".torn", path.name + ".torn-2"]
    assert torn_copies(path)[1].read_bytes() == again + b"\x8a"


# --- a disk that cannot take the resume -----------------------------------------------------------


class FailingDisk:
    """``journal._write_all`` failing with ``code`` for files whose name ends with ``suffix``,
    after writing ``part`` bytes of what it was given (a disk that filled up mid-write), the
    first ``times`` times (then the space cut off is there again)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, suffix: str, code: int,
                 part: int = 7, times: int = 1):
        self.suffix, self.code, self.part, self.times = suffix, code, part, times
        self.failed = 0
        self.real = journal_module._write_all
        monkeypatch.setattr(journal_module, "_write_all", self)

    def __call__(self, fd: int, data: bytes) -> None:
        if self.failed == self.times or \
                not os.readlink(f"/proc/self/fd/{fd}").endswith(self.suffix):
            return self.real(fd, data)
        self.failed += 1
        self.real(fd, data[:self.part])
        raise OSError(self.code, os.strerror(self.code))


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EIO])
@pytest.mark.parametrize("torn", [False, True], ids=["whole", "torn"])
def test_a_disk_that_cannot_take_the_resumed_record_refuses_and_changes_nothing(
        small, tmp_path, monkeypatch, code, torn):
    """The ``resumed`` record cannot be written (a part of it was): refused in one line, and
    the journal is byte for byte as it was — a torn tail cut before is put back, its copy
    removed."""
    data = small.read_bytes()
    if torn:
        data = data[:record_spans(data)[-1][1] - 3]
    path = copy_of(small, tmp_path, data)
    disk = FailingDisk(monkeypatch, path.name, code)
    with pytest.raises(JournalError) as refused:
        resume_file(path)
    line = str(refused.value)
    assert disk.failed == 1 and "\n" not in line, line
    assert line == f"cannot resume: cannot write the journal {str(path)!r}: " \
        f"{os.strerror(code)}; the journal is left as it was", line
    assert path.read_bytes() == data and not torn_copies(path)


def test_a_torn_tail_that_cannot_be_put_back_is_kept_in_its_copy(small, tmp_path,
                                                                 monkeypatch):
    """The disk still full when the torn tail cut for the resume is to be written back: the
    journal keeps its whole records, the copy keeps the whole file, and the line says where."""
    data = small.read_bytes()[:-3]
    path = copy_of(small, tmp_path, data)
    FailingDisk(monkeypatch, path.name, errno.ENOSPC, times=2)
    with pytest.raises(JournalError) as refused:
        resume_file(path)
    assert str(refused.value).endswith(
        f"No space left on device; its torn last record could not be put back: the whole "
        f"journal is kept in {str(path) + '.torn'!r}"), refused.value
    assert Path(f"{path}.torn").read_bytes() == data
    assert path.read_bytes() == data[:record_spans(data)[-1][1]]


def test_a_disk_that_cannot_take_the_torn_copy_refuses_and_changes_nothing(
        small, tmp_path, monkeypatch):
    data = small.read_bytes()[:-3]
    path = copy_of(small, tmp_path, data)
    disk = FailingDisk(monkeypatch, ".torn", errno.ENOSPC)
    with pytest.raises(JournalError) as refused:
        resume_file(path)
    line = str(refused.value)
    assert disk.failed == 1 and "\n" not in line and line.endswith(
        f"the whole journal must be copied to {str(path) + '.torn'!r} before it is left out, "
        f"which failed (No space left on device); nothing was changed"), line
    assert path.read_bytes() == data and not torn_copies(path)


# --- the command: one line, the same words in verify ----------------------------------------------


def test_host_resume_on_a_full_disk_and_on_a_damaged_journal_says_one_line(
        small, tmp_path, monkeypatch, capsys):
    """``lan-demon host --resume`` (in this process, on loopback): a disk that cannot take the
    ``resumed`` record, and a damaged record, each refused in one line with no traceback, the
    file left as it is; ``verify`` says the damage in the same words."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = copy_of(small, tmp_path)
    data = path.read_bytes()
    FailingDisk(monkeypatch, path.name, errno.ENOSPC)
    assert main(["host", "--resume", str(path), "--port", "7312"]) == 2
    out, err = capsys.readouterr()
    assert err == f"lan-demon: cannot resume: cannot write the journal {str(path)!r}: No " \
        "space left on device; the journal is left as it was\n", err
    assert path.read_bytes() == data
    monkeypatch.undo()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    spans = record_spans(data)
    number = [r["j"] for _, _, r in spans].index("move") + 60
    start, end, _ = spans[number - 1]
    flipped = bytearray(data)
    flipped[data.index(b"\xa2at\xcb", start) + 11] ^= 1  # its arrival time, 2**-52 later
    path.write_bytes(flipped)
    assert main(["host", "--resume", str(path), "--port", "7312"]) == 2
    out, err = capsys.readouterr()
    words = "it is damaged (its checksum does not match): the journal was changed on disk " \
        "after it was written"
    assert err == f"lan-demon: {path}: record {number} (move) is damaged (its checksum does " \
        f"not match): the journal was changed on disk after it was written; resume refuses " \
        f"it, and the file is left as it is\n", err
    assert path.read_bytes() == flipped and not torn_copies(path)
    assert main(["verify", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == f"FAIL at record {number} (a move record): {words}\n", out
    assert verify(path).line == out.rstrip("\n")



def test_verify_names_a_damaged_record_whose_kind_cannot_be_read(small, tmp_path):
    """A record so damaged that its first bytes no longer say its kind: verify still names it,
    as a damaged record, in the words resume refuses it with."""
    data = small.read_bytes()
    spans = record_spans(data)
    number = [r["j"] for _, _, r in spans].index("move") + 10
    start = spans[number - 1][0]
    path = copy_of(small, tmp_path, data[:start] + b"\xc1" + data[start + 1:])
    with pytest.raises(JournalError) as refused:
        read_journal(path)
    assert str(refused.value) == f"{path}: record {number} is damaged (it does not parse): " \
        "the journal was changed on disk after it was written"
    assert verify(path).line == f"FAIL at record {number} (a damaged record): it is damaged " \
        "(it does not parse): the journal was changed on disk after it was written"
