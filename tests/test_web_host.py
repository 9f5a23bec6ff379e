"""``host`` and ``play`` serve the table to browsers: the flags, where the page
binds, what the host's screen says of it (the address, and at a --lan table a QR code, said
again between rounds for latecomers). Only 127.0.0.1 is ever bound here: --lan's bind is
checked as the function that decides it (tests/test_web_gateway.py)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import urllib.request

import pytest

from lan_demon.cli import main
from lan_demon.commands.host_log import REMIND_AFTER, HostLog
from lan_demon.commands.serve import web_reminder
from lan_demon.commands.web_page import banner
from lan_demon.web.qr import terminal
from host_stand_in import stand_in_arbiter

pytestmark = pytest.mark.timeout(60)


def test_host_serves_the_page_beside_the_arbiter_and_says_where():
    """A plain host: the page on 127.0.0.1, its address on the host's screen, no QR code (a
    phone cannot open this computer's loopback); the lobby is there; Ctrl-C stops both."""
    proc = subprocess.Popen([sys.executable, "-m", "lan_demon", "host", "--port", "0",
                             "--web-port", "0", "--no-journal"],
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        said = []
        while not said or "browser" not in said[-1]:
            line = proc.stdout.readline()
            assert line, f"the host ended: {said} {proc.stderr.read()}"
            said.append(line.rstrip("\n"))
        words = said[-1]
        assert words.startswith("lan-demon: a browser on this computer can sit down at "
                                "http://127.0.0.1:")
        url = words.split(" at ", 1)[1].split(" ", 1)[0]
        with urllib.request.urlopen(url, timeout=10) as page:
            text = page.read().decode()
        assert "Sit down" in text and "Just watch" in text
        assert not any("█" in line for line in said)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 130


@pytest.mark.parametrize("argv, words", [
    (["host", "--web-port", "70000"], "a port is a whole number from 0 to 65535"),
    (["host", "--web-port", "8800", "--no-web"], "--web-port and --no-web say opposite"),
    (["play", "--web-port", "x"], "a port is a whole number from 0 to 65535"),
])
def test_a_wrong_web_flag_is_one_line(capsys, argv, words):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_a_lan_table_shows_the_address_and_its_qr_code():
    url = "http://192.168.1.20:8700/"
    lines = banner(url, lan=True, colour=False)
    assert lines[0] == ("lan-demon: phones, tablets and laptops on this Wi-Fi: open "
                        f"{url} in a browser, or scan this code:")
    assert lines[1:] == terminal(url, colour=False)
    coloured = banner(url, lan=True, colour=True)[1:]
    assert all(line.startswith("\x1b[30;47m") and line.endswith("\x1b[0m") for line in coloured)
    assert len(coloured) <= 20  # fits a laptop's terminal beside the log


def test_the_qr_code_is_the_address_in_half_blocks():
    """Two module rows a line: the code's matrix, read back from the drawing, is segno's."""
    import segno
    url = "http://10.0.0.7:8700/"
    matrix = [list(map(bool, row)) for row in segno.make(url, error="m").matrix]
    lines = terminal(url, colour=False)
    ink = {"█": (False, False), "▄": (True, False), "▀": (False, True), " ": (True, True)}
    rows: list[list[bool]] = []
    for line in lines:
        cells = [ink[c] for c in line]
        rows += [[c[0] for c in cells], [c[1] for c in cells]]
    border = 2
    inner = [row[border:border + len(matrix)] for row in rows[border:border + len(matrix)]]
    assert inner == matrix


def test_the_address_is_said_again_between_rounds_for_latecomers():
    log = io.StringIO()
    watch = HostLog(log)
    watch.remind = web_reminder("http://192.168.1.20:8700/", lan=True, code="ABCDEFGH")
    watch.since_reminder = REMIND_AFTER
    watch(stand_in_arbiter([("Ann", False, "here"), ("Bob", False, "here")], phase="between",
                           rounds=0))
    assert "open http://192.168.1.20:8700/" not in log.getvalue()  # no round has ended
    said = io.StringIO()
    watch.out = said
    arb = stand_in_arbiter([("Ann", False, "here"), ("Bob", False, "here")], phase="between",
                           rounds=1)
    arb.match.rounds = [type("R", (), {"scores": [3, -1]})()]
    arb.match.sides = ["Ann", "Bob"]
    watch(arb)
    text = said.getvalue()
    assert "round 1 over" in text
    assert "lan-demon: to sit down from a phone on this Wi-Fi, open http://192.168.1.20:8700/ " \
           "(with the room code shown above) or scan this code:" in text
    assert watch.since_reminder == 0


def test_a_lan_host_prints_its_lan_address_and_qr_code(host, monkeypatch):
    """start_web at a --lan table: the LAN address in the line and the QR code under it. (The
    bind itself is kept on 127.0.0.1 here: no test binds every interface.)"""
    import lan_demon.net.discovery as discovery
    import lan_demon.web.server as web_server
    from lan_demon.commands.web_page import WebChoice, start_web
    server = host("racing-demon", code="ABCDEFGH")
    monkeypatch.setattr(discovery, "lan_addresses", lambda: ["192.168.1.20"])
    binds = []
    monkeypatch.setattr(web_server, "bind_host", lambda lan: binds.append(lan) or "127.0.0.1")
    out = io.StringIO()
    page = start_web(server, "racing-demon", None, "ABCDEFGH", WebChoice(0, False, True), out)
    try:
        url = f"http://192.168.1.20:{page.port}/"
        lines = out.getvalue().splitlines()
        assert binds == [True] and page.url == url and page.gateway.code == "ABCDEFGH"
        assert lines == banner(url, lan=True, colour=False)
    finally:
        page.stop()
