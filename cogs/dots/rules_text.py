"""The rules of this game as /game rules and the Rules button tell them (see `bot.spec.RulesText`)."""

from __future__ import annotations

from bot.i18n import N_
from bot.spec import RulesText

TEXT = RulesText(
    "Lines By The Dots",
    N_(
        """**Lines By The Dots** (2-6 players, `/dots new size:<3-10>`)
An n x n grid of dots, named by column letter and row number (A1 top left). A dot is unused until a line \
touches it (its ends and every dot it passes). A turn is a vertical line, then a horizontal line, each \
starting where the previous line ended (the first line of the game starts at any dot). A line runs to an \
unused dot through unused dots only. If no such line exists from the current dot, draw one of the same \
direction from any used dot instead; if none exists anywhere, that line is skipped. Before drawing, you \
score the number of used dots in the line's column (vertical) or row (horizontal); the first line scores \
0. The game ends when every dot is used. Highest total wins.
**Example**: the first line B1→B3 scores 0. The next player's vertical line would start at the end \
of the previous horizontal line, and scores the used dots already in its column."""
    ),
)
