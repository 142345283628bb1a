"""Lines By The Dots board: the grid with its coordinates (letters on top, numbers at the left), every
line in its player's colour, non-virgin dots filled, the current dot ringed, and a score legend with
the line owed next."""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.dots import COLUMNS, View
from bot.render.colours import BACKGROUND, BAD, GOOD, GRID, HIGHLIGHT, INK, MUTED, PANEL, player_colour
from bot.render.common import Canvas, seat_name, text_width

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


def _owed_line(view: View, names: Sequence[str], room: int) -> tuple[int, str]:
    """Who draws what next, in the longest wording that fits ``room`` pixels (then smaller)."""
    o, who = view.owed, seat_name(names, view.turn or 0)
    assert o is not None
    if o.first:
        long, short = "from any dot (the first line)", "from any dot"
    elif o.fallback:
        long, short = "from a non-virgin dot (fallback)", "(fallback)"
    elif view.current is not None:
        long = short = f"from {COLUMNS[view.current[0]]}{view.current[1] + 1}"
    else:
        long = short = ""
    candidates = [f"{who} draws a {o.direction} line {long}", f"{who} draws a {o.direction} line {short}"]
    for text in candidates:  # the full wording in small type before a shorter one
        for size in (TEXT, SMALL):
            if text_width(text, size) <= room:
                return size, text
    return SMALL, candidates[-1]


def _spacing(size: int) -> int:
    return min(72, BOARD_SPAN // (size - 1))


def render_board(view: View, names: Sequence[str] = ()) -> bytes:
    size, n = view.size, view.n_players
    step = _spacing(size)
    grid = step * (size - 1)
    board_w = PAD + LABEL_W + 10 + grid + 14 + PAD
    width = max(board_w, MIN_WIDTH)
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
        c.text((PAD, y), f"Game over: {view.outcome.reason}.", TEXT, BAD, "bold")
    elif view.owed is not None and view.turn is not None:
        text_size, text = _owed_line(view, names, width - 2 * PAD)
        c.text((PAD, y), text, text_size, INK)
    y += 30
    winners = set(view.outcome.winners) if view.outcome is not None else set()
    for seat in range(n):
        bg = HIGHLIGHT if seat == view.turn else BACKGROUND
        if bg != BACKGROUND:
            c.rect((PAD - 4, y - 2, width - PAD + 4, y + LEGEND_ROW - 4), fill=bg)
        c.rect((PAD, y + 8, PAD + 10, y + 12), fill=player_colour(seat))
        c.badge((PAD + 12, y + 1), seat, BADGE, background=bg)
        c.text((PAD + 40, y + 1), seat_name(names, seat), TEXT, INK, "bold", background=bg)
        c.text((PAD + 260, y), str(view.scores[seat]), 16, INK, "bold", "r", background=bg)
        if seat in winners:
            c.text((PAD + 272, y + 3), "★ wins", SMALL, GOOD, background=bg)
        elif seat in view.forfeited:
            c.text((PAD + 272, y + 3), "left the game", SMALL, BAD, background=bg)
        elif seat == view.turn:
            c.text((PAD + 272, y + 3), "to move", SMALL, INK, background=bg)
        y += LEGEND_ROW
    return c.png()
