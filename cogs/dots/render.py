"""Lines By The Dots board: the grid with its coordinates (letters on top, numbers at the left), every
line in its player's colour, non-virgin dots filled, the current dot ringed, and a score legend with
the line owed next."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import ENGLISH, N_, Lang
from bot.render.colours import (
    BACKGROUND,
    BAD,
    GOOD,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    PANEL,
    RESULT,
    RGB,
    player_colour,
)
from bot.render.common import Canvas, seat_name, text_width
from cogs.dots.rules import COLUMNS, View, directed

PAD = 16
LABEL_W = 28  # room for the row numbers at the left
LABEL_H = 24  # room for the column letters on top
BOARD_SPAN = 432  # the grid's extent in pixels, whatever its size, so boards look alike
LEGEND_ROW = 26
MIN_WIDTH = 440
TEXT = 14
SMALL = 14
BADGE = 20
MARK = 18  # the letter badge on each line
MARK_X = 272  # where the legend's "wins", "to move" or "left the game" starts


def _owed_line(view: View, names: Sequence[str], room: int, lang: Lang = ENGLISH) -> tuple[int, str]:
    """Who draws what next, in the longest wording that fits ``room`` pixels (then smaller); the
    shortest when none fits (the board is then made wider)."""
    o = view.owed
    assert o is not None
    d, who = o.direction, seat_name(names, view.turn or 0)
    if o.first:
        wordings = [
            directed(
                d,
                N_("{player} draws a vertical line from any dot (the first line)"),
                N_("{player} draws a horizontal line from any dot (the first line)"),
            ),
            directed(
                d,
                N_("{player} draws a vertical line from any dot"),
                N_("{player} draws a horizontal line from any dot"),
            ),
        ]
    elif o.fallback:
        wordings = [
            directed(
                d,
                N_("{player} draws a vertical line from any used dot"),
                N_("{player} draws a horizontal line from any used dot"),
            ),
            directed(
                d,
                N_("{player}: a vertical line from a used dot"),
                N_("{player}: a horizontal line from a used dot"),
            ),
        ]
    else:
        wordings = [
            directed(
                d,
                N_("{player} draws a vertical line from {dot}"),
                N_("{player} draws a horizontal line from {dot}"),
            )
        ]
    dot = "" if view.current is None else f"{COLUMNS[view.current[0]]}{view.current[1] + 1}"
    candidates = [lang.t(w, player=who, dot=dot) for w in wordings]
    for text in candidates:  # the full wording in small type before a shorter one
        for size in (TEXT, SMALL):
            if text_width(text, size) <= room:
                return size, text
    return SMALL, candidates[-1]


def _spacing(size: int) -> int:
    return min(72, BOARD_SPAN // (size - 1))


def _marks(view: View, lang: Lang) -> list[tuple[str, RGB] | None]:
    """What the legend says after each player's score: the winners, who left, who moves."""
    winners = set(view.outcome.winners) if view.outcome is not None else set()
    marks: list[tuple[str, RGB] | None] = []
    for seat in range(view.n_players):
        if seat in winners:
            marks.append((lang.t("★ wins"), GOOD))
        elif seat in view.forfeited:
            marks.append((lang.t("left the game"), BAD))
        elif seat == view.turn:
            marks.append((lang.t("to move"), INK))
        else:
            marks.append(None)
    return marks


def render_board(view: View, names: Sequence[str] = (), *, lang: Lang = ENGLISH) -> bytes:
    size, n = view.size, view.n_players
    step = _spacing(size)
    grid = step * (size - 1)
    board_w = PAD + LABEL_W + 10 + grid + 14 + PAD
    marks = _marks(view, lang)
    legend_w = PAD + MARK_X + max((text_width(m[0], SMALL) for m in marks if m), default=0) + PAD
    width = max(board_w, MIN_WIDTH, legend_w)
    over = ""
    if view.outcome is not None:
        over = lang.t("Game over: {reason}.", reason=lang.say(view.outcome.reason))
        width = max(width, PAD + text_width(over, TEXT, "bold") + PAD)
    elif view.owed is not None and view.turn is not None:
        text_size, owed = _owed_line(view, names, width - 2 * PAD, lang)
        width = max(width, PAD + text_width(owed, text_size) + PAD)
    # The centre of dot A1; a small grid sits in the middle of the (legend-wide) card.
    x0, y0 = PAD + LABEL_W + 10 + (width - board_w) // 2, PAD + LABEL_H + 10
    legend_y = y0 + grid + 24
    height = legend_y + 30 + LEGEND_ROW * n + PAD
    c = Canvas(width, height)

    def at(dot: tuple[int, int]) -> tuple[int, int]:
        return x0 + dot[0] * step, y0 + dot[1] * step

    # Coordinates.
    for i in range(size):
        c.text((x0 + i * step, PAD), COLUMNS[i], TEXT, MUTED, "bold", "c")
        c.text((x0 - 12, y0 + i * step - 9), str(i + 1), TEXT, MUTED, "bold", "r")
    c.rect((x0 - 14, y0 - 14, x0 + grid + 14, y0 + grid + 14), fill=PANEL, radius=8)

    # Lines: they meet only at their ends (a line passes virgin dots only), so the order is free.
    line_w = max(4, step // 9)
    for line in view.lines:
        c.line([at(line.start), at(line.end)], player_colour(line.seat), line_w)

    # Each line's player letter, half a step from its start (never on a dot).
    for line in view.lines:
        (sx, sy), (ex, ey) = at(line.start), at(line.end)
        dx, dy = (ex > sx) - (ex < sx), (ey > sy) - (ey < sy)
        mx, my = sx + dx * step // 2, sy + dy * step // 2
        c.badge((mx - MARK // 2, my - MARK // 2), line.seat, MARK, background=PANEL)

    # Dots.
    virgin_r, marked_r = max(3, step // 14), max(5, step // 8)
    for col in range(size):
        for row in range(size):
            x, y = at((col, row))
            if (col, row) in view.marked:
                c.ellipse((x - marked_r, y - marked_r, x + marked_r, y + marked_r), fill=INK)
            else:
                c.ellipse(
                    (x - virgin_r, y - virgin_r, x + virgin_r, y + virgin_r), fill=BACKGROUND, outline=GRID
                )
    if view.current is not None and view.outcome is None:
        x, y = at(view.current)
        ring = marked_r + 6
        c.ellipse((x - ring, y - ring, x + ring, y + ring), outline=BAD, width=3)

    # Legend: the players, their scores, who moves and what is owed.
    y = legend_y
    if view.outcome is not None:
        c.text((PAD, y), over, TEXT, RESULT, "bold")
    elif view.owed is not None and view.turn is not None:
        c.text((PAD, y), owed, text_size, INK)
    y += 30
    for seat in range(n):
        bg = HIGHLIGHT if seat == view.turn else BACKGROUND
        if bg != BACKGROUND:
            c.rect((PAD - 4, y - 2, width - PAD + 4, y + LEGEND_ROW - 4), fill=bg)
        c.rect((PAD, y + 8, PAD + 10, y + 12), fill=player_colour(seat))
        c.badge((PAD + 12, y + 1), seat, BADGE, background=bg)
        c.text((PAD + 40, y + 1), seat_name(names, seat), TEXT, INK, "bold", background=bg)
        c.text((PAD + 260, y), str(view.scores[seat]), 16, INK, "bold", "r", background=bg)
        mark = marks[seat]
        if mark is not None:
            c.text((PAD + MARK_X, y + 3), mark[0], SMALL, mark[1], background=bg)
        y += LEGEND_ROW
    return c.png()
