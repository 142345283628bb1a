"""Strength of the Numbers To Number computer (issue 14): win shares against the baselines, and head to head.

    python -m bench.strength_numbers            # the full run: 1,000 games per cell
    python -m bench.strength_numbers --quick    # 50 games per cell of m = 6, 20 of m = 8 (CI, ~30 s)
    python -m bench.strength_numbers --games N  # N games per cell (--jobs J: worker processes)
    python -m bench.strength_numbers --only random   # only the cells whose label holds "random"

Baselines (policies that see only their own view; a pick is secret, so none sees the other's pending one):
- random: any unused number;
- snipe: random, except on a round's last move: the unused number matching the list so far that is most
  likely to score (the most expected points of its own, the other's pick taken as any of its unused
  numbers, each as likely);
- steer: picks a target among its unused numbers matching the list (a fresh one when the list leaves it)
  and pushes each symbol towards the target's digit with its extreme numbers (its largest to write its
  own larger-symbol, its smallest for the other), playing the target itself on the first move where the
  target's size pushes the right way (at the latest on the round's last move).

Targets (issue 14): m = 6 and 8, hard as player 1 and as player 2, against snipe and steer: at least 60%
each. Head to head: hard against normal and normal against easy (the stronger side > 50%), seats
alternating. Decision times (p50/p99, one core) per level over the choices of the games played.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.arena import Cell, Policy, play, report, timed
from bot.players import LEVELS
from cogs.numbers import player
from cogs.numbers.rules import View, decode_list, largest

TARGET = 0.60
SIZES = (6, 8)
OPPONENTS = ("snipe", "steer")


def random_policy(view: View, rng: random.Random) -> dict[str, Any]:
    assert view.available is not None
    return player.pick(rng.choice(view.available))


def snipe_policy(view: View, rng: random.Random) -> dict[str, Any]:
    s = player.situation(view)
    options = player.candidates(s) if s.last else []
    if not options:
        return player.pick(rng.choice(s.mine))
    d = {ch: set(decode_list(s.symbols + ch)) for ch in "01_"}

    def own_points(a: int) -> float:
        total = 0
        for b in s.theirs:
            ch = s.win if a > b else s.lose if a < b else "_"
            total += sum(1 for t in (*s.my_tickets, a) if t in d[ch])
        return total / len(s.theirs)

    scores = {a: own_points(a) for a in options}
    top = max(scores.values())
    return player.pick(rng.choice([a for a in options if scores[a] >= top - 1e-9]))


def steer_policy() -> Policy:
    """A steer player for one game (it remembers its target between the moves of a round)."""
    target: dict[int, int] = {}

    def policy(view: View, rng: random.Random) -> dict[str, Any]:
        s = player.situation(view)
        k, shift = len(s.symbols), s.m - len(s.symbols)
        prefixes = set(decode_list(s.symbols)) if s.symbols else {0}
        t = target.get(view.round)
        if t is None or t >> shift not in prefixes or (t not in s.mine and t not in s.my_tickets):
            options = [a for a in s.mine if a >> shift in prefixes] or list(s.mine)
            t = target[view.round] = rng.choice(options)
        bit = "1" if t >> (s.m - 1 - k) & 1 else "0"
        larger = bit == s.win  # to write the target's digit it plays the larger number
        if t in s.mine:
            high = t > largest(s.m) // 2
            if high == larger or s.last:
                return player.pick(t)
        rest = [a for a in s.mine if a != t] or list(s.mine)
        return player.pick(rest[-1] if larger else rest[0])

    return policy


def _policy(name: str, times: dict[str, list[float]]) -> Policy:
    if name == "random":
        return random_policy
    if name == "snipe":
        return snipe_policy
    if name == "steer":
        return steer_policy()
    return timed(player.choose, name, times.setdefault(name, []))


Job = tuple[str, str, str, int, int, int]  # label, seat-1 policy, seat-2 policy, m, counted seat, seed


def _run(jobs: list[Job]) -> tuple[list[tuple[str, float]], dict[str, list[float]]]:
    times: dict[str, list[float]] = {}
    out = []
    for label, first, second, m, counted, seed in jobs:
        shares = play("numbers", [_policy(first, times), _policy(second, times)], {"m": m}, seed)
        out.append((label, shares[counted]))
    return out, times


def plan(games: int, large_games: int, only: str = "") -> tuple[list[Cell], list[Job]]:
    """The cells (those whose label holds ``only``) and their games: ``games`` per cell, ``large_games``
    per cell of m = 8 (a game of m = 8 has 31 rounds of 8 moves, one of m = 6 has 10 of 6)."""
    cells: list[Cell] = []
    jobs: list[Job] = []
    seed = 0

    def cell(label: str, target: float | None, make: Callable[[int], tuple[str, str, int]], m: int) -> None:
        nonlocal seed
        seed += 100_000  # each cell its own seeds, whichever cells run
        if only not in label:
            return
        cells.append(Cell(label, target))
        for g in range(large_games if m == 8 else games):
            first, second, counted = make(g)
            jobs.append((label, first, second, m, counted, seed))
            seed += 1

    for m in SIZES:
        for opp in OPPONENTS:
            cell(f"m={m} hard as player 1 vs {opp}", TARGET, lambda g, o=opp: ("hard", o, 0), m)
            cell(f"m={m} hard as player 2 vs {opp}", TARGET, lambda g, o=opp: (o, "hard", 1), m)
        cell(f"m={m} hard vs random (seats alternate)", None, _alternate("hard", "random"), m)
    for m in SIZES:
        cell(f"m={m} hard vs normal (seats alternate)", 0.5, _alternate("hard", "normal"), m)
        cell(f"m={m} normal vs easy (seats alternate)", 0.5, _alternate("normal", "easy"), m)
    return cells, jobs


def _alternate(strong: str, weak: str) -> Callable[[int], tuple[str, str, int]]:
    return lambda g: (strong, weak, 0) if g % 2 == 0 else (weak, strong, 1)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 games per cell of m = 6, 20 of m = 8 (CI)")
    parser.add_argument("--games", type=int, default=None, help="games per cell (default 1,000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--only", default="", help="only the cells whose label holds this text")
    args = parser.parse_args()
    games = args.games or (50 if args.quick else 1000)
    large_games = args.games or (20 if args.quick else 1000)
    cells, jobs = plan(games, large_games, args.only)
    chunks = [jobs[i :: args.jobs] for i in range(args.jobs)]
    started = time.time()
    by_label = {c.label: c for c in cells}
    times: dict[str, list[float]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for results, chunk_times in pool.map(_run, chunks):
            for label, share in results:
                by_label[label].add(share)
            for level, ts in chunk_times.items():
                times.setdefault(level, []).extend(ts)
    sizes = f"{games} games per cell" + (f" of m = 6, {large_games} of m = 8" if large_games != games else "")
    report(f"Numbers To Number: win share of the first-named side ({sizes})", cells)
    print("\nDecision time per level (one core, process time)")
    for level in LEVELS:
        ts = times.get(level, [])
        p50, p99, top = percentile(ts, 0.5), percentile(ts, 0.99), max(ts, default=0.0)
        print(
            f"  {level:7} p50 {p50 * 1000:7.2f} ms   p99 {p99 * 1000:7.2f} ms"
            f"   max {top * 1000:7.2f} ms   ({len(ts)} choices)"
        )
    print(f"\n{len(jobs)} games in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
