"""The two ways a command refuses, and the exit statuses the ``lan-demon`` command ends with.

Every mistake a user can make ends in one line on stderr, never a traceback: a
:class:`UsageError` (exit 2) is the user's to fix, a :class:`LanError` (exit 1) is the LAN's.
"""

from __future__ import annotations

EXIT_USAGE = 2
EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell says when the reader of a pipe left early


class UsageError(Exception):
    """A mistake on the command line; its text is the one line the user sees."""


class LanError(Exception):
    """The LAN could not do what was asked (no table answered, multicast refused): one line,
    exit 1 — not the user's mistake, so not exit 2."""
