"""The rules as `/game rules` tells them: a short summary of RULES.md per game, with a worked example.

Each body is one text to translate (its msgid is the English); a translation keeps every number,
multiset, list and command of the worked example exactly as it is, and only the words change.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import GameError
from bot.i18n import ENGLISH, N_, Lang


@dataclass(frozen=True)
class RulesText:
    title: str
    body: str


RULES_TEXT: dict[str, RulesText] = {
    "procession": RulesText(
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
    ),
    "updown": RulesText(
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
    ),
    "numbers": RulesText(
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
    ),
    "divisors": RulesText(
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
    ),
    "dots": RulesText(
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
    ),
}


def rules_of(game: str, lang: Lang = ENGLISH) -> str:
    """The rules of ``game`` (its name, like ``dots``) as /game rules and the Rules button give them,
    in ``lang`` (each body is a msgid; English until its translations are in the catalogs)."""
    text = RULES_TEXT.get(game)
    if text is None:
        raise GameError("There is no game by that name. Choose one from the list.")
    return lang.t(text.body)
