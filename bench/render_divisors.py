"""Median render time of the largest Numerical Card Game board: 8 players, m = 25, mid-game, with a
round in progress (resolved, pending and void pairings) and the last round's results.

    python bench/render_divisors.py [--quick] [--lang CODE]

``--lang`` draws the words in that language (de, fr, es, pt_BR, ru; default English).
"""

from __future__ import annotations

import random
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import bench_language, print_render_medians, run_count
from cogs.divisors import rules as D
from cogs.divisors.render import render_board


def busy_game(seed: int) -> D.State:
    """Eight players, a few rounds in, one dropped and one forfeited, a round half played."""
    rng = random.Random(seed)
    state = D.new_game(8, {"m": 25}, seed)
    for _ in range(60):
        seat = rng.choice(sorted(D.to_act(state)))
        picks = [a for a in D.legal_actions(state, seat) if a["type"] == "pick"]
        state = D.apply(state, seat, rng.choice(picks))
    state = D.apply(state, 4, {"type": "drop"})
    state = D.forfeit(state, 6)
    seat = min(D.to_act(state))
    return D.apply(state, seat, {"type": "pick", "card": state.fresh[seat][0]})


def main() -> None:
    state = busy_game(3)
    names = ("Alice", "Bartholomew the Magnificent", "Chloé", "Dmitri", "Eve", "Fatima", "Gunnar", "Hiroshi")
    cases = [
        (f"divisors render ({label}): 8 players, m=25", D.view_for(state, seat), True)
        for label, seat in (("public", None), ("private", min(D.to_act(state))))
    ]
    lang = bench_language()
    print_render_medians(partial(render_board, lang=lang), names, cases, run_count(200))


if __name__ == "__main__":
    main()
