"""How strong the computer players of The Numerical Card Game are (issue 14), m = 12.

Targets: ``hard`` among ``normal`` players wins at least 1.5x the fair share with 3, 4 and 5 players;
levels are ordered head to head (two players; the stronger one above 50%). For reference, ``hard``
among random players (a random card from the pile, never a drop). Then the decision times per level.

    python bench/strength_divisors.py            # 1,000 games per cell (250 for the reference)
    python bench/strength_divisors.py --quick    # 40 games per cell (CI)
    python bench/strength_divisors.py --workers 1 --part targets   # one core, the target cells only

Each cell rotates the hero through every seat. Games are spread over ``--workers`` processes (all
cores by default; the seeds, and so the table, do not depend on how many); ``arena.play`` runs each
game. ``--part`` runs the target cells only (``targets``) or the rest only (``levels``: head to head,
the random reference and the decision times).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.arena import Cell, Policy, play, report
from bot.players import LEVELS
from cogs.divisors import player as P
from cogs.divisors import rules as D

GAME = "divisors"
OPTIONS = {"m": 12}
GAMES = 1000
REFERENCE_GAMES = 250  # the random baseline, for reference only
QUICK_GAMES = 40


def random_card(view: Any, rng: random.Random) -> dict[str, Any]:
    """The random baseline: any card of the pile, never a drop."""
    return P.pick(rng.choice(sorted(set(view.hand_cards))))


def level(name: str, view: Any, rng: random.Random) -> dict[str, Any]:
    return P.choose(view, name, rng)


POLICIES: dict[str, Policy] = {"random": random_card, **{name: partial(level, name) for name in LEVELS}}


def one_game(hero: str, others: str, n: int, seed: int) -> float:
    """The hero's share of one game, seated at ``seed % n`` among ``n - 1`` others."""
    seat = seed % n
    policies = [POLICIES[others]] * n
    policies[seat] = POLICIES[hero]
    return play(GAME, policies, OPTIONS, seed)[seat]


def run_cell(
    pool: ProcessPoolExecutor,
    label: str,
    target: float | None,
    hero: str,
    others: str,
    n: int,
    games: int,
) -> Cell:
    cell = Cell(label, target)
    for share in pool.map(partial(one_game, hero, others, n), range(games), chunksize=10):
        cell.add(share)
    return cell


def decision_times(games: int) -> dict[str, list[float]]:
    """Seconds per decision of each level, over whole 4-player games of all three levels."""
    times: dict[str, list[float]] = {name: [] for name in LEVELS}
    for seed in range(games):
        rng = random.Random(seed)
        levels = [LEVELS[(seed + s) % 3] for s in range(4)]
        state = D.new_game(4, OPTIONS, 0)
        while D.outcome(state) is None:
            seat = min(D.to_act(state))
            view = D.view_for(state, seat)
            t0 = time.perf_counter()
            action = P.choose(view, levels[seat], rng)
            times[levels[seat]].append(time.perf_counter() - t0)
            state = D.apply(state, seat, action)
    return times


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_GAMES} games per cell (CI)")
    parser.add_argument("--games", type=int, default=None, help=f"games per cell (default {GAMES})")
    parser.add_argument(
        "--reference-games", type=int, default=None, help=f"games per reference cell ({REFERENCE_GAMES})"
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--part", choices=("all", "targets", "levels"), default="all")
    args = parser.parse_args(argv)
    games = args.games or (QUICK_GAMES if args.quick else GAMES)
    reference_games = args.reference_games or (QUICK_GAMES if args.quick else REFERENCE_GAMES)

    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        if args.part in ("all", "targets"):
            targets = [
                run_cell(pool, f"hard among normal, {n} players", 1.5 / n, "hard", "normal", n, games)
                for n in (3, 4, 5)
            ]
            report(f"The Numerical Card Game, m = 12: win shares ({games} games per cell)", targets)
            print(f"({time.perf_counter() - start:.0f} s so far)", flush=True)
        if args.part in ("all", "levels"):
            ordered = [
                run_cell(pool, "hard vs normal, 2 players", 0.5, "hard", "normal", 2, games),
                run_cell(pool, "normal vs easy, 2 players", 0.5, "normal", "easy", 2, games),
            ]
            reference = [
                run_cell(pool, f"hard among random, {n} players", None, "hard", "random", n, reference_games)
                for n in (3, 4, 5)
            ]
            report(f"Levels head to head ({games} games per cell)", ordered)
            report(
                f"For reference (no target): the random baseline ({reference_games} games per cell)",
                reference,
            )
    if args.part in ("all", "levels"):
        times = decision_times(3 if args.quick else 30)
        print("\nDecision time per level (4-player games of all three levels, one core):")
        for name, values in times.items():
            p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
            print(
                f"  {name:8} p50 {p50 * 1000:7.3f} ms   p99 {p99 * 1000:7.3f} ms   ({len(values)} decisions)"
            )
    print(f"\n{time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
