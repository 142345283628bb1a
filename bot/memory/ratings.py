"""Ratings: how a finished game places its seats, and how that moves each player's rating.

Pure: no discord, no SQL, no PIL. The storage calls `seat_results` and `rate` inside the transaction
that finishes a game (`bot.storage.records`), and `recompute` rebuilds a whole table from the stored
placements, in the order the games finished: both use the same arithmetic, so the two agree exactly.

**Model.** openskill's Plackett-Luce model (Weng and Lin, 2011): a Bayesian rating (``mu``, the
estimated skill, and ``sigma``, how unsure that estimate is) for 2 to 10 players in one game, each
player a team of one, ranked 1st, 2nd, ... with ties allowed (equal places rate as a tie).

**Places** (`places`): a seat that forfeited (``/game leave``, or a missed deadline) places last,
below every seat that did not; several forfeits tie for last. The others: the winners first (a shared
win or a draw: tied for first); then, in the games whose scores compare across all seats (Lines By The
Dots, Numbers To Number, the Numerical Card Game), the rest by score, higher first; in Procession
(no score: the last player able to move wins, the others lose alike) and Up-Down-Stay (after a
playoff, the playoff players' scores come from another deal than the rest's, so they do not compare)
the rest tie below the winners.

**Computers.** Each computer level is one player per server and game: every computer seat at that
level (``Computer (hard)``, ``Computer 2 (hard)``) plays under the identity ``computer_id(level, 1)``.
Two seats of one level in one game are two entries of the update, both starting from the level's
rating; the level then takes the mean of their new ratings, and counts the game once (a win when
either seat won).

**The number shown** (`shown`): ``1000 + 40 * (mu - 3 * sigma)``, rounded: the conservative estimate
openskill calls the ordinal (the skill the player very likely has at least), so a newcomer starts at
1000 and climbs as games make the estimate surer, rather than topping the board after one lucky win.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from bot.jsontypes import JSONMap
from bot.players.seats import computer_id, computer_name, is_computer, level_of

MODEL = PlackettLuce()
BASE = 1000
SCALE = 40


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def ordinal(self) -> float:
        """The conservative estimate: ``mu - 3 sigma``."""
        return self.mu - 3 * self.sigma

    @property
    def shown(self) -> int:
        return shown(self.ordinal)


def shown(ordinal: float) -> int:
    """The rating as people see it, from an ordinal (1000 for a newcomer)."""
    return round(BASE + SCALE * ordinal)


def shown_change(delta: float) -> int:
    """A change of ordinal as a change of the number shown."""
    return round(SCALE * delta)


def identity(user_id: int) -> int:
    """Who a seat's player is for ratings: the person's id, or the computer level's one identity."""
    return computer_id(level_of(user_id), 1) if is_computer(user_id) else user_id


def identity_name(user_id: int, seat_name: str) -> str:
    """The name a rating row shows: the seat's stored name, or "Computer (hard)" for any computer of
    that level."""
    return computer_name(identity(user_id)) if is_computer(user_id) else seat_name


# ---- a finished game's places ------------------------------------------------------------------------


def places(
    by_score: bool,
    n_seats: int,
    *,
    winners: Collection[int],
    scores: Sequence[int] | None,
    forfeited: Collection[int],
) -> tuple[int, ...]:
    """Each seat's place (1 = first), ties sharing a place and the next place skipped (1, 1, 3).
    ``by_score``: the game's final scores rank every seat (its spec's ``ranked_by_score``); in the
    others, the losers tie below the winners."""
    by_score = by_score and scores is not None and len(scores) == n_seats

    def key(seat: int) -> tuple[int, int]:
        if seat in forfeited:
            return (2, 0)
        if seat in winners:
            return (0, 0)
        return (1, -scores[seat] if by_score and scores is not None else 0)

    keys = [key(seat) for seat in range(n_seats)]
    return tuple(1 + sum(1 for other in keys if other < mine) for mine in keys)


@dataclass(frozen=True, slots=True)
class SeatResult:
    """How one seat of a finished game did."""

    seat: int
    user_id: int
    player: int  # `identity(user_id)`
    place: int
    score: int | None
    won: bool  # among the winners of a game that was not a draw
    forfeited: bool


def seat_results(
    by_score: bool, seats: Sequence[int], result: JSONMap, forfeited: Collection[int]
) -> tuple[SeatResult, ...]:
    """The seats of a finished game (user ids in seat order), from its stored outcome (``winners``,
    ``scores``, ``draw``: `bot.rules.base.Outcome` as JSON) and the seats that forfeited."""
    n = len(seats)
    winners = {int(s) for s in result.get("winners") or () if isinstance(s, int) and 0 <= s < n}
    raw_scores = result.get("scores")
    scores = (
        tuple(int(s) for s in raw_scores)
        if isinstance(raw_scores, list | tuple) and all(isinstance(s, int) for s in raw_scores)
        else None
    )
    if scores is not None and len(scores) != n:
        scores = None
    draw = bool(result.get("draw"))
    gone = {s for s in forfeited if 0 <= s < n}
    placed = places(by_score, n, winners=winners, scores=scores, forfeited=gone)
    return tuple(
        SeatResult(
            seat=seat,
            user_id=user_id,
            player=identity(user_id),
            place=placed[seat],
            score=None if scores is None else scores[seat],
            won=seat in winners and seat not in gone and not draw,
            forfeited=seat in gone,
        )
        for seat, user_id in enumerate(seats)
    )


# ---- the update ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One seat in a rating update: who (an identity) and its place."""

    player: int
    place: int


def rate(prior: Mapping[int, Rating], entries: Sequence[Entry]) -> dict[int, Rating]:
    """The new rating of every player of one game. ``prior``: their ratings before it (a player
    missing there is new). A player with several entries (two computers of one level) takes the mean
    of its entries' new ratings. A game of fewer than two entries changes nothing."""
    if len(entries) < 2:
        return {e.player: prior.get(e.player, Rating()) for e in entries}
    teams = []
    for entry in entries:
        before = prior.get(entry.player, Rating())
        teams.append([MODEL.rating(mu=before.mu, sigma=before.sigma)])
    rated = MODEL.rate(teams, ranks=[e.place for e in entries])
    sums: dict[int, tuple[float, float, int]] = {}
    for entry, (new,) in zip(entries, rated, strict=True):
        mu, sigma, count = sums.get(entry.player, (0.0, 0.0, 0))
        sums[entry.player] = (mu + float(new.mu), sigma + float(new.sigma), count + 1)
    return {player: Rating(mu / count, sigma / count) for player, (mu, sigma, count) in sums.items()}


# ---- a whole table -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished game as the recompute reads it: where, which game, and its seats' places."""

    guild_id: int
    kind: str
    entries: tuple[Entry, ...]
    winners: frozenset[int]  # the players (identities) who won it


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating in one server and game, with their tally."""

    rating: Rating
    games: int
    wins: int


Key = tuple[int, str, int]  # (guild id, game kind, player identity)


def recompute(games: Iterable[Finished]) -> dict[Key, Standing]:
    """Every rating, from the finished games in the order they finished (each server's and game's
    table on its own, from scratch)."""
    table: dict[Key, Standing] = {}
    for game in games:
        players = {e.player for e in game.entries}
        prior = {
            p: table[(game.guild_id, game.kind, p)].rating
            for p in players
            if (game.guild_id, game.kind, p) in table
        }
        new = rate(prior, game.entries)
        for p in players:
            key = (game.guild_id, game.kind, p)
            old = table.get(key, Standing(Rating(), 0, 0))
            table[key] = Standing(new[p], old.games + 1, old.wins + (p in game.winners))
    return table
