"""Every board's alt text says the position in words, from the public view only: it fits Discord's
1,024 characters, names the players as the image marks them, and is the same whatever a secret is."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest

from bot.registry import GAMES as SPECS
from bot.render.alt import ALT_LIMIT, fit_alt
from bot.table.present import Presenter
from cogs.divisors import rules as D
from cogs.numbers import rules as N
from cogs.updown import rules as U
from tests.render.helpers import positions, table_for

GAMES = ["procession", "updown", "numbers", "divisors", "dots"]
POSITIONS = positions()


def present(game: str) -> Presenter:
    return SPECS[game].present


def alt(game: str, rules: Any, state: Any, n: int) -> str:
    return present(game).alt_text(rules.view_for(state, None), table_for(rules, state, n))


@pytest.mark.parametrize("game", GAMES)
def test_every_position_has_alt_text_that_fits(game: str) -> None:
    rules, states = POSITIONS[game]
    seen = set()
    for state, n in states:
        text = alt(game, rules, state, n)
        assert 40 < len(text) <= ALT_LIMIT < 1024
        assert text == text.strip() and "**" not in text and "<@" not in text
        assert "seat" not in text.lower()
        assert re.search(r"\w \([A-H]\)", text), text  # players named as the image marks them
        seen.add(text)
    assert len(seen) > len(states) // 3  # it follows the game


@pytest.mark.parametrize("game", GAMES)
def test_the_game_offers_its_own_alt_text(game: str) -> None:
    module = importlib.import_module(f"cogs.{game}.present")
    assert present(game).alt_text is module.alt_text


def test_a_presenter_without_alt_text_gets_a_plain_one() -> None:
    bare: Presenter[Any] = Presenter(render=lambda view, table: b"", headline=lambda news, table: "")
    rules, states = POSITIONS["procession"]
    state, n = states[1]
    text = bare.alt_text(rules.view_for(state, None), table_for(rules, state, n))
    assert text.startswith("Procession board, game #7.") and "Waiting for" in text


def test_procession_says_the_rows() -> None:
    rules, states = POSITIONS["procession"]
    state, n = states[3]
    text = alt("procession", rules, state, n)
    view = rules.view_for(state, None)
    assert f"Current row {view.rows[-1]}" in text and "to flip one of positions" in text
    assert all(row in text for row in view.rows)


def test_long_texts_are_cut_cleanly() -> None:
    text = fit_alt(["A short start.", "; ".join(f"item {i} of a long list" for i in range(200)) + "."])
    assert len(text) <= ALT_LIMIT and text.startswith("A short start. item 0")
    assert text.endswith("…") and not text.endswith(";…") and "of a long list…" in text
    assert fit_alt(["One.", "Two."]) == "One. Two."
    assert len(fit_alt(["x" * 2000])) <= ALT_LIMIT


def test_a_long_game_is_cut_under_the_limit() -> None:
    rules, states = POSITIONS["updown"]
    longest = max((alt("updown", rules, s, n) for s, n in states), key=len)
    rules, states = POSITIONS["dots"]
    dots_longest = max((alt("dots", rules, s, n) for s, n in states), key=len)
    assert len(longest) <= ALT_LIMIT and len(dots_longest) <= ALT_LIMIT


# ---- no secret: two states that differ only in a secret have the same alt text --------------------


def test_numbers_pending_pick_is_not_in_the_alt_text() -> None:
    start = N.new_game(2, {"m": 8}, 0)
    a = N.apply(start, 0, {"type": "pick", "number": 201})
    b = N.apply(start, 0, {"type": "pick", "number": 77})
    assert N.view_for(a, 0) != N.view_for(b, 0)  # the secret differs
    text_a, text_b = alt("numbers", N, a, 2), alt("numbers", N, b, 2)
    assert text_a == text_b and "201" not in text_a and "77" not in text_a
    # Nor that Alice has picked: like the image it describes, it stays as posted while a pick edits
    # the board's text (which says who has picked).
    assert text_a == alt("numbers", N, start, 2) and "picked" not in text_a and "picking" not in text_a


def test_divisors_hands_and_picks_are_not_in_the_alt_text() -> None:
    start = D.new_game(3, {"m": 12}, 0)
    seat = min(D.to_act(start))
    hand = sorted(start.fresh[seat])
    a = D.apply(start, seat, {"type": "pick", "card": hand[0]})
    b = D.apply(start, seat, {"type": "pick", "card": hand[-1]})
    assert D.view_for(a, seat) != D.view_for(b, seat)
    assert alt("divisors", D, a, 3) == alt("divisors", D, b, 3)
    # Nor that a player has picked: like the image it describes, it stays as posted while a pick
    # edits the board's text (which says who has picked).
    text = alt("divisors", D, a, 3)
    assert text == alt("divisors", D, start, 3)
    assert "has picked" not in text and "is choosing" not in text and "to pick a card" not in text
    assert "Bartholomew the Magnificent (B) against Chloé (C), cards shown when both have picked" in text


def test_updown_predictions_and_hands_are_not_in_the_alt_text() -> None:
    start = U.new_game(3, {}, 5)
    a = U.apply(start, 0, {"type": "predict", "letters": "UUDDS"})
    b = U.apply(start, 0, {"type": "predict", "letters": "SDU"})
    assert U.view_for(a, 0) != U.view_for(b, 0)
    text = alt("updown", U, a, 3)
    assert text == alt("updown", U, b, 3)
    assert "UUDDS" not in text
    # Nor that Alice has predicted (or how many have): the alt text, like the image, stays as posted
    # while a prediction edits the board's text (which says who has predicted).
    assert text == alt("updown", U, start, 3) and "predicted" not in text and "predicting" not in text
    assert "Predicting in secret." in text
    other = U.new_game(3, {}, 6)  # another shuffle: other hands, the same public position
    assert U.view_for(other, None).hand_sizes == U.view_for(start, None).hand_sizes
    assert alt("updown", U, other, 3) == alt("updown", U, start, 3)
    assert "♥" not in text and "♠" not in text


async def test_the_board_file_carries_the_alt_text() -> None:
    from bot.table.boards import board_file
    from bot.table.catalog import GameKind
    from bot.table.drawing import Drawing
    from cogs.procession import rules as P

    kind = GameKind.of(SPECS["procession"])
    state = P.new_game(2, {"n": 5}, 0)
    view, table = P.view_for(state, None), table_for(P, state, 2)
    file = await board_file(Drawing(0), kind, view, table)
    assert file.description == kind.present.alt_text(view, table)
    assert file.description.startswith("Procession board, n = 5: Alice (A) against")
    assert file.filename.endswith(".png")
