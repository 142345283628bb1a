"""The Numerical Card Game board renders from views alone: a PNG for every kind of position (new game,
picks pending, void pairings, a private view with duplicates in the hand, the end), 8 players with
long names included; and a public image (and alt text) that is the same whoever of an unresolved
pairing has picked."""

from __future__ import annotations

import importlib
import io
import random

import pytest
from PIL import Image

from bot.registry import rules_of
from cogs.divisors import rules as D
from cogs.divisors.render import LABEL_TEXT, render_board
from tests.render.helpers import table_for

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


def test_a_pick_does_not_change_the_public_image_or_its_alt_text() -> None:
    """A pick is quiet: it edits the board's text ("Bob has chosen a card.", "Waiting for ..."), not
    its image, which stays as posted until the next board. So the image and its alt text say nothing
    that a pick changes: not "choosing: Alice, Bob", not "to pick a card" or "picked ✓", not a
    face-down card where an empty slot was; they are the same bytes, picked or not."""
    alt_text = importlib.import_module("cogs.divisors.present").alt_text
    start = D.new_game(4, {"m": 6}, 1)
    (a, b), (c, d) = start.pairings  # two pairings of round 1, played at once

    def shown(state: D.State) -> tuple[bytes, str]:
        view = D.view_for(state, None)
        return render_board(view, NAMES[:4]), alt_text(view, table_for(D, state, 4))

    one = D.apply(start, a, {"type": "pick", "card": 2})
    other_card = D.apply(start, a, {"type": "pick", "card": 5})
    two = D.apply(one, d, {"type": "pick", "card": 3})  # one pick in each pairing
    assert D.to_act(one) != D.to_act(start) and D.view_for(two, None).picked == {a, d}
    image, text = shown(start)
    for state in (one, other_card, two):
        assert shown(state) == (image, text)
    assert "choosing" not in text and "has picked" not in text and "to pick a card" not in text
    # Once a pairing is revealed (a new board), a pick in the other one still changes nothing shown.
    revealed = D.apply(one, b, {"type": "pick", "card": 4})
    assert D.view_for(revealed, None).results  # a and b are revealed: this board differs...
    assert shown(revealed) != (image, text)
    later = D.apply(revealed, c, {"type": "pick", "card": 1})
    assert shown(later) == shown(revealed)  # ...and stays as posted through c's pick
