"""Secret deals that are the same every run: ``secrets`` for the host's secret and for the
clients' nonces and check words, drawn from seeded generators, so that a secret table's course
— its deals, and where a move ends a round — repeats (conftest's ``seeded_secrets`` fixture puts
them in place)."""

from __future__ import annotations

import random


class SeededSecrets:
    """Stands for the ``secrets`` module where it is asked for token bytes."""

    def __init__(self, seed: str):
        self.rng = random.Random(seed)

    def token_bytes(self, n: int) -> bytes:
        return self.rng.randbytes(n)
