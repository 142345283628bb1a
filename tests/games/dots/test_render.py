"""Lines By The Dots board renders from views alone: every size, from the empty grid to a full one,
with forfeits and long names."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.render.common import text_width
from cogs.dots import render as R
from cogs.dots import rules as T
from cogs.dots.render import render_board

NAMES = ("Alice", "Bartholomew the Magnificent", "Chloé", "Dmitri", "Eve", "Fatima")


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(data)) as img:
        img.load()
        return img.size


@pytest.mark.parametrize("size", range(3, 11))
def test_every_position_renders(size: int) -> None:
    rng = random.Random(size)
    n = 2 + size % 5
    state = T.new_game(n, {"size": size}, 0)
    sizes = {png_size(render_board(T.view_for(state, None), NAMES[:n]))}
    while T.outcome(state) is None:
        if rng.random() < 0.03:
            state = T.forfeit(state, rng.randrange(n))
        else:
            state = T.apply(state, state.turn, rng.choice(T.legal_actions(state, state.turn)))
        sizes.add(png_size(render_board(T.view_for(state, None), NAMES[:n])))
    assert len(sizes) == 1  # the board keeps its size through the game
    width, height = sizes.pop()
    assert 400 <= width <= 600 and 250 <= height <= 800


def test_missing_names_fall_back_to_seats() -> None:
    png_size(render_board(T.view_for(T.new_game(2, {}, 0), None), ()))


def test_the_line_owed_fits_the_card() -> None:
    """The smallest card, the longest name, the longest wording (a fallback): still within the card."""
    state = T.new_game(2, {"size": 3}, 0)
    for to, start in [("A1", "A2"), ("B1", None), ("B3", None), ("A3", None)]:
        state = T.apply(state, state.turn, {"type": "line", "to": to, "from": start})
    view = T.view_for(state, None)
    assert view.owed is not None and view.owed.fallback
    width, _ = png_size(render_board(view, NAMES))
    room = width - 2 * R.PAD
    for names in [("Al", "Bo"), ("Bartholomew the Magnificent", "Bartholomew the Magnificent")]:
        size, text = R._owed_line(view, names, room)
        assert text_width(text, size) <= room
        assert "horizontal line" in text and "used dot" in text
        assert "virgin" not in text and "fallback" not in text  # words of the rules' text, not a board's
    assert R._owed_line(view, ("Al", "Bo"), room) == (
        R.SMALL,
        "Al draws a horizontal line from any used dot",
    )
