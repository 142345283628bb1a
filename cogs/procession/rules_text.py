"""The rules of this game as /game rules and the Rules button tell them (see `bot.spec.RulesText`)."""

from __future__ import annotations

from bot.i18n import N_
from bot.spec import RulesText

TEXT = RulesText(
    "Procession",
    N_(
        """**Procession** (2-8 players, `/procession new n:<2-12>`)
Start with a row of n zeros. On your turn, flip exactly one digit (`/procession flip position:` or a \
position button). Look at the run lengths of the new row (the lengths of the blocks of equal digits, \
order ignored): if that multiset has occurred before in this game (the start row's {n} counts), the flip \
is illegal. Players take turns in the order the first board shows. When the player to move has no \
legal flip, the game ends and the player who made the last move wins. A game lasts at most p(n) - 1 moves.
**Example** (n = 5): 00000 {5} → 00010 {3,1,1} → 10010 {2,1,1,1} → 10011 {2,2,1} (10111 would repeat \
{3,1,1}) → 00011 {3,2} → 00001 {4,1}. Now every flip repeats a multiset, so the writer of 00001 wins."""
    ),
)
