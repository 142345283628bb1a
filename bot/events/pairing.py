"""Who plays whom in each round of a tournament (pure, deterministic).

A game is a tuple of player ids in seat order (seat 0 moves first); a `Round` is its games plus the
players who sit it out with a bye. Players come in seeding order (strongest first): seeding by rating
is the caller's business.

Round robin (`round_robin`), two-player games, 3 to 32 players: the circle method. With an odd count
an empty seat (the bye) is added; the list is laid out around a circle with its first place fixed
(the bye, when there is one) and the others turn one place each round, the players facing each other
across the circle meeting. Every pair meets exactly once over ``n - 1`` rounds (``n`` rounds when
odd), and with an odd count every player sits out exactly one round. First moves: the player on the
upper half of the circle moves first; the fixed player (even counts) moves first in even rounds.
So with an odd count everyone moves first in exactly half their games; with an even count the
difference between anyone's first and second moves is at most one (the best an odd number of games
allows).

Swiss (`swiss`), two-player games: a simplified Dutch system, written down here because it is ours
(the Python pairing libraries we looked at were either unmaintained or a large FIDE engine; this is
small enough to test fully):

1. Rank the players by score (highest first), then by seeding.
2. Bye (odd count): the lowest-ranked player who has not had a bye yet and without whom the others
   can still be paired; a player has at most one bye. If everyone has had one, `PairingError`.
3. Pair from the top: the highest-ranked unpaired player ``p`` takes the first opponent, in this order
   of preference, that ``p`` has not met yet and with whom the players left can still all be paired:
   first ``p``'s own score group (those of ``p``'s score still unpaired, ``g`` players with ``p``
   first), the Dutch way: the player at place ``g // 2`` (the top of the lower half), then the
   places below it, then those above it up the group; then the lower score groups, highest first
   (``p`` floats down). An odd group thus floats its lowest-ranked player down to the next group.
   "Can still be paired" is a full search (backtracking). It first finds the pairing first in that
   order with as many floats as it takes; then it looks for one with fewer games between different
   scores (none, then one, and so on, each search at most `FEWER_STEPS` tries): the round has as few
   floats as any pairing without repeats can have whenever a search that short finds or rules them
   out (always in practice, but where a large group's repeats make a lower count slow to rule out:
   then the first one found with fewer), and among those it is the first in the order above. When no
   pairing without a repeat exists, `PairingError` says so; it says so too when the first search
   passes `SEARCH_STEPS` tries (late rounds of a long Swiss: keep to `max_swiss_rounds`).
4. First move: the one of the two who has moved first less often (counting first moves minus second
   moves); then the one who moved second in their last game; then the higher-ranked on even boards,
   the lower-ranked on odd boards.

Tables (`tables`), games of three or more players: the players, ranked by score then seeding, sit in
consecutive groups, the top scores together. The number of tables is the fewest that respect the
game's largest size, ``ceil(n / max)``; the players are spread over them as evenly as possible, the
larger tables first (13 players of a 3-to-4 game: 4, 3, 3, 3). When no spread gives every table at
least the smallest size (5 players of a 3-to-4 game), the fewest players needed sit out with a bye:
the lowest-ranked who have not had one (then the lowest-ranked). In a table, seat 0 goes to the
player who has moved first least often, ties to the higher-ranked, and so on down the seats.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

Game = tuple[int, ...]

MIN_PLAYERS = 3
MAX_PLAYERS = 32
SEARCH_STEPS = 10_000  # (a Swiss round's search gives up after this many tries: see rule 3)
FEWER_STEPS = 1_000  # (each search for a pairing with fewer floats gives up after this many)


def max_swiss_rounds(n: int) -> int:
    """The most Swiss rounds a tournament of ``n`` players should have: ``ceil(log2 n) + 2``, at most
    ``n - 1`` (beyond that a Swiss is a round robin, and pairings without repeats get scarce)."""
    return min(n - 1, (n - 1).bit_length() + 2)


class PairingError(ValueError):
    """No pairing is possible under the rules (said in a sentence a host can act on)."""


@dataclass(frozen=True)
class Round:
    games: tuple[Game, ...]
    byes: tuple[int, ...] = ()

    def players(self) -> set[int]:
        return {p for game in self.games for p in game} | set(self.byes)


def _check_players(players: Sequence[int]) -> None:
    if len(set(players)) != len(players):
        raise PairingError("A player is listed twice.")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise PairingError(f"A tournament takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}.")


# ---- round robin ----------------------------------------------------------------------------------


def round_robin(players: Sequence[int]) -> tuple[Round, ...]:
    """Every round of a round robin by the circle method (see the module's text)."""
    _check_players(players)
    circle: list[int | None] = [None, *players] if len(players) % 2 else list(players)
    m = len(circle)
    rounds = []
    for number in range(m - 1):
        games: list[Game] = []
        byes: list[int] = []
        for board in range(m // 2):
            top, bottom = circle[board], circle[m - 1 - board]
            if top is None or bottom is None:
                byes.append(bottom if top is None else top)  # type: ignore[arg-type]
                continue
            first_is_top = board > 0 or number % 2 == 0
            games.append((top, bottom) if first_is_top else (bottom, top))
        rounds.append(Round(tuple(games), tuple(byes)))
        circle = [circle[0], circle[-1], *circle[1:-1]]  # (everyone but the fixed place turns one)
    return tuple(rounds)


# ---- Swiss -----------------------------------------------------------------------------------------


def _first_balance(history: Iterable[Round]) -> tuple[Counter[int], dict[int, int]]:
    """Each player's first moves minus second moves, and the seat of their last two-player game."""
    balance: Counter[int] = Counter()
    last: dict[int, int] = {}
    for past in history:
        for game in past.games:
            if len(game) == 2:
                balance[game[0]] += 1
                balance[game[1]] -= 1
                last[game[0]], last[game[1]] = 0, 1
    return balance, last


def _met(history: Iterable[Round]) -> set[frozenset[int]]:
    return {
        frozenset((a, b)) for past in history for game in past.games for a in game for b in game if a != b
    }


def _preference(p: int, rest: Sequence[int], score: Mapping[int, Fraction]) -> list[int]:
    """``p``'s opponents in the order of rule 3: its score group the Dutch way, then the groups below."""
    group = [p, *(q for q in rest if score[q] == score[p])]
    half = len(group) // 2
    same = group[half:] + group[half - 1 : 0 : -1] if half else group[1:]
    return same + [q for q in rest if score[q] != score[p]]


def _match(
    ranked: tuple[int, ...],
    budget: int,
    score: Mapping[int, Fraction],
    met: set[frozenset[int]],
    failed: set[tuple[tuple[int, ...], int]],
    steps: list[int],
    limit: int,
) -> list[tuple[int, int]] | None:
    """The preferred pairing of ``ranked`` (rule 3) with at most ``budget`` games between different
    scores, or None if there is none; `_TooLong` past ``limit`` tries."""
    if not ranked:
        return []
    odd_groups = sum(count % 2 for count in Counter(score[p] for p in ranked).values())
    if (ranked, budget) in failed or odd_groups > 2 * budget:  # (each odd group floats someone)
        return None
    steps[0] += 1
    if steps[0] > limit:
        raise _TooLong()
    p, rest = ranked[0], ranked[1:]
    for q in _preference(p, rest, score):
        cost = int(score[q] != score[p])
        if frozenset((p, q)) in met or cost > budget:
            continue
        tail = _match(tuple(r for r in rest if r != q), budget - cost, score, met, failed, steps, limit)
        if tail is not None:
            return [(p, q), *tail]
    failed.add((ranked, budget))
    return None


class _TooLong(Exception):
    """A search passed its number of tries."""


def _fewest_floats(
    ranked: tuple[int, ...], score: Mapping[int, Fraction], met: set[frozenset[int]]
) -> list[tuple[int, int]] | None:
    """Rule 3's pairing with the fewest games between different scores (see there)."""
    failed: set[tuple[tuple[int, ...], int]] = set()  # (what a search ruled out holds for the next)
    try:
        found = _match(ranked, len(ranked) // 2, score, met, failed, [0], SEARCH_STEPS)
    except _TooLong:
        raise PairingError(TOO_HARD) from None
    if found is None:
        return None
    floats = sum(score[a] != score[b] for a, b in found)
    for budget in range(floats):
        try:
            fewer = _match(ranked, budget, score, met, failed, [0], FEWER_STEPS)
        except _TooLong:
            continue
        if fewer is not None:
            return fewer
    return found


NO_PAIRING = (
    "No Swiss pairing is left without two players meeting again: end the tournament here "
    "(or play fewer rounds)."
)
TOO_HARD = (
    "No Swiss pairing without a repeat was found in reasonable time: end the tournament here "
    "(or play fewer rounds)."
)


def swiss(players: Sequence[int], score: Mapping[int, Fraction], history: Sequence[Round]) -> Round:
    """The next Swiss round for ``players`` (those still in, in seeding order) given their scores and
    the rounds played so far (see the module's text for the rules)."""
    _check_players(players)
    seed = {p: i for i, p in enumerate(players)}
    ranked = tuple(sorted(players, key=lambda p: (-score.get(p, Fraction(0)), seed[p])))
    scores = {p: Fraction(score.get(p, 0)) for p in players}
    met = _met(history)
    had_bye = {p for past in history for p in past.byes}
    candidates: list[int | None] = [None]
    if len(ranked) % 2:
        candidates = [p for p in reversed(ranked) if p not in had_bye]
        if not candidates:
            raise PairingError("Every player has had a bye already: no one can sit out this round.")
    for bye in candidates:
        pairs = _fewest_floats(tuple(p for p in ranked if p != bye), scores, met)
        if pairs is not None:
            games = _seat_pairs(pairs, history, {p: i for i, p in enumerate(ranked)})
            return Round(tuple(games), () if bye is None else (bye,))
    raise PairingError(NO_PAIRING)


def _seat_pairs(
    pairs: list[tuple[int, int]], history: Sequence[Round], rank: Mapping[int, int]
) -> list[Game]:
    """Rule 4: who moves first in each pair (``pairs`` in board order, each higher-ranked first)."""
    balance, last = _first_balance(history)
    games: list[Game] = []
    for board, (a, b) in enumerate(pairs):
        if balance[a] != balance[b]:
            a_first = balance[a] < balance[b]
        elif last.get(a) != last.get(b) and a in last and b in last:
            a_first = last[a] == 1
        else:
            a_first = (board % 2 == 0) == (rank[a] < rank[b])
        games.append((a, b) if a_first else (b, a))
    return games


# ---- tables of three or more -----------------------------------------------------------------------


def table_sizes(n: int, smallest: int, largest: int) -> list[int]:
    """How ``n`` players sit at tables of ``smallest`` to ``largest``: the fewest tables, spread evenly,
    larger first; [] when no spread works."""
    if n <= 0 or smallest > largest:
        return []
    count = -(-n // largest)
    base, extra = divmod(n, count)
    if base < smallest:
        return []
    return [base + 1] * extra + [base] * (count - extra)


def tables(
    players: Sequence[int],
    score: Mapping[int, Fraction],
    history: Sequence[Round],
    smallest: int,
    largest: int,
) -> Round:
    """The next round of a game for ``smallest`` to ``largest`` players (see the module's text)."""
    _check_players(players)
    seed = {p: i for i, p in enumerate(players)}
    ranked = sorted(players, key=lambda p: (-score.get(p, Fraction(0)), seed[p]))
    seated = len(ranked)
    while seated > 0 and not table_sizes(seated, smallest, largest):
        seated -= 1
    if seated == 0:
        raise PairingError(f"{len(players)} players cannot fill a table of {smallest} to {largest}.")
    had_bye = {p for past in history for p in past.byes}
    out = len(ranked) - seated
    byes = [p for p in reversed(ranked) if p not in had_bye][:out]
    byes += [p for p in reversed(ranked) if p not in byes][: out - len(byes)]
    sitting = [p for p in ranked if p not in byes]
    firsts = Counter(game[0] for past in history for game in past.games)
    games: list[Game] = []
    start = 0
    for size in table_sizes(seated, smallest, largest):
        table = sitting[start : start + size]
        start += size
        games.append(tuple(sorted(table, key=lambda p: (firsts[p], ranked.index(p)))))
    return Round(tuple(games), tuple(byes))


# ---- withdrawals -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Withdrawal:
    """What a withdrawal changes: the forfeited games (each with the opponents credited with a win) and
    the later rounds without the withdrawn player (their games and bye taken out)."""

    forfeits: tuple[Game, ...]
    later: tuple[Round, ...]


def withdraw(player: int, current: Round, later: Sequence[Round], finished: Collection[Game]) -> Withdrawal:
    """``player`` leaves: their unfinished games of the current round and all their games of the later
    (already scheduled) rounds are forfeited; later rounds skip them. Two-player forfeits credit the
    opponent with a win (`scoring.forfeit_result`); at a table of three or more the withdrawn player
    loses and the others play on (the caller resigns the seat)."""
    forfeits = [g for g in current.games if player in g and g not in finished]
    rounds = []
    for future in later:
        forfeits += [g for g in future.games if player in g]
        games = tuple(g for g in future.games if player not in g)
        rounds.append(Round(games, tuple(p for p in future.byes if p != player)))
    return Withdrawal(tuple(forfeits), tuple(rounds))
