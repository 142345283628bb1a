"""Procession board: the table of rows so far, each with its run-length multiset, as in the seed's sample
game; the latest row highlighted, the flipped digit of each row outlined in its mover's colour, the
positions numbered above the digits (they are the buttons' labels)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bot.games.procession import View, format_multiset
from bot.render.colours import BACKGROUND, GRID, HIGHLIGHT, INK, MUTED, PANEL, RGB, WHITE, player_colour
from bot.render.common import Canvas, text_width

CELL = 16  # a digit's square
ROW_H = 20
PAD = 12
MAX_ROWS_PER_COLUMN = 30
TEXT = 12


@lru_cache(maxsize=128)
def _cell(digit: str, background: RGB, outline: RGB | None) -> Canvas:
    """One digit's square, drawn once and pasted everywhere."""
    c = Canvas(CELL, CELL, background)
    fill = INK if digit == "1" else PANEL
    c.rect((1, 1, CELL - 2, CELL - 2), fill=fill)
    c.text((CELL // 2, 1), digit, TEXT, WHITE if digit == "1" else MUTED, "monobold", "c", background=fill)
    if outline is not None:
        c.rect((0, 0, CELL - 1, CELL - 1), outline=outline, width=2)
    return c


CHUNK = 4


@lru_cache(maxsize=256)
def _chunk(digits: str, background: RGB) -> Canvas:
    """A run of up to four plain digit squares: pasting chunks instead of single squares keeps a
    77-row board within the render budget."""
    c = Canvas(CELL * len(digits), CELL, background)
    for i, d in enumerate(digits):
        c.paste(_cell(d, background, None), (i * CELL, 0))
    return c


def _flipped(prev: str, row: str) -> int | None:
    for i, (a, b) in enumerate(zip(prev, row, strict=True)):
        if a != b:
            return i
    return None


def render_board(view: View, names: tuple[str, ...] | list[str] = ()) -> bytes:
    rows = len(view.rows)
    columns = -(-rows // MAX_ROWS_PER_COLUMN)
    per_col = -(-rows // columns)
    num_w = text_width(str(rows - 1), TEXT) + 10
    digits_w = view.n * CELL
    ms_w = max(text_width(format_multiset(ms), TEXT) for ms in view.multisets) + 14
    name_w = max([text_width(n[:16], TEXT) for n in names] + [40]) + 8
    col_w = num_w + digits_w + ms_w + name_w + PAD
    width = PAD + columns * col_w
    height = PAD + ROW_H + per_col * ROW_H + PAD
    c = Canvas(width, height)

    for col in range(columns):
        x0 = PAD + col * col_w
        for p in range(view.n):  # positions above the digits
            c.text((x0 + num_w + p * CELL + CELL // 2, PAD), str(p + 1), 10, MUTED, anchor="c")
        c.line([(x0, PAD + ROW_H - 3), (x0 + col_w - PAD, PAD + ROW_H - 3)], GRID)

    last = rows - 1
    for i, row in enumerate(view.rows):
        col, r = divmod(i, per_col)
        x = PAD + col * col_w
        y = PAD + ROW_H + r * ROW_H
        bg = HIGHLIGHT if i == last and view.turn is not None else BACKGROUND
        if bg != BACKGROUND:
            c.rect((x - 4, y - 2, x + col_w - PAD, y + ROW_H - 3), fill=bg)
        c.text((x + num_w - 8, y + 1), str(i), TEXT, MUTED, anchor="r", background=bg)
        mover = view.movers[i]
        flipped = _flipped(view.rows[i - 1], row) if i > 0 else None
        for p in range(0, view.n, CHUNK):
            c.paste(_chunk(row[p : p + CHUNK], bg), (x + num_w + p * CELL, y))
        if flipped is not None and mover is not None:
            c.paste(_cell(row[flipped], bg, player_colour(mover)), (x + num_w + flipped * CELL, y))
        c.text(
            (x + num_w + digits_w + 8, y + 1), format_multiset(view.multisets[i]), TEXT, INK, background=bg
        )
        if mover is not None and mover < len(names):
            c.text(
                (x + num_w + digits_w + ms_w, y + 1),
                names[mover][:16],
                TEXT,
                player_colour(mover),
                "bold",
                background=bg,
            )
    return c.png()


def render(view: Any, names: tuple[str, ...]) -> bytes:
    return render_board(view, names)
