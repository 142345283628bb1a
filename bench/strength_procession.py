"""Strength of the Procession computer player (issue 14): win shares against the baselines.

    python bench/strength.py procession                  # 1,000 games per cell
    python bench/strength.py procession --big-games=200  # fewer where n >= 10 (seconds a game)
    python bench/strength.py procession --quick          # 12 games per cell, for CI
    python bench/strength_procession.py --thrown         # issue 24: hard never throws a won game, n <= 9

Baselines: `random` (uniform legal flip) and `one-ply` (takes a flip that ends the game, else avoids
flips that leave the opponent one). Seats alternate between games unless a cell fixes them.

`--thrown` plays `hard` two-player games for n = 5..9 in each seat (200 games per n, seat and opponent
by default; opponents: `perfect`, a winning flip when there is one, else a random flip, and `random`),
judges every decision of `hard` with an exact solver of its own (`Oracle`, independent of the player),
prints "won positions thrown" per n and seat with hard's decision times (median and worst, per n), and
exits non-zero if any won position was thrown.

Games run on every core; each cell's seeds are fixed, so the table does not depend on how many.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.arena import Cell, Policy, play, report
from cogs.procession import player, rules

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


# ---- issue 24: does `hard` ever throw a won two-player game (n <= 9)? ---------------------------------


class Oracle:
    """Exact won/lost of two-player positions, written apart from the player: rows as integers read as
    binary strings (position 1 = the most significant digit), a memo kept for the process's life, keyed
    by the row up to reversal and complement (they keep every run length)."""

    def __init__(self, n: int) -> None:
        self.n = n
        index: dict[rules.Multiset, int] = {}
        rows = [format(r, f"0{n}b") for r in range(1 << n)]
        self.bit = [1 << index.setdefault(rules.multiset(row), len(index)) for row in rows]
        full = (1 << n) - 1
        rev = [int(row[::-1], 2) for row in rows]
        self.sym = [min(r, r ^ full, rev[r], rev[r] ^ full) for r in range(1 << n)]
        self.memo: dict[int, bool] = {}

    def position(self, rows: Sequence[str]) -> tuple[int, int]:
        seen = 0
        for row in rows:
            seen |= self.bit[int(row, 2)]
        return int(rows[-1], 2), seen

    def children(self, row: int, seen: int) -> dict[int, tuple[int, int]]:
        """Legal flip (1-based position) -> the position it leads to."""
        out = {}
        for p in range(1, self.n + 1):
            r = row ^ (1 << (self.n - p))
            if not seen & self.bit[r]:
                out[p] = (r, seen | self.bit[r])
        return out

    def wins(self, row: int, seen: int) -> bool:
        """Whether the player to move at (row, seen) wins."""
        memo = self.memo
        key = seen << 16 | self.sym[row]
        known = memo.get(key)
        if known is None:
            kids = list(self.children(row, seen).values())
            known = any(memo.get(s << 16 | self.sym[r]) is False for r, s in kids)
            if not known:
                kids.sort(key=lambda k: len(self.children(*k)))  # few replies first: finds wins sooner
                known = any(not self.wins(*k) for k in kids)
            if len(memo) > 5_000_000:
                memo.clear()
            memo[key] = known
        return known


_ORACLES: dict[int, Oracle] = {}


def thrown_cells(job: tuple[int, int]) -> dict[tuple[int, str], tuple[int, int, int, list[float]]]:
    """Every (seat, opponent) cell of one n, in one process so that the oracle's memo serves them all."""
    n, games = job
    cells = [(seat, opp) for seat in (0, 1) for opp in ("perfect", "random")]
    return {cell: thrown_games(n, *cell, games) for cell in cells}


def thrown_games(n: int, seat: int, opponent: str, games: int) -> tuple[int, int, int, list[float]]:
    """``games`` games of n with `hard` in ``seat`` against ``opponent``: (won positions hard met, won
    positions it threw, games it threw, its decision times in seconds)."""
    oracle = _ORACLES.setdefault(n, Oracle(n))
    met = thrown = thrown_in = 0
    times: list[float] = []
    for i in range(games):
        rng = random.Random(f"{n}-{seat}-{opponent}-{i}")
        state = rules.new_game(2, {"n": n}, 0)
        threw = False
        while not state.finished:
            view = rules.view_for(state, state.turn)
            kids = oracle.children(*oracle.position(state.rows))
            if state.turn == seat:
                started = time.perf_counter()
                position = player.choose(view, "hard", random.Random(rng.getrandbits(32)))["position"]
                times.append(time.perf_counter() - started)
                if oracle.wins(*oracle.position(state.rows)):
                    met += 1
                    if oracle.wins(*kids[position]):
                        thrown += 1
                        threw = True
            else:
                winning = [p for p, k in kids.items() if not oracle.wins(*k)] if opponent == "perfect" else []
                position = rng.choice(winning or list(kids))
            state = rules.apply(state, state.turn, {"type": "flip", "position": position})
        thrown_in += threw
    return met, thrown, thrown_in, times


def thrown_report(games: int) -> int:
    """Prints the issue 24 table; the number of won positions thrown in all."""
    print(f"hard, two players: won positions thrown ({games} games per n, seat and opponent)")
    total = 0
    with ProcessPoolExecutor(max_workers=2) as pool:  # n = 9 takes longest: it goes first
        ns = range(9, 4, -1)
        cells = dict(zip(ns, pool.map(thrown_cells, [(n, games) for n in ns]), strict=True))
    for n in range(5, 10):
        times: list[float] = []
        for seat in (0, 1):
            met = thrown = thrown_in = 0
            for opp in ("perfect", "random"):
                m, t, g, ts = cells[n][(seat, opp)]
                met, thrown, thrown_in = met + m, thrown + t, thrown_in + g
                times += ts
            total += thrown
            print(
                f"  n={n} seat {seat + 1}: won positions met {met:5}, won positions thrown: {thrown}"
                f" (in {thrown_in} of {2 * games} games)"
            )
        times.sort()
        print(
            f"  n={n} decision time: median {statistics.median(times) * 1000:6.1f} ms,"
            f" worst {times[-1] * 1000:7.1f} ms ({len(times)} decisions)"
        )
    print(f"won positions thrown in all: {total}")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--thrown", action="store_true", help="issue 24: hard's thrown won games, n = 5..9")
    parser.add_argument("--quick", action="store_true", help="12 games per cell")
    parser.add_argument("--games", type=int, default=None, help="games per cell (default 1,000)")
    parser.add_argument(
        "--big-games",
        type=int,
        default=None,
        help="games per cell where hard searches n >= 10 (default: --games); these take seconds a game",
    )
    args = parser.parse_args()
    if args.thrown:
        sys.exit(1 if thrown_report(args.games or 200) else 0)
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
