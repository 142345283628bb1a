"""Boards people can read: a slate card with a light frame that stands out on Discord's dark
(#313338) and light (#FFFFFF) themes, text that contrasts with it, player colours that stay apart with
colour blindness (and a letter beside each), no board narrower than 400 px, no text under 14 px."""

from __future__ import annotations

import importlib

import pytest

from bot.registry import GAMES as SPECS
from bot.render import colours
from bot.render.colours import BACKGROUND, BORDER, INK, MUTED, PLAYER_COLOURS, contrast, seat_letter
from bot.render.common import MIN_WIDTH
from cogs.procession import rules as P
from tests.render.helpers import played, png_rgb, png_size, positions, table_for

DARK_THEME = (49, 51, 56)  # #313338
LIGHT_THEME = (255, 255, 255)
GAMES = ["procession", "updown", "numbers", "divisors", "dots"]
POSITIONS = positions()


def test_the_card_stands_out_on_both_themes() -> None:
    assert contrast(BORDER, DARK_THEME) >= 3  # the frame on the dark theme
    assert contrast(BACKGROUND, LIGHT_THEME) >= 10  # the card itself on the light theme
    assert contrast(INK, BACKGROUND) >= 7 and contrast(MUTED, BACKGROUND) >= 4.5
    for colour in (colours.GOOD, colours.BAD):
        assert contrast(colour, BACKGROUND) >= 4.5
    for colour in PLAYER_COLOURS:
        assert contrast(colour, BACKGROUND) >= 3  # lines, bars and badges on the card


def test_player_colours_differ_and_seats_have_letters() -> None:
    assert len(set(PLAYER_COLOURS)) == len(PLAYER_COLOURS) == 8
    assert [seat_letter(s) for s in range(4)] == ["A", "B", "C", "D"]


@pytest.mark.parametrize("game", GAMES)
def test_boards_are_framed_and_wide_enough(game: str) -> None:
    present = SPECS[game].present
    rules, states = POSITIONS[game]
    for state, n in [*states[:: max(1, len(states) // 12)], states[-1]]:
        png = present.render(rules.view_for(state, None), table_for(rules, state, n))
        width, height = png_size(png)
        assert width >= MIN_WIDTH and height >= 140
        image = png_rgb(png)
        assert image.getpixel((0, 0)) == BORDER and image.getpixel((width - 1, height - 1)) == BORDER
        assert image.getpixel((4, height // 2)) == BACKGROUND


@pytest.mark.parametrize("game", GAMES)
def test_no_text_under_14_px(game: str) -> None:
    module = importlib.import_module(f"cogs.{game}.render")
    sizes = {name: getattr(module, name) for name in ("TEXT", "SMALL", "TITLE") if hasattr(module, name)}
    assert sizes and all(size >= 14 for size in sizes.values()), sizes


def test_procession_has_a_title_and_room() -> None:
    from cogs.procession import render as R

    png = R.render_board(P.view_for(P.new_game(2, {"n": 3}, 0), None), ("Al", "Bo"))
    width, height = png_size(png)
    assert width >= MIN_WIDTH and height >= R.HEAD_H
    assert R.CELL >= 20 and R.TEXT >= 14 and R.TITLE >= 18


SMALL = {"procession": {"n": 3}, "updown": {}, "numbers": {"m": 3}, "divisors": {"m": 4}, "dots": {"size": 3}}


@pytest.mark.parametrize("game", GAMES)
def test_a_result_is_not_drawn_in_the_error_colour(game: str) -> None:
    """A finished game's result line is drawn in RESULT (gold), never in BAD, the colour of errors
    and losses (issue 24: "… wins" and "Game over…" were red); a live board has no RESULT at all."""
    assert colours.RESULT != colours.BAD and contrast(colours.RESULT, BACKGROUND) >= 7
    present = SPECS[game].present
    rules, states = POSITIONS[game]
    live, live_n = states[0]
    start = rules.new_game(2, SMALL[game], 0)
    final, n = played(rules, start, 5000, 1)[-1], 2
    assert rules.outcome(final) is not None

    def pixels(state: object, players: int) -> set[tuple[int, int, int]]:
        png = present.render(rules.view_for(state, None), table_for(rules, state, players))
        return {colour for _, colour in png_rgb(png).getcolors(maxcolors=1 << 24) or []}

    if game in ("procession", "dots", "divisors"):  # their boards print the result line
        assert colours.RESULT in pixels(final, n)
    assert colours.RESULT not in pixels(live, live_n)
