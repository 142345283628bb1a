"""The leaderboard image reads like the boards (framed slate card, wide enough, no text under 14 px,
the asker's row marked) and says the same in its alt text."""

from __future__ import annotations

from bot.render import leaderboard as L
from bot.render.alt import ALT_LIMIT
from bot.render.colours import BACKGROUND, BORDER, HIGHLIGHT, INK, MUTED, contrast
from bot.render.common import MIN_WIDTH
from tests.render.helpers import NAMES, png_rgb, png_size


def board(own: bool = True, change: bool = False) -> L.Leaderboard:
    lines = tuple(
        L.Line(
            rank=i + 1,
            name=name,
            rating=1400 - 35 * i,
            games=30 - i,
            wins=12 - i,
            change=(50 - 20 * i) if change else None,
            you=not own and i == 2,
        )
        for i, name in enumerate((*NAMES, "Computer (hard)", "Ivo"))
    )
    mine = L.Line(rank=17, name="Zoë", rating=980, games=2, wins=0, you=True) if own else None
    return L.Leaderboard(
        title="Lines By The Dots", period="all time", lines=lines, own=mine, note="ranked by rating"
    )


def test_the_image_is_a_framed_card_wide_enough_with_the_askers_row_marked() -> None:
    for shown in (
        board(),
        board(own=False),
        board(change=True),
        L.Leaderboard("Procession", "this week", ()),
    ):
        png = L.render(shown)
        width, height = png_size(png)
        assert width >= MIN_WIDTH and height >= 140
        image = png_rgb(png)
        assert image.getpixel((0, 0)) == BORDER and image.getpixel((width - 1, height - 1)) == BORDER
        colours = {c for _, c in image.getcolors(1 << 16) or []}
        assert (HIGHLIGHT in colours) == any(line.you for line in (*shown.lines, shown.own) if line)
    assert png_size(L.render(board()))[1] > png_size(L.render(board(own=False)))[1]  # the asker's row below


def test_text_is_14_px_or_more_and_contrasts() -> None:
    assert min(L.TEXT, L.SMALL, L.TITLE) >= 14
    assert contrast(INK, HIGHLIGHT) >= 4.5 and contrast(MUTED, BACKGROUND) >= 4.5


def test_the_alt_text_says_every_line_and_fits() -> None:
    alt = L.alt_text(board(change=True))
    assert alt.startswith("Lines By The Dots leaderboard, all time, ranked by rating.")
    assert "1. Alice: rating 1400, +50 all time, 30 games, 12 wins." in alt
    assert "10. Ivo: rating 1085" in alt and alt.endswith("You: 17. Zoë: rating 980, 2 games, 0 wins.")
    assert len(alt) <= ALT_LIMIT
    assert L.alt_text(L.Leaderboard("Procession", "this week", ())) == (
        "Procession leaderboard, this week. No finished game yet."
    )


def test_the_image_and_its_alt_text_speak_the_readers_language() -> None:
    from bot.i18n import language

    german, russian = language("de"), language("ru")
    shown = board(change=True)
    english_png = L.render(shown)
    assert L.render(shown, lang=german) != english_png != L.render(shown, lang=russian)
    assert png_size(L.render(shown, lang=russian))[0] == png_size(english_png)[0]
    alt = L.alt_text(shown, german)
    assert alt.startswith("Bestenliste Lines By The Dots") and "30 Spiele" in alt and "12 Siege" in alt
    assert "Du: 17. Zoë: Wertung 980" in alt
    assert "Рейтинг" not in L.alt_text(shown) and "рейтинг 1400" in L.alt_text(shown, russian)
    empty = L.Leaderboard("Procession", "diese Woche", ())
    assert "Noch keine beendete Partie." in L.alt_text(empty, german)
