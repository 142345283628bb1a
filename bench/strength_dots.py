"""Strength of the Lines By The Dots computer (issue 14): win shares against the baselines, and head to head.

    python -m bench.strength_dots            # the full run: 1,000 games per cell
    python -m bench.strength_dots --quick    # ~60 games per cell (CI)
    python -m bench.strength_dots --games N  # N games per cell

Baselines (policies that see only their own view):
- random: any legal line;
- greedy: the line that scores the most now (RULES.md's score before drawing), ties at random; a line from
  the current dot always scores the same, so greedy only chooses where it has a choice of start (the
  first line of the game and fallbacks).

Two players. The hard player plays half the games as the first seat and half as the second: each target
cell is reported per seat and for the alternating seats together. Decision times (p50/p99, one core) are
measured over the choices of the games played.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from bench.arena import Cell, Policy, play, report
from bot.games.dots import View
from bot.players import dots as player

TARGET = 0.65
SIZES = (5, 6, 7, 8)
TIMES: dict[str, list[float]] = {level: [] for level in ("easy", "normal", "hard")}


def random_policy(view: View, rng: random.Random) -> dict[str, Any]:
    start = rng.choice(view.starts)
    return player._action(view, start, rng.choice(view.ends[start]))


def greedy_policy(view: View, rng: random.Random) -> dict[str, Any]:
    start, end = player._greedy(view, rng)
    return player._action(view, start, end)


def level_policy(level: str) -> Policy:
    def policy(view: View, rng: random.Random) -> dict[str, Any]:
        t0 = time.process_time()
        action = player.choose(view, level, rng)
        TIMES[level].append(time.process_time() - t0)
        return action

    return policy


def duel(
    label: str,
    hero: Policy,
    rival: Policy,
    size: int,
    games: int,
    seed: int,
    target: float | None,
    per_seat: bool,
) -> list[Cell]:
    """``games`` games of hero against rival, seats alternating; the cells: as first, as second, both."""
    first = Cell(f"{label}, n={size}, as first", target)
    second = Cell(f"{label}, n={size}, as second", target)
    both = Cell(f"{label}, n={size}, alternating seats", target)
    for i in range(games):
        if i % 2 == 0:
            share = play("dots", [hero, rival], {"size": size}, seed + i)[0]
            first.add(share)
        else:
            share = play("dots", [rival, hero], {"size": size}, seed + i)[1]
            second.add(share)
        both.add(share)
    return [first, second, both] if per_seat else [both]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="~60 games per cell (CI)")
    parser.add_argument("--games", type=int, default=None, help="games per cell")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args(argv)
    games = args.games or (60 if args.quick else 1000)

    hard, normal, easy = (level_policy(level) for level in ("hard", "normal", "easy"))
    greedy: Callable[[View, random.Random], dict[str, Any]] = greedy_policy
    cells: list[Cell] = []
    for size in SIZES:
        cells += duel("hard vs greedy", hard, greedy, size, games, args.seed + 1000 * size, TARGET, True)
    report(f"Lines By The Dots, two players: hard against greedy ({games} games per n)", cells)

    others: list[Cell] = []
    for size in (5, 8):
        others += duel("hard vs random", hard, random_policy, size, games, args.seed + 7 * size, None, False)
        others += duel("normal vs greedy", normal, greedy, size, games, args.seed + 11 * size, None, False)
        others += duel("hard vs normal", hard, normal, size, games, args.seed + 13 * size, 0.5, False)
        others += duel("normal vs easy", normal, easy, size, games, args.seed + 17 * size, 0.5, False)
    report("Baselines and levels head to head (the first named is the stronger)", others)

    print("\nDecision time (process time, one core)")
    for level, times in TIMES.items():
        if times:
            times.sort()
            p50 = times[len(times) // 2]
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            print(f"  {level:7} p50 {p50 * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms   ({len(times)} choices)")


if __name__ == "__main__":
    main()
