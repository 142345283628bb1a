"""Strength of the Lines By The Dots computer (issue 14): win shares against the baselines, and head to head.

    python -m bench.strength_dots            # the full run: 1,000 games per cell
    python -m bench.strength_dots --quick    # 20 games per cell (CI; about 30 s on two cores)
    python -m bench.strength_dots --games N  # N games per cell (--jobs J: worker processes)
    python -m bench.strength_dots --part targets   # only the target table (or: levels)

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
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.arena import Cell, Policy, play, report, timed
from bot.players import LEVELS
from cogs.dots import player
from cogs.dots.rules import View

TARGET = 0.65
SIZES = (5, 6, 7, 8)


def random_policy(view: View, rng: random.Random) -> dict[str, Any]:
    start = rng.choice(view.starts)
    return player._action(view, start, rng.choice(view.ends[start]))


def greedy_policy(view: View, rng: random.Random) -> dict[str, Any]:
    start, end = player._greedy(view, rng)
    return player._action(view, start, end)


def _policy(name: str, times: dict[str, list[float]]) -> Policy:
    if name == "random":
        return random_policy
    if name == "greedy":
        return greedy_policy
    return timed(player.choose, name, times.setdefault(name, []))


def _games(
    job: tuple[str, str, int, int, int, int],
) -> tuple[list[tuple[int, float]], dict[str, list[float]]]:
    """One slice of a duel (run in a worker): games ``lo`` to ``hi`` of hero against rival, the hero in
    the first seat in even games and in the second in odd ones; each game's (index, hero's share)."""
    hero_name, rival_name, size, seed, lo, hi = job
    times: dict[str, list[float]] = {}
    hero, rival = _policy(hero_name, times), _policy(rival_name, times)
    out = []
    for i in range(lo, hi):
        if i % 2 == 0:
            share = play("dots", [hero, rival], {"size": size}, seed + i)[0]
        else:
            share = play("dots", [rival, hero], {"size": size}, seed + i)[1]
        out.append((i, share))
    return out, times


class Duel:
    """hero against rival at one size: cells as the first seat, as the second, and both."""

    def __init__(self, hero: str, rival: str, size: int, games: int, seed: int, target: float | None):
        self.job = (hero, rival, size, seed)
        self.games = games
        label = f"{hero} vs {rival}, n={size}"
        self.first = Cell(f"{label}, as first", target)
        self.second = Cell(f"{label}, as second", target)
        self.both = Cell(f"{label}, alternating seats", target)

    def jobs(self, chunk: int) -> list[tuple[str, str, int, int, int, int]]:
        return [(*self.job, lo, min(self.games, lo + chunk)) for lo in range(0, self.games, chunk)]

    def add(self, results: list[tuple[int, float]]) -> None:
        for i, share in results:
            (self.first if i % 2 == 0 else self.second).add(share)
            self.both.add(share)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="20 games per cell (CI; about 30 s on two cores)"
    )
    parser.add_argument("--games", type=int, default=None, help="games per cell")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument(
        "--part", choices=("all", "targets", "levels"), default="all", help="only one of the two tables"
    )
    args = parser.parse_args(argv)
    games = args.games or (20 if args.quick else 1000)

    targets = [Duel("hard", "greedy", size, games, args.seed + 100_000 * size, TARGET) for size in SIZES]
    others = [
        Duel("hard", "random", 5, games, args.seed + 1_000_000, None),
        *(Duel("normal", "greedy", size, games, args.seed + 2_000_000 + size, None) for size in (5, 8)),
        *(Duel("hard", "normal", size, games, args.seed + 3_000_000 + size, 0.5) for size in (5, 8)),
        *(Duel("normal", "easy", size, games, args.seed + 4_000_000 + size, 0.5) for size in (5, 8)),
    ]
    chunk = max(5, games // 20)
    times: dict[str, list[float]] = {level: [] for level in LEVELS}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        # The targets first, printed as soon as they are in.
        for duels, title, cells in (
            (targets, f"Lines By The Dots, two players: hard against greedy ({games} games per n)", "seats"),
            (others, "Baselines and levels head to head (the first named is the stronger)", "both"),
        ):
            if args.part != "all" and (cells == "seats") != (args.part == "targets"):
                continue
            jobs = [(d, job) for d in duels for job in d.jobs(chunk)]
            for (d, _), (results, slice_times) in zip(
                jobs, pool.map(_games, [j for _, j in jobs]), strict=True
            ):
                d.add(results)
                for level, ts in slice_times.items():
                    times[level] += ts
            if cells == "seats":
                report(title, [c for d in duels for c in (d.first, d.second, d.both)])
            else:
                report(title, [d.both for d in duels])
            sys.stdout.flush()
    print("\nDecision time (process time per choice)")
    for level in LEVELS:
        ts = sorted(times[level])
        if ts:
            p50, p99 = ts[len(ts) // 2], ts[min(len(ts) - 1, int(len(ts) * 0.99))]
            print(
                f"  {level:7} p50 {p50 * 1000:7.1f} ms  p99 {p99 * 1000:7.1f} ms  max {ts[-1] * 1000:7.1f} ms"
                f"   ({len(ts)} choices)"
            )


if __name__ == "__main__":
    main()
