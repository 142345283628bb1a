"""Analysis of a finished game of Lines By The Dots, line by line (pure; `bot.analysis` has the shapes).

Each logged line is judged from the mover's side on the ``"points"`` scale: a value is the mover's
final score margin, the mover's score less the other players' scores taken together (with two
players: less the opponent's; with more, the others are one side, as the computer player's search
takes them: each of them plays to keep the mover's margin over all of them down), when both sides play
on as well as the search sees. ``value_before`` is the best line's value, ``value_after`` the played
line's.

The values come from the ``hard`` player's alpha-beta search (`player._Search`), deepened one line at a
time within the time left (shared over the lines, the last ones first: late positions are cheap to
search to the end, and their table makes the earlier ones cheaper). A value is exact (basis
``"exact"``) when the search reached the end of the game on every line; otherwise it is the deepest
search that finished (basis ``"search"``, ``exact`` false: the points still to come past its horizon
are estimated as the points of the line owed there).

Verdicts by the points lost against the best line: none ``"best"``, 1 ``"good"``, up to `INACCURACY`
``"inaccuracy"``, more ``"mistake"``. ``"blunder"`` only where exact: a line losing at least
`BLUNDER` points, or, with two players, one that turns a won or drawn game (best margin >= 0) into a
lost one (margin < 0). ``better`` lists the best lines (at most `BETTER`), as the log writes them.
A forfeit, and a line the time budget did not reach, is ``"unknown"`` (`Review.complete` is then false).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cogs.dots.rules as rules
from bot.analysis import Deadline, GameRecord, MoveReview, Review, last_first
from bot.jsontypes import JSONObject
from bot.rules.base import forfeit_of
from cogs.dots.player import _INF, _Geometry, _geometry, _Move, _moves, _Search

INACCURACY = 3  # points lost, at most, for "inaccuracy" (1 is "good"); more is a "mistake"
BLUNDER = 6  # points lost, at least, for a "blunder" (exact values only)
BETTER = 8  # best lines listed, at most
FULL = 256  # a depth no game reaches (a 10 x 10 game has under 100 lines): the search sees the end
START_RATE = 20_000.0  # search nodes a second, assumed until measured
TABLE_LIMIT = 500_000  # transposition entries kept per mover before the table is emptied


@dataclass
class _Clock:
    deadline: Deadline
    nodes: int = 0
    spent: float = 0.0

    def rate(self) -> float:
        return self.nodes / self.spent if self.spent > 0.05 and self.nodes > 500 else START_RATE


@dataclass(frozen=True)
class _Judged:
    values: dict[tuple[int, int], int]  # (start, end) -> value, exact where > best - 1 (else a bound)
    best: int
    exact: bool


def _mask(g: _Geometry, dots: frozenset[rules.Dot]) -> int:
    return sum(1 << (row * g.size + col) for col, row in dots)


def _index(g: _Geometry, dot: rules.Dot) -> int:
    return dot[1] * g.size + dot[0]


def _dot(g: _Geometry, index: int) -> rules.Dot:
    return index % g.size, index // g.size


def margin(state: rules.State, seat: int) -> int:
    """The seat's score less the other players' (those still in) taken together."""
    others = sum(s for i, s in enumerate(state.scores) if i != seat and i not in state.forfeited)
    return state.scores[seat] - others


class _Timed(_Search):
    """The player's search, stopped by the clock as well as by its node budget."""

    until = 0.0

    def value(
        self, marked: int, current: int, vertical: bool, seat: int, depth: int, alpha: int, beta: int
    ) -> int:
        if not self.nodes & 255 and time.monotonic() > self.until:
            raise _Search.OutOfNodes
        return super().value(marked, current, vertical, seat, depth, alpha, beta)


class _Judge:
    def __init__(self, clock: _Clock) -> None:
        self.clock = clock
        self.searches: dict[tuple[int, int, int, frozenset[int]], _Timed] = {}
        self.cut = False

    def search(self, g: _Geometry, state: rules.State) -> _Timed:
        """The search for the mover, with its table. With two players left a position's value, from
        the side of the seat to move there, does not depend on whose analysis asks (each side is one
        seat), so both movers share one table; with more, the mover's side is the mover alone."""
        two = state.n_players - len(state.forfeited) == 2
        key = (g.size, -1 if two else state.turn, state.n_players, state.forfeited)
        found = self.searches.get(key)
        if found is None or len(found.table) > TABLE_LIMIT:
            found = self.searches[key] = _Timed(g, state.turn, state.n_players, state.forfeited, 0)
        found.me = state.turn
        return found

    def judge(
        self, index: int, seat: int, action: JSONObject, state: rules.State, share: float
    ) -> MoveReview:
        unknown = MoveReview(index=index, seat=seat, action=action, verdict="unknown")
        if forfeit_of(action) is not None or state.finished:
            return unknown
        if share <= 0 or self.clock.deadline.expired():
            self.cut = True
            return unknown
        g = _geometry(state.size)
        move = rules.parse_action(action)
        assert isinstance(move, rules.Line)
        start = (
            rules.parse_dot(move.from_, state.size) if move.from_ and move.from_.strip() else state.current
        )
        assert start is not None
        played = (_index(g, start), _index(g, rules.parse_dot(move.to, state.size)))
        judged = self.values(g, state, played, share)
        if judged is None:
            self.cut = True
            return unknown
        self.cut |= not judged.exact
        return _review(index, seat, action, state, g, played, judged)

    def values(
        self, g: _Geometry, state: rules.State, played: tuple[int, int], share: float
    ) -> _Judged | None:
        """The root lines' values by iterative deepening within ``share`` seconds: the deepest search
        that finished (exact when it saw the end), None when not even the first did."""
        marked = _mask(g, state.marked)
        current = -1 if state.current is None else _index(g, state.current)
        vertical = state.direction == rules.VERTICAL
        search = self.search(g, state)
        moves = _moves(g, marked, current, vertical)
        moves.sort(key=lambda m: ((m.start, m.end) != played, -search.order_key(m, marked, vertical)))
        virgins = g.size * g.size - marked.bit_count()
        end = time.monotonic() + share
        found: _Judged | None = None
        depth = 1
        while True:
            full = depth > virgins
            left = end - time.monotonic()
            if left <= 0 or self.clock.deadline.expired():
                return found
            search.budget = search.nodes + max(100, int(self.clock.rate() * left * 2))
            search.until = min(end, self.clock.deadline.end)
            t0, n0 = time.monotonic(), search.nodes
            try:
                found = _Judged(*self.root(search, moves, marked, vertical, FULL if full else depth), full)
            except _Search.OutOfNodes:
                return found
            finally:
                self.clock.nodes += search.nodes - n0
                self.clock.spent += time.monotonic() - t0
            if full:
                return found
            # Best lines first in the next iteration (the played one stays first: it is searched with
            # the full window).
            rest = sorted(moves[1:], key=lambda m: -found.values[(m.start, m.end)])
            moves = [moves[0], *rest]
            depth += 1

    def root(
        self, search: _Timed, moves: list[_Move], marked: int, vertical: bool, depth: int
    ) -> tuple[dict[tuple[int, int], int], int]:
        """Every root line's value at ``depth``: the played line (first) exactly, the others exactly
        where they tie or beat the best so far (a window just below it), else an upper bound."""
        values: dict[tuple[int, int], int] = {}
        best = -_INF
        me = search.me
        for move in moves:
            alpha = best - 1 if best > -_INF else -_INF
            v = move.gain + search.child(
                marked | move.seg, move.end, vertical, me, True, depth, alpha, _INF, move
            )
            values[(move.start, move.end)] = v
            best = max(best, v)
        return values, best


def _action(g: _Geometry, state: rules.State, start: int, end: int) -> JSONObject:
    owed = rules.owed(state)
    assert owed is not None
    needs_from = owed.needs_from
    return rules.Line(
        rules.dot_name(_dot(g, end)), rules.dot_name(_dot(g, start)) if needs_from else None
    ).to_json()


def _review(
    index: int,
    seat: int,
    action: JSONObject,
    state: rules.State,
    g: _Geometry,
    played: tuple[int, int],
    judged: _Judged,
) -> MoveReview:
    now = margin(state, seat)
    best, after = judged.best, judged.values[played]
    lost = best - after
    if lost <= 0:
        verdict = "best"
    elif lost == 1:
        verdict = "good"
    elif lost <= INACCURACY:
        verdict = "inaccuracy"
    else:
        verdict = "mistake"
    two = state.n_players - len(state.forfeited) == 2
    if judged.exact and (lost >= BLUNDER or (two and now + best >= 0 > now + after)):
        verdict = "blunder"
    better: tuple[JSONObject, ...] = ()
    if verdict != "best":
        tops = sorted(k for k, v in judged.values.items() if v == best)
        better = tuple(_action(g, state, s, e) for s, e in tops[:BETTER])
    basis = "exact" if judged.exact else "search"
    return MoveReview(
        index, seat, action, verdict, judged.exact, float(now + best), float(now + after), better, basis
    )


def analyse(record: GameRecord, seconds: float) -> Review:
    """Every logged line of ``record`` judged within ``seconds`` (see the module docstring)."""
    clock = _Clock(Deadline(seconds * 0.95))  # a little room for what follows the last search
    judge = _Judge(clock)
    moves = last_first(rules, record, clock.deadline, judge.judge)
    return Review(kind=rules.NAME, scale="points", moves=moves, complete=not judge.cut)
