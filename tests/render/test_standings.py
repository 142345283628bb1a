"""The tournament standings image reads like the leaderboard (framed slate card, wide enough, no text
under 14 px, the asker's row marked, a withdrawn player muted) and says the same in its alt text."""

from __future__ import annotations

from fractions import Fraction

from bot.i18n import language
from bot.render import standings as S
from bot.render.alt import ALT_LIMIT
from bot.render.colours import BACKGROUND, BORDER, HIGHLIGHT, INK, MUTED, RESULT, contrast
from bot.render.common import MIN_WIDTH
from tests.render.helpers import NAMES, png_rgb, png_size

HALF = Fraction(1, 2)


def table(you: bool = True, finished: bool = False, rows: int = 8) -> S.Standings:
    lines = tuple(
        S.Row(
            rank=i + 1,
            name=name,
            points=Fraction(7 - i) - (HALF if i == 1 else 0),
            tie_break=Fraction(21 - 2 * i, 4),
            games_left=0 if finished else 2,
            withdrawn=i == 6,
            you=you and i == 2,
        )
        for i, name in enumerate(NAMES[:rows])
    )
    return S.Standings("Procession", 4, "round robin", "Sonneborn-Berger", 7, 7, lines, finished=finished)


def test_figures_are_written_as_people_write_points() -> None:
    assert S.figure(Fraction(3)) == "3" and S.figure(Fraction(5, 2)) == "2½" and S.figure(HALF) == "½"
    assert (
        S.figure(Fraction(3, 4)) == "¾" and S.figure(Fraction(9, 4)) == "2¼" and S.figure(Fraction(0)) == "0"
    )
    assert S.figure(Fraction(4, 3)) == "1.33" and S.figure(Fraction(4, 3), language("de")) == "1,33"
    assert S.figure(Fraction(-3, 2)) == "−1½"


def test_the_image_is_a_framed_card_wide_enough_with_the_askers_row_marked() -> None:
    for shown in (table(), table(you=False), table(finished=True), table(rows=0)):
        png = S.render(shown)
        width, height = png_size(png)
        assert width >= MIN_WIDTH and height >= 130
        image = png_rgb(png)
        assert image.getpixel((0, 0)) == BORDER and image.getpixel((width - 1, height - 1)) == BORDER
        colours = {c for _, c in image.getcolors(1 << 16) or []}
        assert (HIGHLIGHT in colours) == any(row.you for row in shown.rows)
    assert RESULT in {c for _, c in png_rgb(S.render(table(finished=True))).getcolors(1 << 16) or []}
    assert png_size(S.render(table()))[1] > png_size(S.render(table(rows=3)))[1]


def test_text_is_14_px_or_more_and_contrasts() -> None:
    assert min(S.TEXT, S.SMALL, S.TITLE) >= 14
    assert contrast(INK, HIGHLIGHT) >= 4.5 and contrast(MUTED, BACKGROUND) >= 4.5


def test_the_alt_text_says_every_row_and_fits() -> None:
    alt = S.alt_text(table())
    assert alt.startswith(
        "Procession tournament #4: round robin · round 7 of 7 · ties broken by Sonneborn-Berger."
    )
    assert "1. Alice: score 7, Sonneborn-Berger 5¼, 2 games left." in alt
    assert "2. Bartholomew the Magnificent: score 5½, Sonneborn-Berger 4¾, 2 games left." in alt
    assert "7. Gus (withdrawn): score 1, Sonneborn-Berger 2¼." in alt
    assert len(alt) <= ALT_LIMIT
    over = S.alt_text(table(finished=True, rows=2))
    assert "over after 7 rounds" in over and "0 games left" in over
    assert S.alt_text(table(rows=0)).endswith("Nobody has joined yet.")


def test_the_image_and_its_alt_text_speak_the_readers_language() -> None:
    german, russian = language("de"), language("ru")
    shown = table()
    english_png = S.render(shown)
    assert S.render(shown, lang=german) != english_png != S.render(shown, lang=russian)
    assert png_size(S.render(shown, lang=russian))[0] == png_size(english_png)[0]
    alt = S.alt_text(shown, german)
    assert "Turnier" in alt and "2 Partien übrig" in alt and "5¼" in alt
