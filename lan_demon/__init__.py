"""lan_demon: a card table for a home network.

The rule engines live in :mod:`lan_demon.games`; everything else (network, bots, terminal UI,
command line) is built on them and never the other way round.
"""

__version__ = "0.1.0"
