"""Procession board: a title with the players (each a letter badge in their colour), then the table of
rows so far, each with its run-length multiset, as in the seed's sample game; the latest row
highlighted, the flipped digit of each row outlined in its mover's colour and the mover's badge after
the digits, the positions numbered above the digits (they are the buttons' labels)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bot.i18n import ENGLISH, Lang
from bot.render.colours import (
    BACKGROUND,
    CARD_INK,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    PANEL,
    RESULT,
    RGB,
    player_colour,
)
from bot.render.common import MIN_WIDTH, Canvas, seat_name, text_width
from cogs.procession.rules import View, format_multiset

CELL = 22  # a digit's square (room for "12" above it)
ROW_H = 23
PAD = 16
MAX_ROWS_PER_COLUMN = 40
TEXT = 14
TITLE = 20
BADGE = 18
HEAD_H = 88  # the title, the players line and the status line
PLAYERS_LINE = 24  # each further line of players
NAME_MAX = 16


@lru_cache(maxsize=128)
def _cell(digit: str, background: RGB, outline: RGB | None) -> Canvas:
    """One digit's square, drawn once and pasted everywhere."""
    c = Canvas(CELL, CELL, background)
    fill = INK if digit == "1" else PANEL
    c.rect((1, 1, CELL - 2, CELL - 2), fill=fill)
    c.text((CELL // 2, 1), digit, TEXT, CARD_INK if digit == "1" else MUTED, "monobold", "c", background=fill)
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


@lru_cache(maxsize=512)
def _row(digits: str, flipped: int | None, mover: int | None, multiset: str, background: RGB) -> Canvas:
    """A whole row: its digits (the flipped one outlined in the mover's colour), the mover's badge
    and the multiset. Drawn once: a game's next board repeats every row but the new one."""
    digits_w = len(digits) * CELL
    c = Canvas(digits_w + 8 + BADGE + 8 + text_width(multiset, TEXT), CELL, background)
    for p in range(0, len(digits), CHUNK):
        c.paste(_chunk(digits[p : p + CHUNK], background), (p * CELL, 0))
    if flipped is not None and mover is not None:
        c.paste(_cell(digits[flipped], background, player_colour(mover)), (flipped * CELL, 0))
    if mover is not None:
        c.badge((digits_w + 8, (CELL - BADGE) // 2), mover, BADGE, background=background)
    c.text((digits_w + 8 + BADGE + 8, 1), multiset, TEXT, INK, background=background)
    return c


def _flipped(prev: str, row: str) -> int | None:
    for i, (a, b) in enumerate(zip(prev, row, strict=True)):
        if a != b:
            return i
    return None


def _status(view: View, names: tuple[str, ...] | list[str], lang: Lang) -> tuple[str, RGB]:
    if view.outcome is not None:
        reason = lang.say(view.outcome.reason)
        won = [seat_name(names, w, NAME_MAX) for w in view.outcome.winners]
        if not won:
            return lang.t("Game over: {reason}", reason=reason), RESULT
        if len(won) == 1:
            return lang.t("{player} wins: {reason}", player=won[0], reason=reason), RESULT
        return lang.t("{players} share the win: {reason}", players=lang.words(won), reason=reason), RESULT
    if view.turn is not None:
        return lang.t(
            "Move {number}: {player} to flip a digit",
            number=len(view.rows),
            player=seat_name(names, view.turn, NAME_MAX),
        ), INK
    return "", MUTED


def render_board(view: View, names: tuple[str, ...] | list[str] = (), *, lang: Lang = ENGLISH) -> bytes:
    rows = len(view.rows)
    columns = -(-rows // MAX_ROWS_PER_COLUMN)
    per_col = -(-rows // columns)
    num_w = text_width(str(rows - 1), TEXT) + 12
    digits_w = view.n * CELL
    ms_w = max(text_width(format_multiset(ms), TEXT) for ms in view.multisets)
    col_w = num_w + digits_w + 8 + BADGE + 8 + ms_w + PAD + 8
    status, ink = _status(view, names, lang)
    width = max(PAD + columns * col_w, MIN_WIDTH, PAD + text_width(status, TEXT) + PAD)
    # The players, each a badge and a name, in as many lines as the board's width needs.
    lines: list[list[tuple[int, str]]] = [[]]
    used = 0
    for seat in range(view.n_players):
        name = seat_name(names, seat, NAME_MAX)
        w = BADGE + 6 + text_width(name, TEXT, "bold") + 18
        if lines[-1] and PAD + used + w > width - PAD:
            lines.append([])
            used = 0
        lines[-1].append((seat, name))
        used += w
        width = max(width, PAD + used - 18 + PAD)
    extra = (len(lines) - 1) * PLAYERS_LINE
    top = PAD + HEAD_H + extra
    height = top + ROW_H + per_col * ROW_H + PAD
    c = Canvas(width, height)

    # Title, the players and whose move it is.
    c.text((PAD, PAD - 2), f"Procession · n = {view.n}", TITLE, INK, "bold")
    for i, line in enumerate(lines):
        x, y = PAD, PAD + 32 + i * PLAYERS_LINE
        for seat, name in line:
            c.badge((x, y), seat, BADGE)
            x += BADGE + 6
            x += c.text((x, y), name, TEXT, INK, "bold") + 18
    c.text((PAD, PAD + 58 + extra), status, TEXT, ink)

    for col in range(columns):
        x0 = PAD + col * col_w
        for p in range(view.n):  # positions above the digits
            c.text((x0 + num_w + p * CELL + CELL // 2, top), str(p + 1), TEXT, MUTED, anchor="c")
        c.line([(x0, top + ROW_H - 3), (x0 + col_w - PAD, top + ROW_H - 3)], GRID)

    last = rows - 1
    for i, row in enumerate(view.rows):
        col, r = divmod(i, per_col)
        x = PAD + col * col_w
        y = top + ROW_H + r * ROW_H
        bg = HIGHLIGHT if i == last and view.turn is not None else BACKGROUND
        if bg != BACKGROUND:
            c.rect((x - 4, y - 2, x + col_w - PAD, y + ROW_H - 3), fill=bg)
        c.text((x + num_w - 8, y + 1), str(i), TEXT, MUTED, anchor="r", background=bg)
        flipped = _flipped(view.rows[i - 1], row) if i > 0 else None
        sprite = _row(row, flipped, view.movers[i], format_multiset(view.multisets[i]), bg)
        c.paste(sprite, (x + num_w, y))
    return c.png()


def render(view: Any, names: tuple[str, ...], *, lang: Lang = ENGLISH) -> bytes:
    return render_board(view, names, lang=lang)
