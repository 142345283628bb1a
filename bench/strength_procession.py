"""Strength of the Procession computer player (issue 14): win shares against the baselines.

    python -m bench.strength_procession            # 1,000 games per cell
    python -m bench.strength_procession --quick    # 12 games per cell, for CI

Baselines: `random` (uniform legal flip) and `one-ply` (takes a flip that ends the game, else avoids
flips that leave the opponent one). Seats alternate between games unless a cell fixes them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
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


def duel(cell: Cell, ours: Policy, theirs: Policy, n: int, games: int, seats: Sequence[int] = (0, 1)) -> Cell:
    """``ours`` against ``theirs``, two players; ``ours`` sits in ``seats`` in turn."""
    for i in range(games):
        seat = seats[i % len(seats)]
        pair = [theirs, theirs]
        pair[seat] = ours
        cell.add(play(GAME, pair, {"n": n}, seed=1_000_003 * n + i)[seat])
    return cell


def crowd(cell: Cell, ours: Policy, theirs: Policy, n: int, players: int, games: int) -> Cell:
    for i in range(games):
        seat = i % players
        seats = [theirs] * players
        seats[seat] = ours
        cell.add(play(GAME, seats, {"n": n}, seed=7_000_003 * n + 31 * players + i)[seat])
    return cell


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
    parser.add_argument("--games", type=int, default=None)
    args = parser.parse_args()
    # The exact solver's games are slow at n >= 10 (hundreds of ms a move): CI's short form plays few.
    games = args.games or (12 if args.quick else 1000)
    hard, normal, easy = level("hard"), level("normal"), level("easy")
    started = time.perf_counter()

    exact: list[Cell] = []
    for n in (6, 7, 8, 9):
        # The seat that wins with perfect play: the first for n = 6, 7, 9, the second for n = 8.
        won_seat = 1 if n == 8 else 0
        exact.append(
            duel(
                Cell(f"hard (won seat {won_seat + 1}) vs one-ply, n={n}", 1.0),
                hard,
                one_ply,
                n,
                games,
                (won_seat,),
            )
        )
        exact.append(duel(Cell(f"hard vs one-ply, n={n}, both seats"), hard, one_ply, n, games))
        exact.append(duel(Cell(f"hard vs random, n={n}, both seats"), hard, random_policy, n, games))
    report("Procession, two players, n <= 9 (exact play; the won seat must win every game)", exact)

    big = [duel(Cell(f"hard vs one-ply, n={n}", 0.6), hard, one_ply, n, games) for n in (10, 11, 12)]
    report("Procession, two players, n > 9", big)

    multi = [
        crowd(Cell(f"hard among {k - 1} random, n={n}", 1.5 / k), hard, random_policy, n, k, games)
        for k in (3, 4)
        for n in (6, 9, 12)
    ]
    report("Procession, 3-4 players (last mover wins): 1.5x the fair share", multi)

    levels = [duel(Cell(f"hard vs normal, n={n}", 0.5), hard, normal, n, games) for n in (9, 11)] + [
        duel(Cell(f"normal vs easy, n={n}", 0.5), normal, easy, n, games) for n in (6, 9, 11)
    ]
    report("Procession, levels head to head", levels)

    print("\nDecision time per level (n = 6..12, 2-3 players, positions along random games):")
    for name in ("easy", "normal", "hard"):
        p50, p99 = decision_times(name, 60 if args.quick else 2000)
        print(f"  {name:7} p50 {p50 * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms")
    print(f"\n{games} games per cell; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
