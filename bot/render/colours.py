"""The colours of every board: dark ink on an opaque, light "paper" card, so that images read the same on
Discord's dark and light themes, and one colour per seat."""

from __future__ import annotations

RGB = tuple[int, int, int]

# An opaque "paper" card: dark ink on a light warm background, readable on both Discord themes.
BACKGROUND: RGB = (246, 243, 236)
PANEL: RGB = (232, 227, 215)
INK: RGB = (33, 33, 38)
MUTED: RGB = (112, 108, 100)
GRID: RGB = (200, 194, 182)
HIGHLIGHT: RGB = (255, 226, 140)
GOOD: RGB = (0, 120, 80)
BAD: RGB = (190, 40, 40)
WHITE: RGB = (255, 255, 255)

# Okabe-Ito: distinguishable under the common colour-vision deficiencies. One colour per seat.
PLAYER_COLOURS: tuple[RGB, ...] = (
    (0, 114, 178),  # blue
    (213, 94, 0),  # vermillion
    (0, 158, 115),  # bluish green
    (204, 121, 167),  # reddish purple
    (230, 159, 0),  # orange
    (86, 180, 233),  # sky blue
    (120, 120, 120),  # grey
    (180, 160, 20),  # dark yellow (plain yellow vanishes on the light background)
)


def player_colour(seat: int) -> RGB:
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]
