"""The Numerical Card Game board renders from views alone: a PNG for every kind of position (new game,
picks pending, void pairings, a private view with duplicates in the hand, the end), 8 players with
long names included."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.games import divisors as D
from bot.render.divisors import LABEL_TEXT, render_board
from bot.rules_text import rules_of

NAMES = ("Alice", "Bartholomew the Magnificent", "Chloé", "Dmitri", "Eve", "Fatima", "Gunnar", "Hiroshi")


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(data)) as img:
        img.load()
        return img.size


def random_states(n: int, m: int, seed: int) -> list[D.State]:
    rng = random.Random(seed)
    state = D.new_game(n, {"m": m}, seed)
    states = [state]
    while D.outcome(state) is None:
        seat = rng.choice(sorted(D.to_act(state)))
        if rng.random() < 0.01:
            state = D.apply(state, seat, {"type": "drop"})
        elif rng.random() < 0.01:
            state = D.forfeit(state, rng.randrange(n))
        else:
            picks = [a for a in D.legal_actions(state, seat) if a["type"] == "pick"]
            state = D.apply(state, seat, rng.choice(picks))
        states.append(state)
    return states


@pytest.mark.parametrize(("n", "m"), [(2, 2), (3, 12), (5, 7), (8, 25)])
def test_every_position_renders(n: int, m: int) -> None:
    states = random_states(n, m, seed=n)
    for state in [*states[:: max(1, len(states) // 25)], states[-1]]:
        for seat in (None, 0, n - 1):
            width, height = png_size(render_board(D.view_for(state, seat), NAMES[:n]))
            assert width == 760 and 150 < height < 1400


def test_private_board_is_taller_than_the_public_one() -> None:
    state = D.new_game(8, {"m": 25}, 0)
    state = D.apply(state, 0, {"type": "pick", "card": 25})
    public = png_size(render_board(D.view_for(state, None), NAMES))
    private = png_size(render_board(D.view_for(state, 0), NAMES))
    assert private[1] > public[1]


def test_missing_names_fall_back_to_seats() -> None:
    state = D.new_game(3, {}, 0)
    png_size(render_board(D.view_for(state, None), ()))


def test_the_outcome_of_a_1_is_said_in_words() -> None:
    """A 1 against a card above 1 is labelled as the rules say it, not "One" (which reads as jargon)."""
    assert LABEL_TEXT["one"] == "A 1 against a bigger card"
    assert LABEL_TEXT["one"].lower() in rules_of("divisors")
