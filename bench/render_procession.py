"""Median render time of the largest Procession board: n = 12, the longest of
many random games (a game can never exceed p(12) - 1 = 76 moves).

    python bench/render_procession.py [--quick]
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import median_ms, run_count
from bot.games import procession as P
from bot.render.procession import render_board


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


def main() -> None:
    runs = run_count(300)
    state = longest_game(12)
    view = P.view_for(state, None)
    names = ("Alice", "Bartholomew")
    render_board(view, names)  # warm the sprite caches, as a running bot has
    median = median_ms(lambda: render_board(view, names), runs)
    print(
        f"procession render: n=12, {len(state.rows) - 1} moves, "
        f"median {median:.2f} ms over {runs} runs (target < 5 ms)"
    )


if __name__ == "__main__":
    main()
