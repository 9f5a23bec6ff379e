"""What a table copy asks of the connection it is kept over.

:class:`~lan_demon.net.table_copy.TableCopy` holds no socket: it sends, numbers its requests
and reads the time through a :class:`Link` — the client's sockets
(:class:`~lan_demon.net.client.Client`), or a test's loop straight into an arbiter.
"""

from __future__ import annotations

from typing import Any, Protocol


class Link(Protocol):
    """The connection's side of a table copy."""

    #: a welcome came on this connection and it has not been lost since
    connected: bool

    def clock(self) -> float:
        """Now, on the clock every deadline the copy keeps is measured with."""

    def send(self, msg: dict[str, Any]) -> bool:
        """Queue ``msg`` for the arbiter; False when it could not be queued."""

    def next_id(self) -> int:
        """A request id not used before on this connection's client."""

    def hang_up(self) -> None:
        """Our seat is no more: stop talking to the arbiter, and never come back."""

    def match_over(self) -> None:
        """The match is over: nothing to come back to (a token kept on disk is forgotten)."""
