"""Analysis of the longest game of each kind: how long `SPEC.analyse` takes, against the 10 s target.

    python bench/analysis.py [--quick] [--seconds S]

Each kind's longest realistic game: computer players (``hard`` where it is quick, ``normal``
otherwise) play seeded games of the largest size and the most players (Procession n = 12 with 2 and
8 players; Lines By The Dots 10 x 10 with 2 and 6 players; Up-Down-Stay with 2 players; Numbers To
Number m = 8; the Numerical Card Game with 8 players and m = 25), and the longest is analysed with the
budget the command gives (``--seconds``, default 8). Printed: moves, CPU and wall time, how the moves
were judged (exact / estimated / unknown), whether the review is complete, and PASS or FAIL against
10 s of wall time. Two smaller cases show how much is exact there: Procession n = 9 with 2 players
(all of it) and Lines By The Dots at its default size 5. ``--quick`` (CI) plays fewer seeds.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.selfplay import longest
from bot.analysis import GameRecord
from bot.registry import GAMES

TARGET_S = 10.0
QUICK = "--quick" in sys.argv
SECONDS = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv[:-1] else 8.0

# kind, players, options, level, seeds (full, quick)
CASES: tuple[tuple[str, int, dict[str, int], str, tuple[int, int]], ...] = (
    ("procession", 2, {"n": 12}, "normal", (10, 3)),
    ("procession", 8, {"n": 12}, "normal", (10, 3)),
    ("procession", 2, {"n": 9}, "normal", (10, 3)),  # the largest n solved exactly, for comparison
    ("dots", 2, {"size": 10}, "normal", (5, 2)),
    ("dots", 2, {"size": 5}, "normal", (5, 2)),  # the default size, for comparison
    ("dots", 6, {"size": 10}, "normal", (5, 2)),
    ("updown", 2, {}, "normal", (5, 1)),
    ("numbers", 2, {"m": 8}, "normal", (1, 1)),
    ("divisors", 8, {"m": 25}, "normal", (3, 1)),
)


def longest_game(kind: str, players: int, options: dict[str, int], level: str, seeds: int) -> GameRecord:
    """The longest of ``seeds`` games of computer players of ``level``."""
    seed, moves = longest(kind, players, options, seeds, level)
    return GameRecord(kind, players, options, seed, moves)


def main() -> None:
    mode = "quick" if QUICK else "full"
    print(
        f"analysis benchmark ({mode}): the longest game of each kind, budget {SECONDS:g} s, "
        f"target < {TARGET_S:.0f} s"
    )
    for kind, players, options, level, (full, quick) in CASES:
        record = longest_game(kind, players, options, level, quick if QUICK else full)
        analyse = GAMES[kind].analyse
        t0, c0 = time.perf_counter(), time.process_time()
        review = analyse(record, SECONDS)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        judged = Counter(
            "unknown" if m.verdict == "unknown" else ("exact" if m.exact else "estimated")
            for m in review.moves
        )
        verdicts = Counter(m.verdict for m in review.moves)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(options.items()))
        print(
            f"{GAMES[kind].rules.TITLE}, {shown or 'default'}, {players} players: {len(record.moves)} moves, "
            f"CPU {cpu:.2f} s, wall {wall:.2f} s; exact {judged['exact']}, estimated {judged['estimated']}, "
            f"unknown {judged['unknown']}; {'complete' if review.complete else 'incomplete'}; "
            f"blunders {verdicts['blunder']}, mistakes {verdicts['mistake']} "
            f"-> {'PASS' if wall < TARGET_S else 'FAIL'}"
        )


if __name__ == "__main__":
    main()
