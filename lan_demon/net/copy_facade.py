"""A table copy's public face on whatever holds one: what a screen or a bot reads of the table.

:class:`~lan_demon.net.client.Client` holds its :class:`~lan_demon.net.table_copy.TableCopy` as
``copy``, and screens, bots and tests read ``client.table``, ``client.seat``, ``client.mirror``…
and say ``client.ready()``: each of these is the copy's, read through here, so the client's
own code is about its sockets alone.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from lan_demon.net.notices import Notice
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.table_copy import TableCopy
from lan_demon.net.witness import DealWitness


class CopyFacade:
    """The copy's facts and requests under the names every screen and bot uses."""

    copy: TableCopy

    @property
    def seat(self) -> int | None:
        return self.copy.seat

    @property
    def role(self) -> str:
        return self.copy.role

    @property
    def game(self) -> Any:
        return self.copy.game

    @property
    def table(self) -> dict[str, Any]:
        return self.copy.table

    @property
    def seq(self) -> int:
        return self.copy.seq

    @property
    def mirror(self) -> Any:
        return self.copy.mirror

    @property
    def predicted(self) -> Any:
        return self.copy.predicted

    @property
    def seal_key(self) -> bytes | None:
        return self.copy.seal_key

    @property
    def pending(self) -> dict[int, Any]:
        return self.copy.pending

    @property
    def notices(self) -> list[Notice]:
        return self.copy.notices

    @property
    def tell_moves(self) -> bool:
        return self.copy.tell_moves

    @tell_moves.setter
    def tell_moves(self, tell: bool) -> None:
        self.copy.tell_moves = tell

    @property
    def stood_in(self) -> deque[tuple[int, int, str, list[dict[str, Any]]]]:
        return self.copy.stood_in

    @property
    def paused_since(self) -> float | None:
        return self.copy.paused_since

    @property
    def witness(self) -> DealWitness:
        return self.copy.witness

    @property
    def scores(self) -> ScoreSheet:
        return self.copy.scores

    @property
    def buffered(self) -> int:
        return self.copy.buffered

    @property
    def catching_up(self) -> bool:
        return self.copy.catching_up

    def kept(self, seat: int) -> float | None:
        return self.copy.kept(seat)

    def take_notices(self) -> list[Notice]:
        return self.copy.take_notices()

    def ready(self) -> None:
        self.copy.ready()

    def start(self) -> None:
        self.copy.start()

    def pause(self) -> None:
        self.copy.pause()

    def resume(self) -> None:
        self.copy.resume()

    def remove(self, seat: int, bot: int | None = None) -> None:
        self.copy.remove(seat, bot)

    def resync(self) -> None:
        self.copy.resync()
