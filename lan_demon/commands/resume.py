"""``host --resume [JOURNAL]``: the match of a stopped or crashed host taken up again. Its
settings come from the journal, the room code, keys and LAN name from the secrets file beside
it; a flag that says otherwise is a mistake, not an override (the match would no longer replay,
the clients would not know the table). Without JOURNAL, the latest unfinished match of the
user's journal folder (:mod:`lan_demon.net.journals`), said which."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from secrets import token_hex
from pathlib import Path
from typing import Any

from lan_demon.commands.errors import UsageError
from lan_demon.commands.host_log import HostLog
from lan_demon.commands.options import SETTING_FLAGS, check_code, flag_values, pause_words
from lan_demon.commands.serve import Announcement, serve_table


def resume_host(args: argparse.Namespace, web: Any = None) -> int:
    """``host --resume``; ``web``: the page for browsers, as a fresh host serves it (a
    :class:`~lan_demon.commands.web_page.WebChoice`: the browsers' seats come back as the
    terminals' do, from the book beside the journal, :mod:`lan_demon.web.page_book`)."""
    from lan_demon.net.journal import JournalError, read_journal
    from lan_demon.net.journal_frames import JournalDamage
    from lan_demon.net.journals import hold
    from lan_demon.net.recovery import host_settings, resume, summary
    from lan_demon.net.secrets_file import check_secrets, read_secrets
    info = sys.stderr if args.json else sys.stdout
    if args.resume is True:  # --resume with no journal
        args.resume = str(latest_journal(info))
    try:
        read = read_journal(args.resume)
    except JournalDamage as err:  # never taken for a torn record, never cut off
        raise JournalError(f"{err}; resume refuses it, and the file is left as it is",
                           err.number, err.kind, err.words) from None
    settings = host_settings(read, args.resume)
    flags = {field: name for name, field in SETTING_FLAGS.items()}
    for field, given in flag_values(args).items():
        kept = getattr(settings, field)
        if given == kept:
            continue
        flag = "--" + flags[field].replace("_", "-")
        if field == "pause":
            raise UsageError(f"--pause {pause_words(given)} conflicts with the journal's "
                             f"{pause_words(kept)}: a resumed match keeps its settings; "
                             f"leave --pause out")
        if field == "dealing":
            was = f"seed {settings.seed!r}" if settings.seeded else "secret deals (no seed)"
            raise UsageError(f"--seed {args.seed} conflicts with the journal's {was}: a "
                             f"resumed match keeps its settings; leave --seed out")
        raise UsageError(f"{flag} {given} conflicts with the journal's {kept!r}: a resumed "
                         f"match keeps its settings; leave {flag} out")
    if args.rate_limit is not None and args.rate_limit != settings.rate_limit:
        raise UsageError(f"--rate-limit {args.rate_limit:g} conflicts with the journal's "
                         f"{settings.rate_limit:g}: a resumed match keeps its settings; leave "
                         f"--rate-limit out")
    if args.handicap is not None:
        kept = settings.options.get("handicap")
        if args.handicap != kept:
            flag = "--handicap" if args.handicap else "--no-handicap"
            raise UsageError(f"{flag} conflicts with the journal's match, whose handicapping "
                             f"was {'on' if kept else 'off'}: a resumed match keeps its "
                             f"settings; leave {flag} out")
    if args.deals is not None:
        kept = settings.options.get("deals")
        if kept is None:
            raise UsageError(f"--deals is a Gin Solitaire option (GS-9), not one of "
                             f"{settings.game}, the journal's game; leave --deals out")
        if args.deals != kept:
            raise UsageError(f"--deals {args.deals} conflicts with the journal's match, whose "
                             f"deals were {kept}: a resumed match keeps its settings; leave "
                             f"--deals out")
    if args.journal is not None and Path(args.journal).resolve() != \
            Path(args.resume).resolve():
        raise UsageError("--journal conflicts with --resume: a resumed host appends to the "
                         "journal it resumes")
    secrets = read_secrets(args.resume)
    check_secrets(read, secrets, args.resume)
    agree_with_secrets(args, secrets)
    held = hold(args.resume)  # refused if a running host writes it
    try:
        lan = Announcement()
        server, restored = resume(args.resume, port=args.port, read=read, secrets=secrets,
                                  on_seats=lan.seats)
        copy = server.journal.torn_copy if server.journal is not None else None
        torn = f"; the last record was cut off mid-write and was left out (the whole journal " \
            f"as it was is kept in {copy})" if restored.torn else ""
        print(f"lan-demon: resumed {settings.game} at {server.address[len('tcp://'):]} "
              f"(updates on port {server.pub_port}): {summary(restored)}{torn}",
              file=info, flush=True)
        server.watch = HostLog(info, since=server.arbiter)  # says what changes from here on
        code, keys = (secrets.code, secrets.keys) if secrets else (None, None)
        name = secrets.name if secrets and secrets.lan else None
        if web is not None:  # the page serves where the table serves
            web = dataclasses.replace(web, lan=bool(secrets and secrets.lan))
        # Seats handed to a bot before the stop are away (no bot is restarted: docs/hosting.md);
        # a seat handed over from here on gets its bot.
        from lan_demon.bots.levels import DEFAULT_LEVEL
        from lan_demon.commands.local_table import table_bots
        bots = table_bots(server, f"resumed:{token_hex(8)}", keys, code, DEFAULT_LEVEL)
        try:
            return serve_table(server, lan, name, settings.game, keys, code, info, args.json,
                               web=web)
        finally:
            bots.close()
    finally:
        held.release()


def latest_journal(info: Any) -> Path:
    """``--resume`` alone: the latest unfinished journal of the folder, said which on ``info``
    (with the journals skipped because they cannot be read); none is a :class:`UsageError` of
    one line."""
    from lan_demon.net import journals
    found = journals.survey()
    latest = journals.latest_unfinished(found)
    unreadable = [f for f in found if f.state == "unreadable"]
    busy = [f for f in found if f.state == "in use"]
    if latest is None:
        finished = sum(f.state == "finished" for f in found)
        others = [f"{len(busy)} in use by a running host" if busy else "",
                  f"{finished} with nothing left to resume" if finished else "",
                  f"{len(unreadable)} that cannot be read (lan-demon verify FILE says why)"
                  if unreadable else ""]
        there = "; ".join(w for w in others if w) or "it holds no journal"
        raise UsageError(f"no unfinished match to resume in {journals.folder()} ({there}); "
                         f"give a journal elsewhere as --resume JOURNAL")
    for bad in unreadable:
        print(f"lan-demon: skipped {bad.path}: {bad.words}", file=info, flush=True)
    older = sum(f.state == "unfinished" for f in found) - 1
    also = "" if not older else \
        f" ({older} older unfinished one{'s' if older > 1 else ''} there: --resume JOURNAL " \
        f"takes up another)"
    what = journals.describe(latest.read) if latest.read is not None else "?"
    print(f"lan-demon: resuming the match journaled until {journals.when_words(latest.mtime)} "
          f"in {latest.path}: {what}{also}", file=info, flush=True)
    return latest.path


def agree_with_secrets(args: argparse.Namespace, secrets: Any) -> None:
    """``--lan``, ``--secure``, ``--code`` and ``--name`` on a resume may only repeat what the
    table was (its secrets file says; none: a plain loopback table)."""
    from lan_demon.net.journal import secret_path
    lan, code, name = (secrets.lan, secrets.code, secrets.name) if secrets else \
        (False, None, None)
    secure = secrets is not None and secrets.keys is not None
    kept = f"(kept in {secret_path(args.resume)})" if secrets else "(it has no secrets file)"
    if args.lan and not lan:
        raise UsageError(f"--lan conflicts with the resumed table, which served on loopback "
                         f"only {kept}: a resumed table serves where it served; leave --lan out")
    if args.secure is not None and args.secure != secure:
        flag = "--secure" if args.secure else "--no-secure"
        raise UsageError(f"{flag} conflicts with the resumed table, which was "
                         f"{'' if secure else 'not '}encrypted {kept}: leave {flag} out")
    given = check_code(args.code, "--code")
    if given is not None and given != code:
        was = "had another room code" if code else "needed no room code"
        raise UsageError(f"--code conflicts with the resumed table, which {was} {kept}: a "
                         f"resumed table keeps its code; leave --code out")
    if args.table_name is not None and args.table_name != name:
        was = f"was called {name!r}" if name else "was not on the LAN"
        raise UsageError(f"--name conflicts with the resumed table, which {was} {kept}: "
                         f"leave --name out")
