"""A Racing Demon bot: cards to the stacks (the Pile's first), then onto columns, then turn.
Run it against a table:  python examples/sdk_bot.py HOST:PORT [NAME] [SPEED]"""
import sys

from lan_demon.bots import Beaten, Bot, run
from lan_demon.games import GameError
from lan_demon.games.demon_moves import COLUMN_NAMES as COLUMNS, Play


class Stacker(Bot):
    game = ("racing-demon", "racing-demon-german")

    def next_move(self, view, legal):
        columns = view["players"][self.seat]["columns"]

        def score(move):  # lower is better; None: not worth playing
            if move.target not in COLUMNS:  # onto a stack (RD-5): the Pile's card first
                return 0 if move.source == "pile" else 1
            if move.source in COLUMNS:  # a run between columns: only when it empties one
                return 3 if move.count == len(columns[COLUMNS.index(move.source)]) else None
            return 2  # the Pile or waste top onto a column (RD-7)
        plays = [(s, i) for i, m in enumerate(legal) if isinstance(m, Play)
                 and (s := score(m)) is not None]
        turn = "turn" if any(str(m) == "turn" for m in legal) else None  # RD-9, as text
        return legal[min(plays)[1]] if plays else turn

    def on_event(self, event):
        if isinstance(event, Beaten):  # RD-11: another card got there first
            print(f"{self.name}: beaten to it by seat {event.by}", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:4] + ["127.0.0.1:7700", "Stacker", "club"][len(sys.argv[1:4]):]
    try:
        result = run(Stacker(), args[0], name=args[1], speed=args[2])
    except GameError as err:  # no table there, a bad address or speed, a full table
        sys.exit(f"sdk_bot: {err}")
    print(f"{result.name} (seat {result.seat}): totals {result.totals}, won by {result.winners}")
    sys.exit(1 if result.error else 0)
