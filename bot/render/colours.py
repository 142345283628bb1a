"""The colours of every board: light ink on an opaque slate card with a thin light border, so that a
board stands out from Discord's dark theme (#313338) without glaring, and reads as a dark card on the
light theme (#FFFFFF); and one colour per seat, always shown with the seat's letter.

Contrast against BACKGROUND (WCAG ratio): INK 15, MUTED 8, GOOD 9, BAD 6.5, RESULT 11, each player
colour >= 3.
"""

from __future__ import annotations

RGB = tuple[int, int, int]

BACKGROUND: RGB = (27, 30, 36)
BORDER: RGB = (132, 138, 152)  # the card's thin frame: visible on both themes
PANEL: RGB = (50, 55, 66)
INK: RGB = (238, 240, 244)
MUTED: RGB = (172, 178, 190)
GRID: RGB = (88, 94, 108)
HIGHLIGHT: RGB = (92, 76, 20)  # a dim amber row or box, under INK text
GOOD: RGB = (96, 214, 160)
BAD: RGB = (255, 122, 110)  # errors and losses (a moldy card, a forfeit): never a game's result
RESULT: RGB = (246, 206, 96)  # a finished game's result line: gold, whoever won
WHITE: RGB = (244, 244, 240)  # card faces
CARD_INK: RGB = (24, 24, 28)  # text on a card face or a light badge
CARD_RED: RGB = (196, 30, 40)  # red suits on a card face

# Okabe-Ito: distinguishable under the common colour-vision deficiencies (black, invisible on the
# slate, is a light grey here). Each seat also has a letter (A, B, ...) wherever its colour shows.
PLAYER_COLOURS: tuple[RGB, ...] = (
    (230, 159, 0),  # orange
    (86, 180, 233),  # sky blue
    (0, 158, 115),  # bluish green
    (204, 121, 167),  # reddish purple
    (240, 228, 66),  # yellow
    (213, 94, 0),  # vermillion
    (40, 130, 200),  # blue (a little lighter than Okabe-Ito's, for the slate)
    (200, 200, 200),  # grey
)


def player_colour(seat: int) -> RGB:
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def seat_letter(seat: int) -> str:
    """The letter that marks a seat on every board: A, B, C, ..."""
    return chr(ord("A") + seat) if 0 <= seat < 26 else str(seat + 1)


def luminance(rgb: RGB) -> float:
    """WCAG relative luminance."""

    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else float(((s + 0.055) / 1.055) ** 2.4)

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def ink_on(fill: RGB) -> RGB:
    """Dark or light text, whichever reads better on ``fill``."""
    return CARD_INK if contrast(fill, CARD_INK) >= contrast(fill, (255, 255, 255)) else (255, 255, 255)
