"""Points, tie-breaks and the standings of a tournament (pure, exact: points are Fractions).

Points per game: a sole win 1; a shared win 1/2 to each winner (a two-player draw is a win shared by
both); a loss 0; a bye 1; a forfeit counts as a win for the opponents of the withdrawn player and a
loss for them.

Tie-breaks (the definitions used here; unplayed games are byes and forfeits, either way):

- Sonneborn-Berger (round robin): the sum, over the player's *played* games, of the points the player
  took from the game times the final points of the opponents in it (summed over the opponents at a
  table of three or more). Unplayed games add nothing.
- Buchholz (Swiss and tables): the sum, over the player's games, of the final points of the opponents
  in it (summed over the opponents at a table). An unplayed game (a bye, a forfeit won or lost) counts
  as an opponent with the player's own final points. A withdrawn player's points are what they had
  when the standings are made (their forfeits included).

Standings: by points, then the tie-break, highest first; players equal on both share a rank (the
next rank skips, as 1, 2, 2, 4), listed among themselves in seeding order. "Games left" is the
number of the player's scheduled games not yet played plus the rounds not yet paired (none for a
withdrawn player).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.events.pairing import Game

SONNEBORN_BERGER = "sonneborn-berger"
BUCHHOLZ = "buchholz"
WIN = Fraction(1)
SHARED = Fraction(1, 2)
BYE = Fraction(1)


@dataclass(frozen=True)
class Result:
    """A finished game: its players in seat order, its winners (two or more: a shared win), and
    whether it was forfeited (unplayed: a withdrawn player's game)."""

    players: Game
    winners: frozenset[int]
    forfeit: bool = False

    def points(self) -> dict[int, Fraction]:
        each = WIN if len(self.winners) == 1 else SHARED
        return {p: each if p in self.winners else Fraction(0) for p in self.players}


def forfeit_result(game: Game, withdrawn: int) -> Result:
    """A game forfeited by ``withdrawn``: the others are credited with the win (shared when several)."""
    return Result(game, frozenset(p for p in game if p != withdrawn), forfeit=True)


@dataclass(frozen=True)
class Standing:
    rank: int
    player: int
    points: Fraction
    tie_break: Fraction
    games_left: int
    withdrawn: bool


def points(players: Iterable[int], results: Iterable[Result], byes: Iterable[int]) -> dict[int, Fraction]:
    """Each player's points: the sum of their games' points and a point per bye."""
    total = {p: Fraction(0) for p in players}
    for result in results:
        for p, got in result.points().items():
            total[p] = total.get(p, Fraction(0)) + got
    for p in byes:
        total[p] = total.get(p, Fraction(0)) + BYE
    return total


def tie_breaks(
    kind: str, players: Iterable[int], results: Iterable[Result], byes: Iterable[int]
) -> dict[int, Fraction]:
    """Each player's Sonneborn-Berger or Buchholz (see the module's text)."""
    results, byes = list(results), list(byes)
    final = points(players, results, byes)
    out: dict[int, Fraction] = defaultdict(Fraction)
    for p in final:
        out[p] = Fraction(0)
    for result in results:
        got = result.points()
        for p in result.players:
            others = sum((final[q] for q in result.players if q != p), Fraction(0))
            if kind == SONNEBORN_BERGER:
                out[p] += 0 if result.forfeit else got[p] * others
            elif kind == BUCHHOLZ:
                out[p] += final[p] if result.forfeit else others
            else:
                raise ValueError(f"unknown tie-break {kind!r}")
    if kind == BUCHHOLZ:
        for p in byes:
            out[p] += final[p]
    return dict(out)


def games_left(
    players: Iterable[int], pending: Iterable[Game], rounds_left: int, withdrawn: Collection[int] = ()
) -> dict[int, int]:
    """Each player's games still to play: their scheduled games not yet over, plus ``rounds_left``
    rounds not yet paired (0 for a round robin, whose rounds are all scheduled)."""
    left = {p: 0 if p in withdrawn else rounds_left for p in players}
    for game in pending:
        for p in game:
            if p in left and p not in withdrawn:
                left[p] += 1
    return left


def standings(
    players: Sequence[int],
    results: Sequence[Result],
    byes: Sequence[int],
    kind: str,
    pending: Iterable[Game] = (),
    rounds_left: int = 0,
    withdrawn: Collection[int] = (),
) -> list[Standing]:
    """The table: ``players`` in seeding order, ranked by points then the ``kind`` tie-break."""
    total = points(players, results, byes)
    tie = tie_breaks(kind, players, results, byes)
    left = games_left(players, pending, rounds_left, withdrawn)
    seed = {p: i for i, p in enumerate(players)}
    order = sorted(players, key=lambda p: (-total[p], -tie[p], seed[p]))
    table: list[Standing] = []
    for place, p in enumerate(order, start=1):
        tied = table and (table[-1].points, table[-1].tie_break) == (total[p], tie[p])
        rank = table[-1].rank if tied else place
        table.append(Standing(rank, p, total[p], tie[p], left[p], p in withdrawn))
    return table
