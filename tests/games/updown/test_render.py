"""The Up-Down-Stay renderer: valid PNGs for the row at every stage, the reveal, and a hand."""

from __future__ import annotations

import io
import random

from PIL import Image

from cogs.updown import rules as updown
from cogs.updown.render import render, render_hand


def _png(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_every_stage_of_a_game_renders() -> None:
    rng = random.Random(3)
    state = updown.new_game(4, {}, 5)
    names = ("alice", "bob", "carol", "dave")
    sizes = set()
    while updown.outcome(state) is None:
        image = _png(render(updown.view_for(state, None), names))
        sizes.add(image.size)
        seat = rng.choice(sorted(updown.to_act(state)))
        state = updown.apply(state, seat, rng.choice(updown.legal_actions(state, seat)))
    final = _png(render(updown.view_for(state, None), names))
    assert final.width >= 600 and final.height >= 200
    hand = _png(render_hand(updown.view_for(updown.new_game(2, {}, 1), 0), names))
    assert hand.height > 100


def test_a_prediction_does_not_change_the_public_image() -> None:
    """A prediction is quiet: it edits the board's text ("Alice has predicted.", "Waiting for ..."),
    not its image, which stays as posted until the next board. So the image says nothing a prediction
    changes (not "predicted ✓", "predicting…" or how many are in): the same bytes, predicted or not."""
    names = ("alice", "bob", "carol")
    start = updown.new_game(3, {}, 5)
    image = render(updown.view_for(start, None), names)
    one = updown.apply(start, 0, {"type": "predict", "letters": "UUDDS"})
    changed = updown.apply(one, 0, {"type": "predict", "letters": "S"})
    two = updown.apply(changed, 2, {"type": "predict", "letters": "DU"})
    assert updown.view_for(two, None).predicted == {0, 2}
    for state in (one, changed, two):
        assert render(updown.view_for(state, None), names) == image
