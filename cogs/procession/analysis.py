"""Analysis of a finished Procession game, move by move (pure; `bot.analysis` has the shapes).

Each logged flip is judged from the mover's side, on the ``"win"`` scale (+1 the mover wins, -1 loses,
between them an estimated chance ``p`` shown as ``2p - 1``):

- Two players still in (the table's count less those who forfeited, as the computer player counts
  them), n <= 9: exact, from `player.solve_position`. ``value_before`` is +1 when the mover's position
  was won, else -1; ``value_after`` is +1 when the opponent is then lost. A ``"blunder"`` is exactly a
  won position turned into a lost one, and ``better`` lists every winning flip; every other move is
  ``"best"`` (a won position kept won, or a lost one, where no move is better).
- Two players, n > 9: the same search, proving what it can within the time left (shared over the
  moves, the last ones first: late positions are cheap to prove, and what they prove makes the earlier
  ones cheaper). Where the played flip and the position before it are both proved, the judgement is
  exact as above; otherwise the values are estimates (see below), the verdict at worst ``"mistake"``,
  and ``exact`` false.
- Three or more players: the ``hard`` player's estimate, the chance the mover makes the last move when
  each opponent picks uniformly among their legal flips and the mover picks best (expectimax; random
  playouts where its budget runs out). Verdicts by the chance lost against the best flip: up to
  `GOOD` ``"good"``, up to `INACCURACY` ``"inaccuracy"``, beyond ``"mistake"``; ``"best"`` when no
  flip is estimated better; from playouts, the chance lost counts only beyond two standard errors of
  the difference (their noise). ``"blunder"`` only when the full expectimax proves a certain win (chance 1,
  whatever the others do) turned into a certain loss (chance 0), and that is exact.

A forfeit is ``"unknown"``, and so is every move the time budget did not reach (`Review.complete`
is then false).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import cogs.procession.rules as rules
from bot.analysis import Deadline, GameRecord, MoveReview, Review, last_first
from bot.jsontypes import JSONObject
from bot.rules.base import forfeit_of
from cogs.procession.player import (
    EXPECTI_BUDGET,
    TABLE_N,
    _Expecti,
    _Graph,
    _graph,
    _OutOfBudget,
    _Solver,
    _to_int,
    solve_position,
)

GOOD = 0.05  # chance of making the last move lost against the best flip, at most, for "good"
INACCURACY = 0.15  # ... for "inaccuracy"; more is a "mistake"
SAME = 1e-9  # estimates closer than this are equal
START_RATE = 50_000.0  # search nodes a second, assumed until measured
PLAYOUTS = 60  # random playouts a flip, at most, where the expectimax runs out of budget
MIN_PLAYOUTS = 12  # ... and at least (else the estimate is not made)
PROVING = 0.7  # the share of a two-player move's time (n > 9) spent proving; the rest estimates


def _act(position: int) -> JSONObject:
    return {"type": "flip", "position": position}


def _seen(g: _Graph, rows: tuple[str, ...]) -> int:
    seen = 0
    for row in rows:
        seen |= g.bit[_to_int(row)]
    return seen


def _active(state: rules.State) -> int:
    return max(2, state.n_players - len(state.forfeited))


@dataclass
class _Clock:
    """The time budget, and how many search nodes a second this machine manages (measured as it goes)."""

    deadline: Deadline
    nodes: int = 0
    spent: float = 0.0

    def rate(self) -> float:
        return self.nodes / self.spent if self.spent > 0.05 and self.nodes > 1000 else START_RATE

    def budget(self, share: float) -> int:
        """The nodes ``share`` seconds buy (at least a few, to prove the cheap positions)."""
        return max(200, int(self.rate() * share))

    def count(self, nodes: int, t0: float) -> None:
        self.nodes += nodes
        self.spent += time.monotonic() - t0


class _Judge:
    def __init__(self, record: GameRecord, clock: _Clock) -> None:
        self.record = record
        self.clock = clock
        self.solvers: dict[int, _Solver] = {}  # n -> one two-player memo for the whole game (n > 9)
        self.cut = False  # whether the time budget left some move judged less well than it could be

    def judge(
        self, index: int, seat: int, action: JSONObject, state: rules.State, share: float
    ) -> MoveReview:
        unknown = MoveReview(index=index, seat=seat, action=action, verdict="unknown")
        if forfeit_of(action) is not None or state.finished:
            return unknown
        if self.clock.deadline.expired():
            self.cut = True
            return unknown
        move = rules.parse_action(action)
        assert isinstance(move, rules.Flip)
        position = move.position
        if _active(state) == 2 and state.n <= TABLE_N:
            return self.exact(index, seat, action, state, position)
        if _active(state) == 2:
            return self.two(index, seat, action, state, position, share)
        return self.multi(index, seat, action, state, position, share)

    # ---- two players, n <= 9: exact ------------------------------------------------------------------

    def exact(self, index: int, seat: int, action: JSONObject, state: rules.State, played: int) -> MoveReview:
        solved = solve_position(state.n, state.rows)
        assert solved is not None  # up to n = 9 it always answers
        won, wins = solved
        return _proved(index, seat, action, won, played in wins, wins)

    # ---- two players, n > 9: proved where the search gets there, else estimated -----------------------

    def two(
        self, index: int, seat: int, action: JSONObject, state: rules.State, played: int, share: float
    ) -> MoveReview:
        g = _graph(state.n)
        seen = _seen(g, state.rows)
        row = _to_int(state.row)
        solver = self.solvers.get(state.n)
        if solver is None:
            solver = self.solvers[state.n] = _Solver(g, 0, g.sym)
        kids = solver.ordered(row, seen)
        kids.sort(key=lambda k: k[0] != played)  # the played flip first: it matters most
        end = time.monotonic() + share * PROVING
        lost_for_them: dict[int, bool] = {}  # flip -> the opponent then loses (proved)
        for i, (p, r, b) in enumerate(kids):
            left = end - time.monotonic()
            if left <= 0 or self.clock.deadline.expired():
                break
            # Half the time for the played flip, the rest shared by the others.
            solver.budget = self.clock.budget(left / 2 if i == 0 else left / (len(kids) - i))
            t0 = time.monotonic()
            try:
                lost_for_them[p] = not solver.solve(r, seen | b)
                self.clock.count(solver.budget - solver.left, t0)
            except _OutOfBudget:
                self.clock.count(solver.budget, t0)
            if len(solver.memo) > 1_000_000:  # a bound on memory in a long budget
                solver.memo.clear()
        wins = sorted(p for p, lost in lost_for_them.items() if lost)
        after = lost_for_them.get(played)
        if after is not None and (wins or len(lost_for_them) == len(kids)):
            return _proved(index, seat, action, bool(wins), after, wins)
        # Not proved: the hard player's estimate, with what was proved kept.
        self.cut = True
        chances = self.chances(g, row, seen, 2, index, end + share * (1 - PROVING) - time.monotonic())
        if chances is None:
            return MoveReview(index=index, seat=seat, action=action, verdict="unknown")
        for p, lost in lost_for_them.items():
            chances[p] = (1.0 if lost else 0.0, 0)
        before = 1.0 if wins else max(c for c, _ in chances.values())
        return _estimated(index, seat, action, played, before, chances, proved_before=bool(wins))

    # ---- three or more players: the hard player's estimate --------------------------------------------

    def multi(
        self, index: int, seat: int, action: JSONObject, state: rules.State, played: int, share: float
    ) -> MoveReview:
        g = _graph(state.n)
        seen = _seen(g, state.rows)
        chances = self.chances(g, _to_int(state.row), seen, _active(state), index, share)
        if chances is None:
            return MoveReview(index=index, seat=seat, action=action, verdict="unknown")
        before = max(c for c, _ in chances.values())
        after, playouts = chances[played]
        full = playouts == 0 and all(n == 0 for _, n in chances.values())
        if full and before == 1.0 and after == 0.0:
            # Proved whatever the others do: a certain win made a certain loss.
            better = tuple(_act(p) for p, (c, _) in sorted(chances.items()) if c == 1.0)
            return MoveReview(index, seat, action, "blunder", True, 1.0, -1.0, better, "exact")
        if full and after == 1.0:
            return MoveReview(index, seat, action, "best", True, 1.0, 1.0, (), "exact")
        return _estimated(index, seat, action, played, before, chances, proved_before=False)

    def chances(
        self, g: _Graph, row: int, seen: int, players: int, index: int, share: float
    ) -> dict[int, tuple[float, int]] | None:
        """Each flip's chance that the mover makes the last move (opponents uniform), and how many
        random playouts estimated it (0: the full expectimax computed it); None when out of time."""
        end = time.monotonic() + share
        if share <= 0 or self.clock.deadline.expired():
            self.cut = True
            return None
        kids = g.moves(row, seen)
        affordable = self.clock.budget(share / 2)
        self.cut |= affordable < EXPECTI_BUDGET
        ex = _Expecti(g, players, min(EXPECTI_BUDGET, affordable))
        t0 = time.monotonic()
        budget = ex.left
        try:
            out = {p: (ex.value(r, seen | b, 1), 0) for p, r, b in kids}
            self.clock.count(budget - ex.left, t0)
            return out
        except _OutOfBudget:
            self.clock.count(budget, t0)
        rng = random.Random(self.record.seed * 1_000_003 + index)
        until = min(end, self.clock.deadline.end)
        out = {}
        for i, (p, r, b) in enumerate(kids):
            now = time.monotonic()
            chance = _playouts(g, r, seen | b, players, rng, now + (until - now) / (len(kids) - i))
            if chance is None:
                self.cut = True
                return None
            out[p] = chance
        return out


def _playouts(
    g: _Graph, row: int, seen: int, players: int, rng: random.Random, until: float
) -> tuple[float, int] | None:
    """The share of random playouts from (row, seen), the next seat to move, that the mover (seat 0)
    ends: as many as time allows up to `PLAYOUTS` (None when not even `MIN_PLAYOUTS` fit)."""
    won = done = 0
    while done < PLAYOUTS and time.monotonic() < until:
        r, s, j = row, seen, 1
        while True:
            kids = g.moves(r, s)
            if not kids:
                won += j == 1 % players
                break
            _, r, b = kids[rng.randrange(len(kids))]
            s |= b
            j = (j + 1) % players
        done += 1
    return (won / done, done) if done >= MIN_PLAYOUTS else None


def _proved(
    index: int, seat: int, action: JSONObject, won: bool, won_after: bool, wins: list[int]
) -> MoveReview:
    """A two-player move whose position before and after are both proved."""
    before = 1.0 if won else -1.0
    after = 1.0 if won_after else -1.0
    if won and not won_after:
        return MoveReview(
            index, seat, action, "blunder", True, before, after, tuple(map(_act, wins)), "exact"
        )
    return MoveReview(index, seat, action, "best", True, before, after, (), "exact")


def _estimated(
    index: int,
    seat: int,
    action: JSONObject,
    played: int,
    before: float,
    chances: dict[int, tuple[float, int]],
    proved_before: bool,
) -> MoveReview:
    """A move judged by estimated chances: never a blunder (nothing is proved lost)."""
    after, playouts = chances[played]
    top = max(c for c, _ in chances.values())
    drop = before - after
    if playouts:
        # Playouts are noisy: only the drop beyond two standard errors of the difference counts.
        best_n = max((n for c, n in chances.values() if c >= top - SAME), default=0)
        spread = after * (1 - after) / playouts + (top * (1 - top) / best_n if best_n else 0.0)
        drop -= 2 * spread**0.5
    if before - after <= SAME:
        verdict = "best"
    elif drop <= GOOD:
        verdict = "good"
    elif drop <= INACCURACY:
        verdict = "inaccuracy"
    else:
        verdict = "mistake"
    better = (
        ()
        if verdict == "best"
        else tuple(_act(p) for p, (c, _) in sorted(chances.items()) if c >= top - SAME and p != played)
    )
    value_before = 1.0 if proved_before else 2 * before - 1
    return MoveReview(index, seat, action, verdict, False, value_before, 2 * after - 1, better, "estimate")


def analyse(record: GameRecord, seconds: float) -> Review:
    """Every logged move of ``record`` judged within ``seconds`` (see the module docstring)."""
    clock = _Clock(Deadline(seconds * 0.95))  # a little room for what follows the last search
    judge = _Judge(record, clock)
    moves = last_first(rules, record, clock.deadline, judge.judge)
    return Review(kind=rules.NAME, scale="win", moves=moves, complete=not judge.cut)
