"""How strong the computer players of The Numerical Card Game are (issue 14), m = 12.

Targets: ``hard`` among ``normal`` players wins at least 1.5x the fair share with 3, 4 and 5 players;
levels are ordered head to head (two players; the stronger one above 50%). For reference, ``hard``
among random players (a random card from the pile, never a drop). Then the decision times per level.

    python bench/strength_divisors.py            # 1,000 games per cell (250 for the reference)
    python bench/strength_divisors.py --quick    # 40 games per cell (CI)

Each cell rotates the hero through every seat. Games are spread over the machine's cores (the seeds,
and so the table, do not depend on how many); ``arena.play`` runs each game.
"""

from __future__ import annotations

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
from bot.games import divisors as D
from bot.players import LEVELS
from bot.players import divisors as P

GAME = "divisors"
OPTIONS = {"m": 12}
QUICK = "--quick" in sys.argv
GAMES = 40 if QUICK else 1000
REFERENCE_GAMES = 40 if QUICK else 250  # the random baseline, for reference only


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
    games: int = GAMES,
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


def main() -> None:
    start = time.perf_counter()
    with ProcessPoolExecutor() as pool:
        targets = [
            run_cell(pool, f"hard among normal, {n} players", 1.5 / n, "hard", "normal", n) for n in (3, 4, 5)
        ]
        ordered = [
            run_cell(pool, "hard vs normal, 2 players", 0.5, "hard", "normal", 2),
            run_cell(pool, "normal vs easy, 2 players", 0.5, "normal", "easy", 2),
        ]
        reference = [
            run_cell(pool, f"hard among random, {n} players", None, "hard", "random", n, REFERENCE_GAMES)
            for n in (3, 4, 5)
        ]
    report(f"The Numerical Card Game, m = 12: win shares ({GAMES} games per cell)", targets + ordered)
    report("For reference (no target): the random baseline", reference)
    times = decision_times(3 if QUICK else 30)
    print("\nDecision time per level (4-player games of all three levels, one core):")
    for name, values in times.items():
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        print(f"  {name:8} p50 {p50 * 1000:7.3f} ms   p99 {p99 * 1000:7.3f} ms   ({len(values)} decisions)")
    print(f"\n{time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
