"""The arena: strategies against each other over many rounds, with honest error bars.

``lan-demon arena`` asks "is this bot better than that one, and how sure are we?". It plays K
rounds and reports, per strategy, how often it won with a Wilson 95 % interval, its mean round
score and, for Racing Demon, its mean Pile left and cards stacked; and how far its score is
ahead of the other strategies' at the same table, with a t 95 % interval.

Choices, and why:

* **Independent deals.** Round ``i`` is a fresh first-round deal from ``round_rng(seed, i)`` —
  the very generator round ``i`` of a match with that seed uses — with the game's first set-up
  (every Pile the same size: a handicap, RD-15, would let one round's luck leak into the next).
  The bots' own choices come from the simulator's per-round, per-seat generators. So round ``i``
  depends only on ``(seed, i, seats)``: not on how many processes played it, nor in which order
  they finished, and ``--jobs 1`` and ``--jobs 4`` print the same report.
* **Rotation.** In round ``i`` seat ``s`` holds ``seats[(s + i) % n]``: the list turns one place
  a round. Seat order matters — in Rack-O who sits after the dealer moves first (RK-4), in Racing
  Demon the seat number breaks ties between moves landing at the same simulated instant — so over
  every ``n`` rounds each entry of the list sits in every seat once, and no strategy owns a good
  seat. (Gin Solitaire's seats play the same deal side by side, GS-9; rotation changes nothing
  there but which seeded generator a bot gets.)
* **Mirrored deals** (``--mirror``). Luck of the deal is most of a round's spread: a seat
  dealt a good Pile wins whoever plays it. With ``--mirror`` rounds ``d·n`` to ``d·n + n − 1``
  all play deal ``d`` — its cards from ``round_rng(seed, d)`` and the simulator's per-seat
  generators of round ``d`` — each in the next rotation of the seats, so every entry of the
  seat list plays that deal from every seat once, and seat position ``s`` draws the same
  reaction times and the same bot generator in every rotation. Only who sits where changes.
  ``--rounds`` still counts rounds played in all (so a mirrored and a plain run of K rounds
  cost the same and have the same seat-rounds); it must be a multiple of ``n``. One seat has
  nothing to rotate and is refused; so is ``--network``, where timing and match lengths would
  make the rotations play different games.
* **Wins.** A round's winners are the game's own: :meth:`Game.winners` of a one-round match
  (RD-17 highest, RG-7 lowest penalty, RK-7 highest). A shared win counts as a whole win for
  each sharer (so win rates may add up to more than one); ``shared`` says how many were shared.
  In Gin Solitaire each seat plays its own Joker (GS-1, GS-9): a seat *beats the Joker* in a
  round when its points are more than its Joker's (GS-7: gin, big gin, or a knock with C above
  the deadwood); a knock with C equal to the deadwood scores 0 to 0 and is no win.
* **Rates** are per seat-round: a strategy named twice in the seat list plays two seat-rounds a
  round. Seat-rounds of one round are not independent, so with duplicates the interval is a
  little too narrow.
* **Score difference** (:mod:`lan_demon.bots.arena_report`): per round, a strategy's mean seat
  score minus the other strategies' mean seat score at that table — a paired figure, so the
  deal's luck is subtracted at the table. Its t interval is over deals, the independent unit:
  with ``--mirror`` a deal's rotations are averaged first, and without it each round is its
  own deal.
* **Racing Demon speed.** Every seat uses the same speed profile (``club`` by default), so that
  reaction times are drawn, not equal: with equal times the seat order would settle every race.

``--network`` plays the same seat list through a real arbiter on 127.0.0.1 (in a thread of this
process) and one ``lan-demon bot`` process per seat, flat-out. There the rounds are those of real
matches: seats stay put within a match and rotate from one match to the next; a match that ends
by its own rule (RK-7 500, GS-8 100) before K rounds is followed by another. Handicaps are off.
Timing decides races there, so it is not reproducible move for move.
"""

from __future__ import annotations

import math
import multiprocessing
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, TextIO

from lan_demon.bots.arena_report import ArenaReport, RoundOutcome, tally
from lan_demon.bots.from_file import make_any
from lan_demon.bots.simulator import play_round
from lan_demon.bots.speed import PROFILES, profile
from lan_demon.games import BadConfig, Game, GameError, Match, RoundResult, get_game, round_rng

CHUNKS_PER_JOB = 4  # chunks per worker: enough to balance the load and move the progress bar
MAX_CHUNK = 50  # rounds per chunk at most
NETWORK_TIMEOUT = 3600.0  # seconds for a whole --network run


class ArenaError(GameError):
    """An arena that cannot be played as asked; its text is meant for people."""


# --- the seat list -------------------------------------------------------------------------------


def parse_seats(text: str) -> list[str]:
    """``"demon, greedy,random"`` → ``["demon", "greedy", "random"]``; no empty names."""
    names = [n.strip() for n in text.split(",")]
    if not text.strip() or any(not n for n in names):
        raise ArenaError(f"--seats needs strategy names separated by commas, not {text!r}")
    return names


def check_seats(game: Game, seats: list[str]) -> None:
    """Refuse a seat list the game cannot play, naming the fix."""
    game.check_players(len(seats))  # says the game's range and its rule id
    for name in seats:
        make_any(game.id, name)  # BadConfig listing the game's strategies
    if game.id == "racko" and all(n == "random" for n in seats):
        raise ArenaError("random Rack-O bots never order a rack among themselves (RK-5 would "
                         "take millions of turns): seat at least one other strategy")


def seating(seats: list[str], turn: int) -> list[str]:
    """The strategy in each seat when the list has turned ``turn`` places (see the docstring)."""
    n = len(seats)
    return [seats[(s + turn) % n] for s in range(n)]


# --- one round -----------------------------------------------------------------------------------


def round_winners(game: Game, result: RoundResult, seats: int) -> list[bool]:
    """For each seat, did it win the round (see the module docstring)?"""
    if game.id == "gin-solitaire":  # GS-7: side s is seat s's player, side n + s its Joker
        return [result.scores[s] > result.scores[seats + s] for s in range(seats)]
    match = Match(game, [f"seat-{s}" for s in range(seats)], 0)
    match.record(result)
    won = set(game.winners(match))
    return [s in won for s in range(seats)]


def outcome(game: Game, round_no: int, strategies: list[str], result: RoundResult,
            deal: int | None = None) -> RoundOutcome:
    n = len(strategies)
    wins = round_winners(game, result, n)
    detail = result.detail[:n]
    return RoundOutcome(
        round_no=round_no, deal=round_no if deal is None else deal,
        strategies=list(strategies), scores=list(result.scores[:n]),
        wins=wins, shared=sum(wins) > 1 and game.id != "gin-solitaire",
        played=[d.get("result") != "sat-out" for d in detail],
        pile_left=[d.get("pile_left") for d in detail],
        stacked=[d.get("stacked") for d in detail])


def deal_of(round_no: int, seats: int, mirror: bool) -> int:
    """The deal round ``round_no`` plays: its own, or with ``mirror`` the deal its ``seats``
    rotations share (rounds ``d·n`` to ``d·n + n − 1`` play deal ``d``)."""
    return round_no // seats if mirror else round_no


def play_one(game: Game, seats: list[str], seed: int | str, round_no: int,
             speed: str = "club", mirror: bool = False) -> RoundOutcome:
    """Round ``round_no`` of an engine-only arena: a function of its arguments alone.

    The deal number picks both the cards and the simulator's per-seat generators, so the
    rotations of a mirrored deal differ only in who sits where."""
    strategies = seating(seats, round_no)
    deal = deal_of(round_no, len(seats), mirror)
    state = game.deal(game.first_setup(len(seats), game.default_options()),
                      round_rng(seed, deal))
    bots = [make_any(game.id, name) for name in strategies]
    play_round(game, state, bots, seed, deal, [PROFILES[speed]] * len(seats))
    return outcome(game, round_no, strategies, game.round_result(state), deal)


def play_chunk(game_id: str, seats: list[str], seed: int | str, start: int, stop: int,
               speed: str = "club", mirror: bool = False) -> list[RoundOutcome]:
    """Rounds ``start`` to ``stop - 1``: the unit of work a worker process is given."""
    game = get_game(game_id)
    played = []
    for round_no in range(start, stop):
        try:
            played.append(play_one(game, seats, seed, round_no, speed, mirror))
        except GameError as err:  # re-raised as a plain ArenaError: it must cross processes
            raise ArenaError(f"round {round_no + 1} of the arena: {err}") from None
    return played


# --- progress ------------------------------------------------------------------------------------


class Progress:
    """A text bar on stderr, redrawn with ``\\r`` — only when stderr is a terminal.

    Piped or captured, it writes nothing at all: a log or a test sees only the report.
    """

    WIDTH = 30

    def __init__(self, total: int, label: str, stream: TextIO | None = None):
        self.total = max(1, total)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done = -1

    def update(self, done: int) -> None:
        done = min(done, self.total)
        if not self.enabled or done == self.done:
            return
        self.done = done
        filled = self.WIDTH * done // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{self.total} rounds")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.done >= 0:
            self.stream.write("\n")
            self.stream.flush()


# --- engine only ---------------------------------------------------------------------------------


def chunks(rounds: int, jobs: int) -> list[tuple[int, int]]:
    """Round ranges ``[start, stop)``: a few per worker, none above MAX_CHUNK rounds."""
    size = max(1, min(MAX_CHUNK, math.ceil(rounds / (jobs * CHUNKS_PER_JOB))))
    return [(a, min(a + size, rounds)) for a in range(0, rounds, size)]


def check_run(rounds: int, jobs: int | None) -> None:
    if rounds < 1:
        raise ArenaError(f"--rounds must be 1 or more, not {rounds}")
    if jobs is not None and jobs < 1:
        raise ArenaError(f"--jobs must be 1 or more, not {jobs}")


def check_mirror(seats: list[str], rounds: int) -> None:
    """``--rounds`` counts rounds played in all, as without --mirror (the same work, the same
    seat-rounds): it must share out into whole deals of one round per rotation."""
    n = len(seats)
    if n < 2:
        raise ArenaError("--mirror needs two seats or more: with one seat there is no "
                         "rotation to play the deal in")
    if rounds % n:
        low = rounds - rounds % n
        near = f"{low} or {low + n}" if low else f"{n}"
        raise ArenaError(f"--mirror plays each deal once in each of the {n} rotations of the "
                         f"seats, so --rounds must be a multiple of {n}, not {rounds} "
                         f"(try {near})")


def run_arena(game_id: str, seats: list[str], rounds: int, seed: int | str = 0,
              jobs: int | None = None, speed: str = "club",
              progress: Progress | None = None, mirror: bool = False) -> ArenaReport:
    """Play ``rounds`` seeded rounds headless over ``jobs`` processes (default: one per CPU;
    1: in this process) and add them up: independent deals, or with ``mirror`` each deal once
    per rotation of the seats."""
    game = get_game(game_id)
    check_seats(game, seats)
    check_run(rounds, jobs)
    if mirror:
        check_mirror(seats, rounds)
    try:
        profile(speed)
    except BadConfig as err:
        raise ArenaError(str(err)) from None
    jobs = jobs or multiprocessing.cpu_count()
    work = chunks(rounds, jobs)
    tick = progress.update if progress else (lambda done: None)
    tick(0)
    if jobs == 1 or len(work) == 1:
        outcomes: list[RoundOutcome] = []
        for start, stop in work:
            outcomes += play_chunk(game.id, seats, seed, start, stop, speed, mirror)
            tick(len(outcomes))
    else:
        outcomes = _in_pool(game.id, seats, seed, speed, work, min(jobs, len(work)), tick,
                            mirror)
    note = (f"{rounds // len(seats)} mirrored deals, each played once per rotation of the "
            f"{len(seats)} seats (same cards, same seat generators)" if mirror else
            "independent seeded deals; seats rotated one place a round")
    if game.races:  # speed decides much of a race: the report says which (a bot author asked)
        note += f"; every seat at the {speed} speed"
    return tally(game, seats, seed, outcomes, "engine", note, mirror)


def _in_pool(game_id: str, seats: list[str], seed: int | str, speed: str,
             work: list[tuple[int, int]], jobs: int,
             tick: Callable[[int], None], mirror: bool = False) -> list[RoundOutcome]:
    """The chunks over ``jobs`` spawned processes; on an error or Ctrl-C the rest is cancelled
    and every worker is waited for, so nothing is left running."""
    outcomes: list[RoundOutcome] = []
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        pending: set[Future[list[RoundOutcome]]] = {
            pool.submit(play_chunk, game_id, seats, seed, start, stop, speed, mirror)
            for start, stop in work}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                outcomes += future.result()
            tick(len(outcomes))
    except BrokenProcessPool:
        raise ArenaError("a worker process of the arena died (out of memory, or killed); "
                         "try fewer --jobs") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return outcomes


# --- through a real arbiter ----------------------------------------------------------------------


def _match_rounds(game: Game, wanted: int) -> int | None:
    """Rounds to ask the arbiter for: ``wanted`` if the game allows it, else its default (RG-7
    allows 5 to 10 deals; the arena then stops the match once it has enough)."""
    try:
        game.check_rounds(wanted)
    except BadConfig:
        return None
    return wanted


def run_network(game_id: str, seats: list[str], rounds: int, seed: int | str = 0,
                progress: Progress | None = None,
                timeout: float = NETWORK_TIMEOUT) -> ArenaReport:
    """The same seat list through an arbiter on 127.0.0.1 and bot clients, flat-out."""
    game = get_game(game_id)
    check_seats(game, seats)
    check_run(rounds, None)
    options = {"handicap": False} if "handicap" in game.default_options() else {}
    deadline = time.monotonic() + timeout
    tick = progress.update if progress else (lambda done: None)
    tick(0)
    outcomes: list[RoundOutcome] = []
    matches = 0
    while len(outcomes) < rounds:
        match_seed = seed if matches == 0 else f"{seed}:{matches}"
        got = network_match(game, seating(seats, matches), match_seed, options,
                            rounds - len(outcomes), len(outcomes), deadline, tick)
        if not got:
            raise ArenaError(f"a {game.title} match through the arbiter ended with no round")
        outcomes += got
        matches += 1
    note = ("rounds of real matches through an arbiter on 127.0.0.1, flat-out; seats fixed "
            "within a match, rotated between matches; not reproducible move for move")
    report = tally(game, seats, seed, outcomes, "network", note)
    report.matches = matches
    return report


def spawn_bot(port: int, strategy: str, name: str, seed: str) -> subprocess.Popen:
    """One ``lan-demon bot`` process at the table on 127.0.0.1:``port``, flat-out."""
    return subprocess.Popen([sys.executable, "-m", "lan_demon", "bot", f"127.0.0.1:{port}",
                             "--strategy", strategy, "--name", name, "--seed", seed,
                             "--speed", "flat-out", "--timeout", "20"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def stop_bots(procs: list[subprocess.Popen]) -> None:
    """End every bot process still running (a match cut at K rounds goes on without them)."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        if proc.stderr is None or proc.stderr.closed:
            continue  # already read to the end (_check_bots)
        try:
            proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def network_match(game: Game, strategies: list[str], seed: int | str, options: dict[str, Any],
                  wanted: int, first_round: int, deadline: float,
                  tick: Callable[[int], None]) -> list[RoundOutcome]:
    """One match: an arbiter in a thread, one bot process per seat; stopped once it has
    ``wanted`` rounds or ends by its own rule. Whatever happens — an error, a timeout, Ctrl-C —
    every bot process is ended and the arbiter's sockets, thread and context are closed."""
    import zmq

    from lan_demon.net.names import seat_name
    from lan_demon.net.settings import Settings, dealing_of
    from lan_demon.net.server import ArbiterServer

    context = zmq.Context()
    server: ArbiterServer | None = None
    procs: list[subprocess.Popen] = []
    try:
        settings = Settings(game.id, players=len(strategies),
                            rounds=_match_rounds(game, wanted), dealing=dealing_of(seed),
                            options=options, countdown=0.0, pause=0.0)
        server = ArbiterServer(settings, port=0, context=context).start()
        # each seat's name as the arbiter seats it (12 cells: a bot's file name is cut), told
        # apart by its number first, so that the seats are read back by name
        labels = {seat_name(f"{k + 1} {name}"): name for k, name in enumerate(strategies)}
        for k, label in enumerate(labels):
            procs.append(spawn_bot(server.port, labels[label], label, f"{seed}:{k}"))
        arbiter = server.arbiter
        while True:
            done = len(arbiter.match.rounds) if arbiter.match is not None else 0
            tick(first_round + min(done, wanted))
            if done >= wanted or arbiter.phase == "over":
                break
            _check_bots(procs, deadline, game)
            time.sleep(0.05)  # the match runs in the arbiter's thread and the bot processes
        server.stop()  # joins the arbiter's thread: its match is ours to read now
        by_seat = [labels[seat.name] for seat in arbiter.seats]
        results = arbiter.match.rounds[:wanted] if arbiter.match is not None else []
        return [outcome(game, first_round + k, by_seat, r) for k, r in enumerate(results)]
    finally:
        stop_bots(procs)
        if server is not None:
            server.stop()
        context.destroy(linger=0)


def _check_bots(procs: list[subprocess.Popen], deadline: float, game: Game) -> None:
    """A bot process that ended before its match did, or a match past the deadline, is an
    error with one clear line (the bot's own last line, when it said one)."""
    for proc in procs:
        if proc.poll() is not None:
            said = (proc.communicate()[1] or "").strip().splitlines()
            raise ArenaError(f"a bot process ended before its {game.title} match did"
                             + (f": {said[-1]}" if said else f" (exit {proc.returncode})"))
    if time.monotonic() > deadline:
        raise ArenaError(f"the {game.title} match through the arbiter did not end in time")


# --- the table -----------------------------------------------------------------------------------


