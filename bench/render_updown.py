"""Median render time of the largest Up-Down-Stay images: the reveal of a full 52-card row (four
players, every prediction matched, long windows overlapping across line wraps), and the reveal of a
ten-player deal (the longest legend, set-aside cards).

    python bench/render_updown.py [--quick] [--lang de]
"""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import bench_language, print_render_medians, run_count
from cogs.updown import rules as U
from cogs.updown.render import render_row

NAMES = (
    "Alice",
    "Bartholomew the Magnificent",
    "Chloé",
    "Dmitri",
    "Eve",
    "Fatima",
    "Gus",
    "Hana",
    "Ivo",
    "Jun",
)


def played_deal(n_players: int, seed: int) -> U.State:
    """A deal played to its reveal, each player predicting a stretch of the row they will get (the
    row is fixed in advance by placing cards in hand order), so every window is drawn."""
    state = U.new_game(n_players, {}, seed)
    # Replay once to learn the row, then predict stretches of its changes.
    probe = state
    for seat in range(n_players):
        probe = U.apply(probe, seat, {"type": "predict", "letters": "U"})
    while probe.phase == "place":
        seat = probe.turn
        probe = U.apply(probe, seat, {"type": "play", "rank": U.card_rank(probe.hands[seat][0])})
    changes = probe.history[0].changes
    rng = random.Random(seed)
    for seat in range(n_players):
        length = rng.randint(6, 20)
        start = rng.randrange(len(changes) - length)
        state = U.apply(state, seat, {"type": "predict", "letters": changes[start : start + length]})
    while state.phase == "place":
        seat = state.turn
        state = U.apply(state, seat, {"type": "play", "rank": U.card_rank(state.hands[seat][0])})
    return state


# The language of the words drawn: ``--lang de`` (default English).
LANG = bench_language()


def main() -> None:
    print(f"words drawn in {LANG.name} ({LANG.code})")
    four = U.view_for(played_deal(4, 1), None)
    ten = U.view_for(played_deal(10, 2), None)
    record = four.last_deal
    assert record is not None and len(record.row) == 52
    assert all(p.window is not None for p in record.players)
    big = ("updown render: 52-card reveal (4 players)", four, True)
    wide = ("updown render: 50-card reveal (10 players)", ten, False)
    print_render_medians(functools.partial(render_row, lang=LANG), NAMES, [big, wide], run_count(200))


if __name__ == "__main__":
    main()
