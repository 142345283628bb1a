"""Median render time of the largest Numbers To Number boards (m = 8): the end of a full round, with
all eight moves revealed, D listed and the numbers in it highlighted; and the same round with its last
pick still pending.

    python bench/render_numbers.py [--quick] [--lang CODE]

``--lang`` draws the words in that language (de, fr, es, pt_BR, ru; default English).
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import bench_language, print_render_medians, run_count
from cogs.numbers import rules as N
from cogs.numbers.render import render_board

NAMES = ("Alice", "Bartholomew the Magnificent")


def full_round() -> tuple[N.State, N.State]:
    """The seed's example as a played round (m = 8): the list 01_001_1, D = {69, 71, 101, 103}, three
    of them played (highlighted). The state with the round's last pick pending, and after it."""
    moves = [(1, 2), (101, 3), (50, 50), (4, 103), (5, 6), (69, 7), (60, 60), (9, 8)]
    state = N.new_game(2, {"m": 8}, 0)
    pending = state
    for a, b in moves:
        pending = N.apply(state, 0, {"type": "pick", "number": a})
        state = N.apply(pending, 1, {"type": "pick", "number": b})
    assert state.rounds[-1].symbols == "01_001_1" and state.rounds[-1].points == (2, 1)
    return pending, state


def main() -> None:
    pending, done = full_round()
    last_move = N.view_for(pending, None)
    round_end = N.view_for(done, None)
    assert round_end.last_round is not None and len(round_end.last_round.moves) == 8
    end = ("numbers render: full m = 8 round with D", round_end, True)
    mid = ("numbers render: m = 8 round, last pick pending", last_move, False)
    lang = bench_language()
    print_render_medians(partial(render_board, lang=lang), NAMES, [end, mid], run_count(300))


if __name__ == "__main__":
    main()
