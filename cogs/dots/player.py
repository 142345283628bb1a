"""The computer player of Lines By The Dots: a pure function from the seat's view to one line.

Lines By The Dots has no secrets, so the view is the whole position. `choose` answers the line owed now
(the vertical one, then the horizontal one: the caller asks once per line).

- ``easy``: mostly the greedy line (the most points for this line, ends at random), sometimes any line.
- ``normal``: the same search three lines deep (about the rest of its turn and the next player's
  first line) on a small budget.
- ``hard``: alpha-beta on the score difference (the computer against the other seats taken as one
  side), iterative deepening with a transposition table, budgeted in nodes; where the search cannot
  see the end, a leaf is worth the points of the line owed there to whoever owes it.

Dots are indexed ``row * size + col`` inside, and sets of dots are bit masks (an int).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, NamedTuple

from bot.rules.base import next_seat
from cogs.dots.rules import VERTICAL, Dot, Line, View, dot_name

NODES = {"normal": 1_500, "hard": 5_000}  # search budgets (nodes visited), per decision
DEPTHS = {"normal": 3, "hard": 60}  # deepest iteration (lines ahead)
EASY_RANDOM = 0.35  # how often ``easy`` draws any legal line instead of the greedy one

_INF = 1 << 30


class _Geometry(NamedTuple):
    size: int
    full: int  # every dot
    cols: tuple[int, ...]  # the mask of each column
    rows: tuple[int, ...]  # the mask of each row


@lru_cache(maxsize=16)
def _geometry(size: int) -> _Geometry:
    cols = tuple(sum(1 << (r * size + c) for r in range(size)) for c in range(size))
    rows = tuple(sum(1 << (r * size + c) for c in range(size)) for r in range(size))
    return _Geometry(size, (1 << (size * size)) - 1, cols, rows)


class _Move(NamedTuple):
    start: int
    end: int
    seg: int  # the dots the line touches
    gain: int  # what it scores


def _axis(g: _Geometry, dot: int, vertical: bool) -> int:
    return g.cols[dot % g.size] if vertical else g.rows[dot // g.size]


def _lines_from(g: _Geometry, marked: int, start: int, vertical: bool, gain: int, out: list[_Move]) -> None:
    """Append every line from ``start`` in the direction (its ends: the virgin runs on both sides)."""
    n = g.size
    col, row = start % n, start // n
    step = n if vertical else 1
    # How far the axis runs on each side of the start.
    below, above = (row, n - 1 - row) if vertical else (col, n - 1 - col)
    for sign, room in ((-1, below), (1, above)):
        seg = 1 << start
        dot = start
        for _ in range(room):
            dot += sign * step
            bit = 1 << dot
            if marked & bit:
                break
            seg |= bit
            out.append(_Move(start, dot, seg, gain))


def _moves(g: _Geometry, marked: int, current: int, vertical: bool) -> list[_Move]:
    """The lines the rules allow now: from the current dot, else the fallback lines (from any
    non-virgin dot). ``current`` is -1 before the first line (any dot, any end: it scores 0)."""
    out: list[_Move] = []
    if current < 0:
        for dot in range(g.size * g.size):
            _lines_from(g, 0, dot, vertical, 0, out)
        return out
    _lines_from(g, marked, current, vertical, (marked & _axis(g, current, vertical)).bit_count(), out)
    if out:
        return out
    n = g.size
    for axis in g.cols if vertical else g.rows:
        hits = (marked & axis).bit_count()
        if 0 < hits < n:
            rest = marked & axis
            while rest:
                low = rest & -rest
                _lines_from(g, marked, low.bit_length() - 1, vertical, hits, out)
                rest ^= low
    return out


def _exists(g: _Geometry, marked: int, vertical: bool) -> bool:
    """Whether a line of the direction can be drawn anywhere (some axis holds both kinds of dot)."""
    n = g.size
    return any(0 < (marked & axis).bit_count() < n for axis in (g.cols if vertical else g.rows))


def _best_axis(g: _Geometry, marked: int, vertical: bool) -> int:
    """What the best fallback line would score: the fullest axis that still has a virgin dot."""
    n = g.size
    best = 0
    for axis in g.cols if vertical else g.rows:
        hits = (marked & axis).bit_count()
        if hits < n and hits > best:
            best = hits
    return best


class _Search:
    """Alpha-beta (negamax over two sides: the computer's seat, and everyone else) on the points still to
    be scored, with a node budget."""

    class OutOfNodes(Exception):
        pass

    def __init__(self, g: _Geometry, me: int, n_players: int, forfeited: frozenset[int], budget: int):
        self.g = g
        self.me = me
        self.n_players = n_players
        self.forfeited = forfeited
        self.budget = budget
        self.nodes = 0
        # (marked, current, vertical, seat) -> (depth, value, bound: 0 exact, 1 lower, -1 upper, best line)
        self.table: dict[tuple[int, int, bool, int], tuple[int, int, int, tuple[int, int]]] = {}

    def after(self, marked: int, end: int, vertical: bool, seat: int) -> tuple[bool, int, bool]:
        """Who owes which line after a line of ``seat`` that ended at ``end``: (vertical, seat, over)."""
        g = self.g
        if marked == g.full:
            return vertical, seat, True
        for _ in range(2):  # the next line; skipped when it exists nowhere (never twice in a row)
            if vertical:
                vertical = False
            else:
                vertical, seat = True, next_seat(self.n_players, seat, self.forfeited)
            if _exists(g, marked, vertical):
                break
        return vertical, seat, False

    def leaf(self, marked: int, current: int, vertical: bool) -> int:
        """The points of the line owed now, for whoever owes it."""
        g = self.g
        axis = _axis(g, current, vertical)
        hits = (marked & axis).bit_count()
        if hits < g.size:
            # A line from the current dot exists when a virgin dot is next to it on the axis.
            n = g.size
            col, row = current % n, current // n
            step = n if vertical else 1
            pos = row if vertical else col
            if (pos > 0 and not marked >> (current - step) & 1) or (
                pos < n - 1 and not marked >> (current + step) & 1
            ):
                return hits
        return _best_axis(g, marked, vertical)

    def order_key(self, move: _Move, marked: int, vertical: bool) -> int:
        """Moves worth trying first: the points now, then the next line's points: own (the horizontal line
        of the same turn) the more the better, the next player's the fewer the better."""
        after = marked | move.seg
        nxt = (after & _axis(self.g, move.end, not vertical)).bit_count()
        return move.gain * 16 + (nxt if vertical else -nxt)

    def value(
        self, marked: int, current: int, vertical: bool, seat: int, depth: int, alpha: int, beta: int
    ) -> int:
        """The points the side of ``seat`` scores from here on, minus the other side's."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise _Search.OutOfNodes
        if depth <= 0:
            return self.leaf(marked, current, vertical)
        key = (marked, current, vertical, seat)
        hit = self.table.get(key)
        first = (-1, -1)
        if hit is not None:
            h_depth, h_value, h_flag, first = hit
            if h_depth >= depth:
                if h_flag == 0:
                    return h_value
                if h_flag > 0 and h_value >= beta:
                    return h_value
                if h_flag < 0 and h_value <= alpha:
                    return h_value
        moves = _moves(self.g, marked, current, vertical)
        moves.sort(key=lambda m: self.order_key(m, marked, vertical), reverse=True)
        for i, move in enumerate(moves):
            if (move.start, move.end) == first:
                moves.insert(0, moves.pop(i))
                break
        alpha0 = alpha
        best, best_i = -_INF, 0
        mine = seat == self.me
        for i, move in enumerate(moves):
            v = move.gain + self.child(
                marked | move.seg, move.end, vertical, seat, mine, depth, alpha, beta, move
            )
            if v > best:
                best, best_i = v, i
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        flag = 0 if alpha0 < best < beta else (1 if best >= beta else -1)
        self.table[key] = (depth, best, flag, (moves[best_i].start, moves[best_i].end))
        return best

    def child(
        self,
        marked: int,
        end: int,
        vertical: bool,
        seat: int,
        mine: bool,
        depth: int,
        alpha: int,
        beta: int,
        move: _Move,
    ) -> int:
        """The rest of the game after ``move`` (already in ``marked``), from the mover's side."""
        nv, nseat, over = self.after(marked, end, vertical, seat)
        if over:
            return 0
        same = (nseat == self.me) == mine
        g = alpha - move.gain
        b = beta - move.gain
        if same:
            return self.value(marked, end, nv, nseat, depth - 1, g, b)
        return -self.value(marked, end, nv, nseat, depth - 1, -b, -g)


def _root_moves(view: View) -> list[tuple[Dot, Dot]]:
    return [(start, end) for start in view.starts for end in view.ends.get(start, ())]


def _action(view: View, start: Dot, end: Dot) -> dict[str, Any]:
    assert view.owed is not None
    return Line(dot_name(end), dot_name(start) if view.owed.needs_from else None).to_json()


def _greedy(view: View, rng: random.Random) -> tuple[Dot, Dot]:
    best = max(view.line_scores.get(s, 0) for s in view.starts)
    return rng.choice([(s, e) for s, e in _root_moves(view) if view.line_scores.get(s, 0) == best])


def _index(view: View, dot: Dot) -> int:
    return dot[1] * view.size + dot[0]


def _search(view: View, level: str, rng: random.Random) -> tuple[Dot, Dot]:
    g = _geometry(view.size)
    n = view.size
    marked = 0
    for r in range(n):
        for c in range(n):
            if (c, r) in view.marked:
                marked |= 1 << (r * n + c)
    assert view.owed is not None and view.turn is not None
    vertical = view.owed.direction == VERTICAL
    me = view.turn
    search = _Search(g, me, view.n_players, view.forfeited, NODES[level])
    roots = _root_moves(view)
    if len(roots) == 1:
        return roots[0]
    rng.shuffle(roots)  # equal lines: a choice of the seed
    moves = []
    for start, end in roots:
        s, e = _index(view, start), _index(view, end)
        seg = 0
        lo, hi = min(s, e), max(s, e)
        step = n if vertical else 1
        for dot in range(lo, hi + 1, step):
            seg |= 1 << dot
        moves.append(((start, end), _Move(s, e, seg, view.line_scores.get(start, 0))))
    moves.sort(key=lambda m: search.order_key(m[1], marked, vertical), reverse=True)
    best = moves[0][0]
    for depth in range(1, DEPTHS[level] + 1):
        scored: list[tuple[int, int]] = []  # (value, index) of the moves searched to the end
        alpha = -_INF
        try:
            for i, (_, move) in enumerate(moves):
                v = move.gain + search.child(
                    marked | move.seg, move.end, vertical, me, True, depth, alpha, _INF, move
                )
                scored.append((v, i))
                alpha = max(alpha, v)
        except _Search.OutOfNodes:
            if scored:  # the previous best was searched first: a better line found since beats it
                best = moves[max(scored, key=lambda x: (x[0], -x[1]))[1]][0]
            break
        top = max(scored, key=lambda x: (x[0], -x[1]))[1]
        moves.insert(0, moves.pop(top))
        best = moves[0][0]
        if search.nodes * 2 > search.budget and depth > 2:
            break  # the next iteration would not finish
    return best


def choose(view: View, level: str, rng: random.Random) -> dict[str, Any]:
    """The line this seat draws now, as the move log stores it."""
    if view.owed is None or view.turn is None or not view.starts:
        raise ValueError("Lines By The Dots waits for no line: the game is over.")
    if level == "easy":
        if rng.random() < EASY_RANDOM:
            start, end = rng.choice(_root_moves(view))
        else:
            start, end = _greedy(view, rng)
    elif level in NODES:
        start, end = _search(view, level, rng)
    else:
        raise ValueError(f"Unknown level {level!r}.")
    return _action(view, start, end)
