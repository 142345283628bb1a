"""The rules of this game as /game rules and the Rules button tell them (see `bot.spec.RulesText`)."""

from __future__ import annotations

from bot.i18n import N_
from bot.spec import RulesText

TEXT = RulesText(
    "Numbers To Number",
    N_(
        """**Numbers To Number** (2 players, `/numbers new m:<3-8>`)
The game has floor((2^m - 1)/m) rounds of m moves. Each move, both players secretly pick a number from 1 \
to 2^m - 1 they have not played before in this game; a pick is final. Then both are revealed and the \
round's list gets 1 if player 1's number is larger, 0 if smaller, _ if equal. After m moves, D is every \
number whose m-digit binary form matches the list (each _ as 0 or 1). Each player scores 1 for every \
member of D they played in that round. Highest total wins; equal totals draw.
**Example** (m = 8): the list 01_001_1 gives D = {69, 71, 101, 103}."""
    ),
)
