"""Procession, Up-Down-Stay and Lines By The Dots drawn in every language: each board's words are in
the language asked for, and no text runs off the image (translated words are often longer)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from bot.i18n import ENGLISH, LANGUAGES, Lang, language
from bot.registry import GAMES as SPECS
from bot.render import common
from cogs.dots import render as RD
from cogs.dots import rules as T
from cogs.procession import render as RP
from cogs.procession import rules as P
from cogs.updown import render as RU
from cogs.updown import rules as U
from tests.render.helpers import played, positions, table_for

GAMES = ["procession", "updown", "dots"]
LONG_NAMES = ("Bartholomew the Magnificent", "Wolfgang Amadeus", "Maximiliana", "Dmitri", "Eve", "Fatima")
POSITIONS = positions()


Drawn = tuple[str, int, int, int, int]  # a text, its left and right, its top, the canvas's width


@contextmanager
def drawn_texts() -> Iterator[list[Drawn]]:
    """Every text drawn while inside."""
    seen: list[Drawn] = []
    original = common.Canvas.text

    def text(self: common.Canvas, xy: tuple[int, int], text: str, size: int, *args: Any, **kw: Any) -> int:
        width = original(self, xy, text, size, *args, **kw)
        anchor = kw.get("anchor", args[2] if len(args) > 2 else "l")
        left = xy[0] - (width // 2 if anchor == "c" else width if anchor == "r" else 0)
        seen.append((text, left, left + width, xy[1], self.width))
        return width

    common.Canvas.text = text  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        common.Canvas.text = original  # type: ignore[method-assign]


def boards(game: str, lang: Lang) -> Iterator[bytes]:
    """The game's boards through its presenter (as the table draws them), in ``lang``, with long names."""
    present = SPECS[game].present
    rules, states = POSITIONS[game]
    for state, n in [*states[:: max(1, len(states) // 10)], states[-1]]:
        # and the same position after the last player left (the legends say so)
        for shown in (state, state if rules.outcome(state) is not None else rules.forfeit(state, n - 1)):
            table = replace(table_for(rules, shown, n), names=LONG_NAMES[:n], lang=lang)
            yield present.render(rules.view_for(shown, None), table)


@pytest.mark.parametrize("code", list(LANGUAGES))
@pytest.mark.parametrize("game", GAMES)
def test_no_text_runs_off_the_board(game: str, code: str) -> None:
    with drawn_texts() as seen:
        for _ in boards(game, language(code)):
            pass
    assert seen
    off = [(t, a, b, w) for t, a, b, _, w in seen if a < 0 or b > w]
    assert not off, off[:5]


def test_every_line_of_a_three_player_procession_fits_and_names_everyone() -> None:
    state = P.new_game(3, {"n": 5}, 0)
    for position in (1, 3, 5):
        state = P.apply(state, state.turn, P.Flip(position))
    with drawn_texts() as seen:
        RP.render_board(P.view_for(state, None), LONG_NAMES[:3], lang=language("ru"))
    said = [t for t, *_ in seen]
    assert all(any(name[:10] in t for t in said) for name in LONG_NAMES[:3])  # C has a badge and a name
    assert any("Ход 4" in t for t in said) and not any("Move 4" in t for t in said)


def _words(render: Any, lang: Lang) -> list[str]:
    with drawn_texts() as seen:
        render(lang)
    return [t for t, *_ in seen]


def test_the_words_on_the_boards_follow_the_language() -> None:
    finished = played(U, U.new_game(3, {}, 3), 400, 3)[-1]
    predicting = U.apply(U.new_game(3, {}, 4), 0, U.Predict("UD"))
    dots_game = played(T, T.new_game(2, {"size": 4}, 0), 5, 1)[-1]
    cases = [
        (
            lambda lang: RU.render_row(U.view_for(predicting, None), LONG_NAMES, lang=lang),
            "Predicting in secret",
            "Прогнозы делаются тайно",
        ),
        (
            lambda lang: RU.render_row(U.view_for(finished, None), LONG_NAMES, lang=lang),
            "reveal",
            "раскрытие",
        ),
        (
            lambda lang: RU.render_hand(U.view_for(predicting, 1), LONG_NAMES, lang=lang),
            "Your hand",
            "Ваша рука",
        ),
        (
            lambda lang: RD.render_board(T.view_for(dots_game, None), LONG_NAMES, lang=lang),
            "draws a",
            "проводит",
        ),
    ]
    for render, english, russian in cases:
        in_english, in_russian = _words(render, ENGLISH), _words(render, language("ru"))
        assert any(english in t for t in in_english) and not any(english in t for t in in_russian)
        assert any(russian in t for t in in_russian), in_russian


def test_a_long_prediction_leaves_room_for_the_score() -> None:
    """At a reveal, a player's note (right-aligned) never runs into their prediction, in any
    language: after a long prediction the score stands alone."""
    state = U.new_game(2, {}, 9)
    rng = random.Random(9)
    long = "".join(rng.choice("UDS") for _ in range(51))
    state = U.apply(U.apply(state, 0, U.Predict(long)), 1, U.Predict("U"))
    while state.phase == "place":
        state = U.apply(state, state.turn, U.Play(U.card_rank(state.hands[state.turn][0])))
    record = U.view_for(state, None).last_deal
    assert record is not None
    for code in LANGUAGES:
        with drawn_texts() as seen:
            RU.render_deal(record, ("Bartholomew the Magnificent", "Eve"), lang=language(code))
        _, left, right, top, _ = next(d for d in seen if d[0] == long)
        beside = [d for d in seen if abs(d[3] - top) <= 2 and d[0] != long and d[1] >= left]
        assert beside and all(d[1] >= right + 12 for d in beside), (code, beside)
