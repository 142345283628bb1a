"""The rules of this game as /game rules and the Rules button tell them (see `bot.spec.RulesText`)."""

from __future__ import annotations

from bot.i18n import N_
from bot.spec import RulesText

TEXT = RulesText(
    "Up-Down-Stay",
    N_(
        """**Up-Down-Stay** (2-10 players, `/updown new`)
A 52-card deck is dealt: floor(52/k) cards each, the rest set aside unseen. Only values count (A=1 … K=13). \
Each player secretly predicts a string of U (up), D (down) and S (same), 1 to R-1 letters (R = cards in \
the row), and may replace it until the first card is placed. Then, in turn order, each places one card \
per turn onto a single row until all hands are empty. Between neighbours the row goes U, D or S. A \
prediction scores its length if it occurs as consecutive changes somewhere in the row, else 0. Highest \
score wins; tied leaders play again among themselves until one champion remains (after five tied \
playoffs in a row, they share the win).
**Example**: row 2,6,5,4,7,9,7,1,2,2,5,8 has changes UDDUUDDUSUU. UUDDUSU occurs from the 4 to the 5 \
(7 changes) and scores 7."""
    ),
)
