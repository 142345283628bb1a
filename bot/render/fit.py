"""Text that must fit a width on a board, whatever the language: translated words are often longer
than the English the layout was drawn for ("picking…" is "escolhendo…" in Portuguese).

`fitted` says at which size to draw a text so that it fits (down to a smallest size still easy to
read), and cuts it with "…" when even that is too wide. Answers are cached: a board draws the same
few labels again and again.
"""

from __future__ import annotations

from functools import lru_cache

from bot.render.colours import BACKGROUND, RGB
from bot.render.common import Canvas, font

SMALLEST = 11  # px: the smallest text a board shrinks a label to before cutting it


@lru_cache(maxsize=4096)
def width_of(text: str, size: int, face: str = "sans") -> int:
    """The width ``text`` takes at ``size`` (its ink, as `Canvas.text` draws it)."""
    left, _top, right, _bottom = font(size, face).getbbox(text)
    return int(right - min(left, 0))


@lru_cache(maxsize=4096)
def fitted(text: str, size: int, width: int, face: str = "sans", smallest: int = SMALLEST) -> tuple[str, int]:
    """``text`` and the size to draw it at so that it is at most ``width`` pixels wide: ``size`` if it
    fits, else the largest size down to ``smallest`` that fits, else ``text`` cut with "…" at
    ``smallest``."""
    for s in range(size, min(size, smallest) - 1, -1):
        if width_of(text, s, face) <= width:
            return text, s
    s = min(size, smallest)
    low, high = 0, len(text)  # the longest prefix that fits with its ellipsis
    while low < high:
        mid = (low + high + 1) // 2
        if width_of(text[:mid].rstrip() + "…", s, face) <= width:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + "…", s


def draw_fitted(
    c: Canvas,
    xy: tuple[int, int],
    text: str,
    size: int,
    room: int,
    colour: RGB,
    face: str = "sans",
    anchor: str = "l",
    background: RGB = BACKGROUND,
) -> None:
    """Draw ``text`` on ``c`` in at most ``room`` pixels (smaller, or cut), centred on its usual line."""
    shown, at = fitted(text, size, room, face)
    c.text((xy[0], xy[1] + (size - at) // 2), shown, at, colour, face, anchor, background)
