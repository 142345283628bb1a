"""Median render time of the largest Lines By The Dots board: a finished 10 x 10 game of 6 players.

python bench/render_dots.py [--quick] [--lang de]
"""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import bench_language, print_render_medians, run_count
from cogs.dots import rules as T
from cogs.dots.render import render_board


def finished_game(size: int, players: int, seed: int) -> T.State:
    """A seeded random game played to its end (every dot taken)."""
    rng = random.Random(seed)
    state = T.new_game(players, {"size": size}, seed)
    while T.outcome(state) is None:
        state = T.apply(state, state.turn, rng.choice(T.legal_actions(state, state.turn)))
    return state


# The language of the words drawn: ``--lang de`` (default English).
LANG = bench_language()


def main() -> None:
    print(f"words drawn in {LANG.name} ({LANG.code})")
    state = finished_game(10, 6, seed=1)
    label = f"dots render: 10x10, finished, {len(state.lines)} lines, 6 players"
    names = ("Alice", "Bartholomew the Magnificent", "Chloé", "Dmitri", "Eve", "Fatima")
    print_render_medians(
        functools.partial(render_board, lang=LANG),
        names,
        [(label, T.view_for(state, None), True)],
        run_count(200),
    )


if __name__ == "__main__":
    main()
