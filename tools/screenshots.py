#!/usr/bin/env python3
"""Screen captures of the real ``lan-demon play`` table, for ``docs/screenshots.md``.

Each capture runs the command as a child process in a pseudo-terminal of 100×30 columns and rows
(``TERM=xterm-256color``), feeds everything it writes to a ``pyte`` terminal emulator, presses
keys by writing bytes, and saves what the emulated screen shows: ``NAME.txt`` (the screen's text,
trailing spaces stripped) and, when Pillow is importable, ``NAME.png`` (the same screen drawn
with its colours). Pillow is not a dependency of the project; without it only text is written.

    python tools/screenshots.py                  # every capture into docs/screenshots/
    python tools/screenshots.py lobby round-end  # just these
    python tools/screenshots.py --list
    python tools/screenshots.py page-lobby page-racing-demon page-racko page-gin-solitaire

The ``page-*`` captures are the browser pages (tools/page_screenshots.py): headless Chromium
on a table served on 127.0.0.1, saved as ``docs/screenshots/page-*.png``.

Needs ``pyte`` (in the ``test`` extra). The bots play in real time, so two runs never give
quite the same picture; the seeds are fixed so the deals are the same.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Callable

import pyte

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
COLS, ROWS = 100, 30
#: a bot's seat in the lobby, ready: "bot · ready", or with its level "bot, level 2 · ready" (two
#: columns: "bot, L2 · ready"), or after a name that says "(bot)" the level alone
BOT_READY = re.compile(r"(?:bot(?:, (?:level |L)\d+)?|\(bot\) +level \d+) · ready")


def bots_ready(text: str) -> int:
    return len(BOT_READY.findall(text))


#: keys that play in Racing Demon, pressed in turn while waiting for something to happen
DEMON_KEYS = [b"p", b"1", b"2", b"3", b"4", b"w", b" "]


class CaptureFailed(Exception):
    """The program did not get to the screen a capture wanted."""


class Session:
    """``lan-demon ARGS`` on a pseudo-terminal, its screen emulated by pyte."""

    def __init__(self, *args: str, cols: int = COLS, rows: int = ROWS):
        if args[:1] == ("play",) and "--name" not in args:
            args = (*args, "--name", "Tess")  # not the login name of whoever makes them
        self.argv = [sys.executable, "-m", "lan_demon", *args]
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.eof = False
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows))
        env.pop("NO_COLOR", None)
        try:
            self.proc = subprocess.Popen(self.argv, stdin=slave, stdout=slave, stderr=slave,
                                         env=env, cwd=ROOT, start_new_session=True)
        finally:
            os.close(slave)
        self.master = master

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read(self, timeout: float) -> bool:
        """Feed what arrives within ``timeout`` to the screen; False once the program is gone."""
        if self.eof:
            return False
        ready, _, _ = select.select([self.master], [], [], max(0.0, timeout))
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:
            data = b""
        if not data:
            self.eof = True
            return False
        self.stream.feed(data)
        return True

    def text(self) -> str:
        return "\n".join(row.rstrip() for row in self.screen.display)

    def until(self, condition: Callable[[str], bool], what: str, timeout: float = 30.0,
              keys: list[bytes] | None = None, every: float = 0.25) -> str:
        """Read until ``condition(text)``; meanwhile press ``keys`` in turn, one per ``every``."""
        deadline = time.monotonic() + timeout
        next_key, k = time.monotonic() + every, 0
        while not condition(self.text()):
            now = time.monotonic()
            if now > deadline:
                raise CaptureFailed(f"no {what} within {timeout:.0f} s")
            if keys and now >= next_key:
                self.press(keys[k % len(keys)])
                k, next_key = k + 1, now + every
            if not self.read(min(0.05, deadline - now)):
                last = [ln for ln in self.text().splitlines() if ln.strip()][-1:]
                raise CaptureFailed(f"the program exited (status {self.proc.wait()}) before "
                                    f"{what}: {last[0].strip() if last else 'no output'}")
        return self.text()

    def settle(self, quiet: float = 0.3, longest: float = 3.0) -> str:
        """Read until nothing has arrived for ``quiet`` seconds (or ``longest`` passed)."""
        end = time.monotonic() + longest
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], quiet)
            if not ready or not self.read(0):
                break
        return self.text()

    def press(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.press(b"q")
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=10)
        os.close(self.master)


# --- saving ---------------------------------------------------------------------------------

def save(session: Session, name: str, out: Path, made: list[str]) -> None:
    text = session.text()
    (out / f"{name}.txt").write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    made.append(f"{name}.txt")
    if render_png(session.screen, out / f"{name}.png"):
        made.append(f"{name}.png")


PALETTE = {  # pyte's names for the 16 basic colours (xterm's defaults), and the defaults
    "black": "000000", "red": "cd0000", "green": "00cd00", "brown": "cdcd00",
    "blue": "0000ee", "magenta": "cd00cd", "cyan": "00cdcd", "white": "e5e5e5",
    "brightblack": "7f7f7f", "brightred": "ff0000", "brightgreen": "00ff00",
    "brightbrown": "ffff00", "brightblue": "5c5cff", "brightmagenta": "ff00ff",
    "brightcyan": "00ffff", "brightwhite": "ffffff",
}
DEFAULT_FG, DEFAULT_BG = "d0d0d0", "1c1c1c"
FONT_DIRS = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu",
             "/Library/Fonts", "/System/Library/Fonts"]
#: a font with emoji and card symbols DejaVu lacks (Debian's fonts-symbola), if installed
SYMBOLS = ["/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
           "/usr/share/fonts/truetype/symbola/Symbola.ttf"]


def _rgb(colour: str, default: str) -> tuple[int, int, int]:
    value = PALETTE.get(colour, colour) if colour != "default" else default
    if not re.fullmatch(r"[0-9a-fA-F]{6}", value):
        value = default
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def _fonts(size: int) -> tuple[object, object] | None:
    from PIL import ImageFont
    for folder in FONT_DIRS:
        regular = Path(folder) / "DejaVuSansMono.ttf"
        bold = Path(folder) / "DejaVuSansMono-Bold.ttf"
        if regular.exists():
            return (ImageFont.truetype(str(regular), size),
                    ImageFont.truetype(str(bold if bold.exists() else regular), size))
    return None


def render_png(screen: pyte.Screen, path: Path, size: int = 15) -> bool:
    """Draw the screen with its colours; False (nothing written) without Pillow or a font."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        return False
    fonts = _fonts(size)
    if fonts is None:
        return False
    regular, bold = fonts
    from PIL import ImageFont
    symbols = next((ImageFont.truetype(f, size) for f in SYMBOLS if Path(f).exists()), None)
    cell_w = round(regular.getlength("M"))
    cell_h = round(size * 1.25)
    image = Image.new("RGB", (cell_w * screen.columns + 16, cell_h * screen.lines + 16),
                      _rgb("default", DEFAULT_BG))
    draw = ImageDraw.Draw(image)
    for y in range(screen.lines):
        row = screen.buffer[y]
        for x in range(screen.columns):
            char = row[x]
            fg = _rgb(char.fg, DEFAULT_FG)
            bg = _rgb(char.bg, DEFAULT_BG)
            if char.reverse:
                fg, bg = bg, fg
            px, py = 8 + x * cell_w, 8 + y * cell_h
            draw.rectangle([px, py, px + cell_w - 1, py + cell_h - 1], fill=bg)
            if char.data and char.data != " ":
                font = bold if char.bold else regular
                if symbols is not None and ord(char.data[0]) >= 0x2E80:  # wide: emoji, CJK
                    font = symbols
                draw.text((px, py + (cell_h - size) // 2), char.data, fill=fg, font=font)
    image.save(path)
    return True


# --- the captures ---------------------------------------------------------------------------

def stacks_of(text: str) -> int:
    found = re.search(r"Stacks (\d+)", text)
    return int(found.group(1)) if found else 0


def lobby(out: Path, made: list[str]) -> None:
    with Session("play", "--game", "racing-demon", "--bots", "7", "--seed", "4") as s:
        s.until(lambda t: "Lobby" in t and bots_ready(t) >= 7 and "captain" in t,
                "lobby with 7 bots and the captain")
        s.settle()
        save(s, "lobby", out, made)


def twenty(out: Path, made: list[str]) -> None:
    """20 players at 80×24: the table, then the round end (it pages) and its OUT banner."""
    with Session("play", "--game", "racing-demon", "--bots", "19", "--seed", "4",
                 "--rounds", "2", "--speed", "expert", cols=80, rows=24) as s:
        s.until(lambda t: "Lobby" in t and bots_ready(t) >= 19, "lobby with 19 bots",
                timeout=60)
        s.press(b"\r")
        s.until(lambda t: "Stacks" in t, "table after Go", timeout=30)
        s.until(lambda t: stacks_of(t) >= 12 or "OUT!" in t, "12 stacks", timeout=60,
                keys=DEMON_KEYS, every=0.4)
        s.settle()
        if "Stacks" in s.text():
            save(s, "twenty-players", out, made)
        s.until(lambda t: "OUT!" in t or "nobody out" in t, "the OUT banner", timeout=180,
                keys=DEMON_KEYS, every=0.3)
        s.settle(longest=0.5)
        save(s, "out-banner", out, made)
        s.until(lambda t: "total" in t and "page 1 of" in t, "the paged round end",
                timeout=10)
        s.settle()
        save(s, "twenty-round-end", out, made)
        s.press(b" ")
        s.until(lambda t: "page 2 of" in t, "page 2 of the round end", timeout=10)
        s.settle()
        save(s, "twenty-round-end-page-2", out, made)


def pump(sessions: list[Session], condition: Callable[[], bool], what: str,
         timeout: float = 60.0) -> None:
    """Read every session's screen until ``condition()``: a program whose terminal is not
    read stops when the terminal's buffer fills, and its seat goes away."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise CaptureFailed(f"no {what} within {timeout:.0f} s")
        for session in sessions:
            session.read(0.02)


def alike(out: Path, made: list[str]) -> None:
    """A 20-seat table (17 bots of the host's) where two people both sat down as Ann and a
    third with an emoji name: every screen tells them apart and no row shifts."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    run = [sys.executable, "-m", "lan_demon"]
    host = subprocess.Popen(run + ["host", "--game", "racing-demon", "--port", str(port),
                                   "--players", "20", "--bots", "17", "--rounds", "1",
                                   "--seed", "4", "--no-journal", "--no-web"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    names = ["Ann", "Ann", "🃏Bob🎉👨‍👩‍👧"]
    sessions: list[Session] = []
    try:
        for name in names:
            session = Session("join", address, "--name", name)
            sessions.append(session)
            pump(sessions, lambda: "Lobby" in session.text(), f"{name}'s lobby")
        pump(sessions, lambda: all(bots_ready(s.text()) >= 17 for s in sessions),
             "17 bots ready")
        for session in sessions:
            session.press(b"\r")
        pump(sessions, lambda: all("Stacks" in s.text() for s in sessions), "the table")
        pump(sessions, lambda: stacks_of(sessions[1].text()) >= 10, "10 stacks", timeout=90)
        for session in sessions:
            session.settle(longest=0.5)
        save(sessions[1], "twenty-alike", out, made)
        save(sessions[2], "twenty-emoji", out, made)
    finally:
        for session in sessions:
            session.close()
        stop([host])


def free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spectator(out: Path, made: list[str]) -> None:
    """``lan-demon join --spectate`` at a hosted table of three bots."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    run = [sys.executable, "-m", "lan_demon"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": ROOT}
    host = subprocess.Popen(run + ["host", "--game", "racing-demon", "--port", str(port),
                                   "--players", "3", "--rounds", "1", "--seed", "4",
                                   "--no-journal"], **quiet)
    bots: list[subprocess.Popen] = []
    try:
        with Session("join", address, "--spectate", "--name", "Sam") as s:
            s.until(lambda t: "Sam watching" in t, "the spectator's lobby", timeout=30)
            for name in ("Ann", "Bob", "Cy"):
                bots.append(subprocess.Popen(run + ["bot", address, "--name", name,
                                                    "--speed", "beginner"], **quiet))
            s.until(lambda t: "Stacks" in t, "the match, watched", timeout=60)
            s.until(lambda t: stacks_of(t) >= 4 or "OUT!" in t, "4 stacks", timeout=60)
            s.settle()
            save(s, "spectator", out, made)
    finally:
        stop(bots + [host])


def stop(procs: list[subprocess.Popen]) -> None:
    """Terminate each process still running, and wait for all (killing one that lingers)."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def racing_demon_8(out: Path, made: list[str]) -> None:
    with Session("play", "--game", "racing-demon", "--bots", "7", "--seed", "4",
                 "--rounds", "1", "--speed", "club") as s:
        play_to_stacks(s)
        save(s, "racing-demon-8-players", out, made)
        s.press(b"?")
        s.until(lambda t: "The rules in short" in t, "help")
        s.settle()
        save(s, "help", out, made)


def looks(name: str, *flags: str, cols: int = COLS, rows: int = ROWS
          ) -> Callable[[Path, list[str]], None]:
    """Racing Demon with seven bots mid-round, drawn with ``flags`` (``--palette``, ``--big``:
    docs/accessibility.md)."""
    def capture(out: Path, made: list[str]) -> None:
        with Session("play", "--game", "racing-demon", "--bots", "7", "--seed", "4",
                     "--rounds", "1", "--speed", "club", *flags, cols=cols, rows=rows) as s:
            play_to_stacks(s)
            save(s, name, out, made)
    return capture


def play_to_stacks(s: Session, bots: int = 7, stacks: int = 8, timeout: float = 60) -> None:
    """From the lobby of a table of ``bots`` and you to a round with ``stacks`` stacks or
    more (eight of each, unless told)."""
    s.until(lambda t: "Lobby" in t and bots_ready(t) >= bots, f"lobby with {bots} bots")
    s.press(b"\r")
    s.until(lambda t: "Stacks" in t and "Pile" in t, "table after Go")
    s.until(lambda t: stacks_of(t) >= stacks or "is over" in t, f"{stacks} stacks",
            timeout=timeout, keys=DEMON_KEYS, every=0.4)
    s.settle()
    if "Stacks" not in s.text():
        raise CaptureFailed("the round ended before the capture")


def round_end(out: Path, made: list[str]) -> None:
    with Session("play", "--game", "racing-demon", "--bots", "7", "--seed", "4",
                 "--rounds", "2", "--speed", "flat-out") as s:
        s.until(lambda t: "Lobby" in t and bots_ready(t) >= 7, "lobby with 7 bots")
        s.press(b"\r")
        s.until(lambda t: "Stacks" in t, "table after Go")
        s.until(lambda t: "Round 1 of 2 is over" in t and "total" in t, "end of round 1",
                timeout=120, keys=DEMON_KEYS, every=0.2)
        s.settle()
        save(s, "round-end", out, made)
        s.press(b"\r")  # ready for round 2
        s.until(lambda t: "Stacks" in t, "round 2", timeout=60)
        s.until(lambda t: "Match over" in t and "total" in t, "end of the match",
                timeout=120, keys=DEMON_KEYS, every=0.2)
        s.settle()
        save(s, "match-over", out, made)


def german(out: Path, made: list[str]) -> None:
    with Session("play", "--game", "racing-demon-german", "--bots", "3", "--seed", "4",
                 "--rounds", "5", "--speed", "beginner") as s:  # (club bots went OUT first)
        play_to_stacks(s, bots=3, stacks=4, timeout=150)
        save(s, "racing-demon-german", out, made)


def other_game(game: str, bots: int, name: str) -> Callable[[Path, list[str]], None]:
    def capture(out: Path, made: list[str]) -> None:
        with Session("play", "--game", game, "--bots", str(bots), "--seed", "4") as s:
            s.until(lambda t: "Lobby" in t and bots_ready(t) >= bots, "lobby")
            s.press(b"\r")
            s.until(lambda t: "Lobby" not in t and "Starting in" not in t, "the table",
                    timeout=30)
            s.settle(quiet=0.5)
            save(s, name, out, made)
    return capture


CAPTURES: dict[str, Callable[[Path, list[str]], None]] = {
    "lobby": lobby,
    "racing-demon-8-players": racing_demon_8,
    "round-end": round_end,
    "twenty": twenty,
    "palette-safe": looks("palette-safe", "--palette", "safe"),
    "palette-none": looks("palette-none", "--palette", "none"),
    "big-cards": looks("big-cards", "--palette", "safe", "--big", cols=120, rows=40),
    "alike": alike,
    "spectator": spectator,
    "racing-demon-german": german,
    "racko": other_game("racko", 3, "racko"),
    "gin-solitaire": other_game("gin-solitaire", 0, "gin-solitaire"),
}


def _pages() -> dict[str, Callable[[Path, list[str]], None]]:
    """The browser pages' captures (tools/page_screenshots.py), each failure a CaptureFailed."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import page_screenshots

    def wrap(capture: Callable[[Path, list[str]], None]) -> Callable[[Path, list[str]], None]:
        def run(out: Path, made: list[str]) -> None:
            try:
                capture(out, made)
            except Exception as err:  # a page that never got there, a missing browser
                raise CaptureFailed(f"{type(err).__name__}: {err}") from err
        return run
    return {name: wrap(capture) for name, capture in page_screenshots.CAPTURES.items()}


CAPTURES.update(_pages())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help=f"captures to make (default all): "
                        f"{', '.join(CAPTURES)}")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the captures")
    parser.add_argument("--list", action="store_true", help="list the captures and stop")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(CAPTURES))
        return 0
    unknown = [n for n in args.names if n not in CAPTURES]
    if unknown:
        parser.error(f"unknown capture(s): {', '.join(unknown)}")
    args.out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name in args.names or CAPTURES:
        made: list[str] = []
        started = time.monotonic()
        try:
            CAPTURES[name](args.out, made)
        except CaptureFailed as err:
            failed += 1
            print(f"{name}: FAILED — {err}", file=sys.stderr)
        took = time.monotonic() - started
        if made:
            print(f"{name}: {', '.join(made)} ({took:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
