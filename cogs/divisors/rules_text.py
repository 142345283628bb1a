"""The rules of this game as /game rules and the Rules button tell them (see `bot.spec.RulesText`)."""

from __future__ import annotations

from bot.i18n import N_
from bot.spec import RulesText

TEXT = RulesText(
    "The Numerical Card Game",
    N_(
        """**The Numerical Card Game** (2-8 players, `/divisors new m:<2-25>`)
Everyone has a fresh pile with the cards 1..m (seen only by its owner) and a moldy pile. Players meet in \
pairings (a round robin, repeated); in each pairing both secretly pick a fresh card, then reveal:
equal (both 1): +2 each, cards exchanged · equal (above 1): +2 each, to the moldy piles · a 1 against a \
bigger card: +2 to the 1's holder, exchanged · a divides b: +2 to a's holder, moldy · common factor: +1 \
each, moldy · coprime: no points, exchanged (each puts the other's card in their own fresh pile).
An empty fresh pile puts you out; `/divisors drop` leaves voluntarily (both keep their score). The game \
ends when fewer than two remain, when no two fresh cards above 1 share a factor, or after m cycles with \
nothing going moldy. Highest score wins.
**Example**: 4 against 12: 4 divides 12, +2 to the 4's holder. 6 against 9: common factor 3, +1 each."""
    ),
)
