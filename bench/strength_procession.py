"""Strength of the Procession computer player (issue 14): win shares against the baselines.

    python bench/strength.py procession                  # 1,000 games per cell
    python bench/strength.py procession --big-games=200  # fewer where n >= 10 (seconds a game)
    python bench/strength.py procession --quick          # 12 games per cell, for CI

Games run on every core; each cell's seeds are fixed, so the table does not depend on how many.

Baselines: `random` (uniform legal flip) and `one-ply` (takes a flip that ends the game, else avoids
flips that leave the opponent one). Seats alternate between games unless a cell fixes them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.arena import Cell, Policy, play, report
from bot.games import procession as rules
from bot.players import procession as player

GAME = "procession"


def random_policy(view: rules.View, rng: random.Random) -> dict[str, Any]:
    return {"type": "flip", "position": rng.choice(view.legal)}


def one_ply(view: rules.View, rng: random.Random) -> dict[str, Any]:
    g, row, seen = player._position(view)
    wins = player._immediate_wins(g, row, seen)
    pool = wins or player._safe(g, row, seen) or list(view.legal)
    return {"type": "flip", "position": rng.choice(pool)}


def level(name: str) -> Policy:
    def policy(view: rules.View, rng: random.Random) -> dict[str, Any]:
        return player.choose(view, name, rng)

    return policy


POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "one-ply": one_ply,
    **{name: level(name) for name in ("easy", "normal", "hard")},
}


def one_game(job: tuple[str, str, int, int, int, int]) -> float:
    """``ours`` in ``seat`` among ``players - 1`` of ``theirs``: our share of game ``seed``."""
    ours, theirs, n, players, seat, seed = job
    seats = [POLICIES[theirs]] * players
    seats[seat] = POLICIES[ours]
    return play(GAME, seats, {"n": n}, seed=seed)[seat]


class Arena:
    """Runs each cell's games on every core (the table does not depend on how many: seeds are fixed)."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool

    def cell(self, cell: Cell, jobs: Sequence[tuple[str, str, int, int, int, int]]) -> Cell:
        for share in self.pool.map(one_game, jobs, chunksize=1):
            cell.add(share)
        return cell

    def duel(
        self, cell: Cell, ours: str, theirs: str, n: int, games: int, seats: Sequence[int] = (0, 1)
    ) -> Cell:
        """``ours`` against ``theirs``, two players; ``ours`` sits in ``seats`` in turn."""
        jobs = [(ours, theirs, n, 2, seats[i % len(seats)], 1_000_003 * n + i) for i in range(games)]
        return self.cell(cell, jobs)

    def crowd(self, cell: Cell, ours: str, theirs: str, n: int, players: int, games: int) -> Cell:
        jobs = [
            (ours, theirs, n, players, i % players, 7_000_003 * n + 31 * players + i) for i in range(games)
        ]
        return self.cell(cell, jobs)


def decision_times(name: str, samples: int) -> tuple[float, float]:
    """p50 and p99 (seconds) of `choose` over positions of random games, n = 6..12, 2-3 players."""
    rng = random.Random(99)
    times: list[float] = []
    while len(times) < samples:
        n = rng.randint(6, 12)
        state = rules.new_game(rng.choice((2, 2, 3)), {"n": n}, 0)
        while not state.finished and len(times) < samples:
            view = rules.view_for(state, state.turn)
            start = time.perf_counter()
            action = player.choose(view, name, random.Random(len(times)))
            times.append(time.perf_counter() - start)
            # Continue along a random line so that every stage of the game is sampled.
            if rng.random() < 0.5:
                action = random_policy(view, rng)
            state = rules.apply(state, state.turn, action)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(0.99 * len(times)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="12 games per cell")
    parser.add_argument("--games", type=int, default=None, help="games per cell (default 1,000)")
    parser.add_argument(
        "--big-games",
        type=int,
        default=None,
        help="games per cell where hard searches n >= 10 (default: --games); these take seconds a game",
    )
    args = parser.parse_args()
    # The exact solver's games are slow at n >= 10 (hundreds of ms a move): CI's short form plays few.
    games = args.games or (12 if args.quick else 1000)
    big = args.big_games or games
    started = time.perf_counter()
    with ProcessPoolExecutor() as pool:
        arena = Arena(pool)
        exact: list[Cell] = []
        for n in (6, 7, 8, 9):
            # The seat that wins with perfect play: the first for n = 6, 7, 9, the second for n = 8.
            won_seat = 1 if n == 8 else 0
            label = f"hard (won seat {won_seat + 1}) vs one-ply, n={n}"
            exact.append(arena.duel(Cell(label, 1.0), "hard", "one-ply", n, games, (won_seat,)))
            exact.append(arena.duel(Cell(f"hard vs one-ply, n={n}, both seats"), "hard", "one-ply", n, games))
            exact.append(arena.duel(Cell(f"hard vs random, n={n}, both seats"), "hard", "random", n, games))
        report("Procession, two players, n <= 9 (exact play; the won seat must win every game)", exact)

        above = [
            arena.duel(Cell(f"hard vs one-ply, n={n}", 0.6), "hard", "one-ply", n, big) for n in (10, 11, 12)
        ]
        report("Procession, two players, n > 9", above)

        multi = [
            arena.crowd(Cell(f"hard among {k - 1} random, n={n}", 1.5 / k), "hard", "random", n, k, big)
            for k in (3, 4)
            for n in (6, 9, 12)
        ]
        report("Procession, 3-4 players (last mover wins): 1.5x the fair share", multi)

        levels = [
            arena.duel(Cell("hard vs normal, n=9", 0.5), "hard", "normal", 9, games),
            arena.duel(Cell("hard vs normal, n=11", 0.5), "hard", "normal", 11, big),
            *(
                arena.duel(Cell(f"normal vs easy, n={n}", 0.5), "normal", "easy", n, games)
                for n in (6, 9, 11)
            ),
        ]
        report("Procession, levels head to head", levels)

    print("\nDecision time per level (n = 6..12, 2-3 players, positions along random games):")
    for name in ("easy", "normal", "hard"):
        p50, p99 = decision_times(name, 60 if args.quick else 2000)
        print(f"  {name:7} p50 {p50 * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms")
    print(
        f"\n{games} games per cell ({big} where hard searches n >= 10); {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
