"""The Numbers To Number board renders from views alone: a PNG for every position of whole games (every
m, a forfeit, a draw), the round-end picture with D said in words, and a public image that is the
same whatever a pending pick is, and whether there is one."""

from __future__ import annotations

import dataclasses
import io
import random

import pytest
from PIL import Image

from bot.i18n import ENGLISH
from cogs.numbers import rules as nb
from cogs.numbers.render import d_lines, render, render_board

NAMES = ("Alice", "Bartholomew the Magnificent")


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(data)) as img:
        img.load()
        return img.size


def play_moves(state: nb.State, moves: list[tuple[int, int]]) -> nb.State:
    for a, b in moves:
        state = nb.apply(nb.apply(state, 0, {"type": "pick", "number": a}), 1, {"type": "pick", "number": b})
    return state


@pytest.mark.parametrize("m", [3, 5, 8])
def test_every_position_of_a_random_game_renders(m: int) -> None:
    rng = random.Random(m)
    state = nb.new_game(2, {"m": m}, m)
    sizes = set()
    step = 0
    while nb.outcome(state) is None:
        if step % max(1, m // 2) == 0 or not state.moves:
            sizes.add(png_size(render(nb.view_for(state, None), NAMES)))
        seat = rng.choice(sorted(nb.to_act(state)))
        state = nb.apply(state, seat, rng.choice(nb.legal_actions(state, seat)))
        step += 1
    sizes.add(png_size(render(nb.view_for(state, None), NAMES)))
    assert len(sizes) == 1  # one size for the whole game: the board does not jump around
    (width, height), *_ = sizes
    assert width >= 16 + 150 + m * 74 and height > 200


def test_the_seed_example_round_and_the_end() -> None:
    moves = [(1, 2), (101, 3), (50, 50), (4, 103), (5, 6), (69, 7), (60, 60), (9, 8)]
    state = play_moves(nb.new_game(2, {"m": 8}, 0), moves)
    before_end = play_moves(nb.new_game(2, {"m": 8}, 0), moves[:-1])
    assert state.rounds[0].d == (69, 71, 101, 103)
    finished = render_board(nb.view_for(state, None), NAMES)
    assert finished != render_board(nb.view_for(before_end, None), NAMES)
    png_size(finished)
    # Every value a D (the list all _) and a forfeit, a draw, a long name and no names at all.
    state = play_moves(nb.new_game(2, {"m": 8}, 0), [(k, k) for k in range(1, 9)])
    assert len(state.rounds[0].d) == 256
    png_size(render_board(nb.view_for(state, None), NAMES))
    png_size(render_board(nb.view_for(nb.forfeit(state, 1), None), ("x" * 40, "")))
    drawn = play_moves(nb.new_game(2, {"m": 3}, 0), [(k, k) for k in range(1, 7)])
    outcome = nb.outcome(drawn)
    assert outcome is not None and outcome.draw
    png_size(render_board(nb.view_for(drawn, None), ()))


def test_a_pending_pick_does_not_change_the_public_image() -> None:
    state = play_moves(nb.new_game(2, {"m": 6}, 0), [(10, 20), (30, 30)])
    waiting = render_board(nb.view_for(state, None), NAMES)
    picked = nb.apply(state, 0, {"type": "pick", "number": 40})
    image = render_board(nb.view_for(picked, None), NAMES)
    # Not even that Alice has picked: a pick edits the board's text, not its image, so an image that
    # said "picking…" would contradict the text above it ("Alice has picked.") until the reveal.
    assert image == waiting
    for other in (1, 41, 63):
        changed = dataclasses.replace(picked, pending=(other, None))
        assert render_board(nb.view_for(changed, None), NAMES) == image


def test_d_is_said_in_words() -> None:
    """D is named for what it is, the numbers that score, not only "D = {4, 6}"."""
    few = play_moves(nb.new_game(2, {"m": 3}, 0), [(5, 1), (2, 2), (3, 4)])
    assert few.rounds[0].d == (4, 6)
    assert d_lines(few.rounds[0], 3, ENGLISH) == [
        "D, the numbers that score this round: 4, 6",
        "the binary numbers the list matches (each _ as 0 or 1): 100, 110",
    ]
    many = play_moves(nb.new_game(2, {"m": 6}, 0), [(k, k) for k in range(1, 6)] + [(9, 8)])
    assert d_lines(many.rounds[0], 6, ENGLISH) == [
        "D, the numbers that score this round: all 32 numbers matching _____1 (each _ as 0 or 1)",
        "from 1 to 63",
    ]
