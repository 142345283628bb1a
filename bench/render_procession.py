"""Median render time of the largest Procession board: n = 12, the longest of
many random games (a game can never exceed p(12) - 1 = 76 moves).

    python bench/render_procession.py [--quick] [--lang de]
"""

from __future__ import annotations

import dataclasses
import functools
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import bench_language, print_render_medians, run_count
from cogs.procession import rules as P
from cogs.procession.render import render_board


def longest_game(n: int, tries: int = 400) -> P.State:
    """The longest of many seeded random games (an exhaustive search for the true maximum is slow)."""
    rng = random.Random(12)
    best = P.new_game(2, {"n": n}, 0)
    for _ in range(tries):
        state = P.new_game(2, {"n": n}, 0)
        while not state.finished:
            state = P.apply(
                state, state.turn, {"type": "flip", "position": rng.choice(P.legal_positions(state))}
            )
        if len(state.rows) > len(best.rows):
            best = state
    return best


def padded(view: P.View, rows: int) -> P.View:
    """The view with earlier rows repeated up to ``rows`` rows: the size of the longest possible game
    (p(12) = 77 rows), which random play rarely reaches; the renderer draws any rows it is given."""
    k = rows - len(view.rows)
    return dataclasses.replace(
        view,
        rows=view.rows + view.rows[1 : k + 1],
        multisets=view.multisets + view.multisets[1 : k + 1],
        movers=view.movers + view.movers[1 : k + 1],
    )


# The language of the words drawn: ``--lang de`` (default English).
LANG = bench_language()


def main() -> None:
    print(f"words drawn in {LANG.name} ({LANG.code})")
    state = longest_game(12)
    view = P.view_for(state, None)
    names = ("Alice", "Bartholomew")
    cases = [
        (f"procession render: n=12, {len(state.rows) - 1} moves", view, True),
        ("procession render: n=12, 76 moves (the most possible; rows repeated)", padded(view, 77), True),
    ]
    print_render_medians(functools.partial(render_board, lang=LANG), names, cases, run_count(300))


if __name__ == "__main__":
    main()
