"""Computer player for Procession: exact for two players up to n = 9, safe heuristics beyond.

Two players (normal play: whoever cannot move has lost) is a finite game without chance, so a position
is won or lost. `hard` proves it with a depth-first search (moves that leave the opponent the fewest
replies first, a transposition table keyed by the row up to reversal and complement, both of which keep
every run length, plus the set of multisets seen, and an enhanced transposition cut-off), budgeted in
nodes. For n = 9 every position with at most six moves made comes from a shipped table
(procession9.bin: 4 bits a position, built by `build_table` and loaded on first use); below it, and for
every n <= 8, the search proves each position within `EXACT_BUDGET`: over every position of n = 9 with
7, 8 or 9 moves made (checked exhaustively, offline) it needs at most 81,068 nodes, and deeper ones need
fewer, so two-player play is perfect up to n = 9 in a bounded time. Above n = 9 the same search proves
what it can in `SOLVE_BUDGET` and otherwise plays a safe move (one that leaves no immediate win to the
opponent).

With three or more players left, `hard` maximises its chance of making the last move against
opponents who pick uniformly among their legal moves (expectimax, budgeted; flat Monte Carlo beyond).

The players still in are the view's player count less those who forfeited (`_active_players`).
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from cogs.procession.rules import View, multiset

TABLE_N = 9  # the n whose opening layers are shipped in a table
TABLE_PLIES = 6  # the table holds every reachable position with at most this many moves made
TABLE_FILE = Path(__file__).with_name("procession9.bin")
TABLE_MAGIC = b"QPT1"

EXACT_BUDGET = 150_000  # nodes per decision for `hard` up to n = 9: the worst position needs 81,068
SOLVE_BUDGET = 30_000  # nodes per decision for `hard` above n = 9
NORMAL_BUDGET = 2_000
EXPECTI_BUDGET = 30_000
ROLLOUTS = 300


class _OutOfBudget(Exception):
    pass


# ---- the move graph of one n: rows as integers (bit i = position i + 1) ------------------------------


@dataclass(frozen=True)
class _Graph:
    n: int
    part_index: dict[tuple[int, ...], int]  # partition -> its bit in a `seen` mask
    bit: tuple[int, ...]  # row -> 1 << index of its multiset
    succ: tuple[tuple[tuple[int, int, int], ...], ...]  # row -> (position, next row, its bit) per flip
    canon: tuple[
        int, ...
    ]  # row -> least of it and its complement (`normal`'s search keys, kept as they were)
    sym: tuple[int, ...]  # row -> least of its reversal/complement images
    mirrored: tuple[bool, ...]  # row -> whether `sym` needs the reversal

    def key(self, row: int, seen: int) -> int:
        return (self.canon[row] << 80) | seen

    def sym_key(self, row: int, seen: int) -> int:
        return (self.sym[row] << 80) | seen

    def moves(self, row: int, seen: int) -> list[tuple[int, int, int]]:
        return [(p, r, b) for p, r, b in self.succ[row] if not seen & b]

    def mobility(self, row: int, seen: int) -> int:
        return sum(1 for _, _, b in self.succ[row] if not seen & b)


def _partitions(n: int, most: int | None = None) -> Iterator[tuple[int, ...]]:
    most = n if most is None else most
    if n == 0:
        yield ()
        return
    for first in range(min(n, most), 0, -1):
        for rest in _partitions(n - first, first):
            yield (first, *rest)


def _to_str(row: int, n: int) -> str:
    return "".join("1" if row >> i & 1 else "0" for i in range(n))


def _to_int(row: str) -> int:
    return sum(1 << i for i, ch in enumerate(row) if ch == "1")


@cache
def _graph(n: int) -> _Graph:
    part_index = {p: i for i, p in enumerate(_partitions(n))}
    full = (1 << n) - 1
    size = 1 << n
    bit = tuple(1 << part_index[multiset(_to_str(r, n))] for r in range(size))
    rev = tuple(_to_int(_to_str(r, n)[::-1]) for r in range(size))
    sym, mirrored = [], []
    for r in range(size):
        best = min((r, False), (r ^ full, False), (rev[r], True), (rev[r] ^ full, True))
        sym.append(best[0])
        mirrored.append(best[1])
    canon = tuple(min(r, r ^ full) for r in range(size))
    succ = tuple(tuple((p + 1, r ^ (1 << p), bit[r ^ (1 << p)]) for p in range(n)) for r in range(size))
    return _Graph(n, part_index, bit, succ, canon, tuple(sym), tuple(mirrored))


# ---- two players: won or lost -------------------------------------------------------------------------


class _Solver:
    """Won/lost of two-player positions, at most ``budget`` new nodes per `solve`.

    ``keys`` maps a row to its memo key: `_Graph.sym` for `hard`, `_Graph.canon` (the default) for
    `normal`, whose short budget then proves exactly what it always did.
    """

    def __init__(self, g: _Graph, budget: int, keys: Sequence[int] | None = None) -> None:
        self.g = g
        self.budget = budget
        self.keys = g.canon if keys is None else keys
        self.memo: dict[int, bool] = {}

    def key(self, row: int, seen: int) -> int:
        return (self.keys[row] << 80) | seen

    def solve(self, row: int, seen: int) -> bool:
        """Whether the player to move wins; raises `_OutOfBudget`."""
        self.left = self.budget
        return self._win(row, seen)

    def winning_move(self, row: int, seen: int) -> int | None:
        """After `solve`: the first flip (by position) the memo proves lost for the opponent."""
        memo = self.memo
        return next(
            (p for p, r, b in self.g.moves(row, seen) if memo.get(self.key(r, seen | b)) is False), None
        )

    def ordered(self, row: int, seen: int) -> list[tuple[int, int, int]]:
        g = self.g
        kids = g.moves(row, seen)
        kids.sort(key=lambda k: (g.mobility(k[1], seen | k[2]), k[0]))
        return kids

    def _win(self, row: int, seen: int) -> bool:
        g, memo, keys = self.g, self.memo, self.keys
        key = (keys[row] << 80) | seen
        known = memo.get(key)
        if known is not None:
            return known
        self.left -= 1
        if self.left < 0:
            raise _OutOfBudget
        kids = g.moves(row, seen)
        for _, r, b in kids:  # enhanced transposition cut-off
            if memo.get((keys[r] << 80) | seen | b) is False:
                memo[key] = True
                return True
        kids.sort(key=lambda k: g.mobility(k[1], seen | k[2]))
        won = any(not self._win(r, seen | b) for _, r, b in kids)
        memo[key] = won
        return won


def _layers(g: _Graph, plies: int) -> list[dict[int, tuple[int, int]]]:
    """Every reachable position with 0..``plies`` moves made, one dict per ply: `sym_key` -> (row, seen),
    the row in its `sym` form."""
    layers = [{g.sym_key(0, g.bit[0]): (g.sym[0], g.bit[0])}]
    for _ in range(plies):
        nxt: dict[int, tuple[int, int]] = {}
        for row, seen in layers[-1].values():
            for _, r, b in g.moves(row, seen):
                nxt.setdefault(g.sym_key(r, seen | b), (g.sym[r], seen | b))
        layers.append(nxt)
    return layers


def _table_keys(g: _Graph, plies: int) -> list[int]:
    """The table's positions in its order (their keys sorted), and so the order of its entries."""
    return sorted(k for layer in _layers(g, plies) for k in layer)


def _keys_crc(keys: Iterable[int]) -> int:
    crc = 0
    for k in keys:
        crc = zlib.crc32(k.to_bytes(16, "big"), crc)
    return crc


@cache
def _table() -> dict[int, int]:
    """The shipped n = 9 table: `sym_key` -> the lowest winning flip of the `sym` row (0: lost).

    The file holds no keys: its header (magic, n, plies, entry count, CRC-32 of the keys) pins the
    positions, which are enumerated here again in the same order; then 4 bits an entry, high nibble
    first.
    """
    data = TABLE_FILE.read_bytes()
    n, plies = data[4], data[5]
    count, crc = int.from_bytes(data[6:10], "big"), int.from_bytes(data[10:14], "big")
    keys = _table_keys(_graph(n), plies)
    if data[:4] != TABLE_MAGIC or len(keys) != count or _keys_crc(keys) != crc:
        raise ValueError(f"{TABLE_FILE.name} does not match the positions of n = {n}, {plies} plies")
    body = data[14:]
    return {k: body[i >> 1] >> (0 if i & 1 else 4) & 15 for i, k in enumerate(keys)}


def _table_move(g: _Graph, row: int, seen: int) -> int | None:
    """From the table: the winning flip for the actual row, 0 if lost, None if not in the table."""
    if g.n != TABLE_N or seen.bit_count() - 1 > TABLE_PLIES:
        return None
    move = _table()[g.sym_key(row, seen)]
    if move == 0:
        return 0
    return g.n + 1 - move if g.mirrored[row] else move


def build_table(
    n: int = TABLE_N, plies: int = TABLE_PLIES, mapper: Callable[..., Iterable[int]] = map
) -> dict[int, int]:
    """Every reachable position of ``n`` with at most ``plies`` moves made: `sym_key` -> the lowest
    winning flip of its `sym` row (0: lost).

    The last layer is solved (``mapper`` may be a process pool's ``map``); the earlier ones follow from
    it. Slow: many minutes for n = 9.
    """
    g = _graph(n)
    layers = _layers(g, plies)
    last = list(layers[plies].items())
    table = dict(zip((k for k, _ in last), mapper(_solved_move, [(n, *pos) for _, pos in last]), strict=True))
    for depth in range(plies - 1, -1, -1):
        for key, (row, seen) in layers[depth].items():
            table[key] = next((p for p, r, b in g.moves(row, seen) if table[g.sym_key(r, seen | b)] == 0), 0)
    return table


@cache
def _build_solver(n: int) -> _Solver:
    return _Solver(_graph(n), 10**12, _graph(n).sym)


def _solved_move(job: tuple[int, int, int]) -> int:
    """The lowest winning flip of (row, seen), 0 if lost; one memo per process, emptied now and then."""
    n, row, seen = job
    solver = _build_solver(n)
    if len(solver.memo) > 3_000_000:
        solver.memo.clear()
    g = solver.g
    return next((p for p, r, b in g.moves(row, seen) if not solver.solve(r, seen | b)), 0)


def _winning_move(g: _Graph, row: int, seen: int, budget: int) -> int | None:
    """A move to a lost position, None if there is none; raises `_OutOfBudget`."""
    solver = _Solver(g, budget)
    if not solver.solve(row, seen):
        return None
    return solver.winning_move(row, seen)


def write_table(path: Path = TABLE_FILE, n: int = TABLE_N, plies: int = TABLE_PLIES, jobs: int = 1) -> None:
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            table = build_table(n, plies, lambda f, xs: pool.map(f, xs, chunksize=256))
    else:
        table = build_table(n, plies)
    path.write_bytes(pack_table(table, n, plies))


def pack_table(table: dict[int, int], n: int = TABLE_N, plies: int = TABLE_PLIES) -> bytes:
    """The file `_table` reads: the header, then 4 bits an entry in key order."""
    keys = sorted(table)
    nibbles = [table[k] for k in keys] + [0]
    body = bytes(nibbles[i] << 4 | nibbles[i + 1] for i in range(0, len(keys), 2))
    header = (
        TABLE_MAGIC + bytes([n, plies]) + len(keys).to_bytes(4, "big") + _keys_crc(keys).to_bytes(4, "big")
    )
    return header + body


# ---- the exact verdict of a position, for analysis and puzzles ---------------------------------------


def solve_position(n: int, rows: Sequence[str], budget: int = EXACT_BUDGET) -> tuple[bool, list[int]] | None:
    """Two players, normal play, the position after ``rows`` (every row written so far, the start row
    first): whether the player to move wins, and every winning flip (1-based positions, ascending; empty
    when lost). None when a search of some move ran out of ``budget`` nodes. Up to n = 9 this always
    answers (`EXACT_BUDGET`); above, it answers where the search proves it."""
    g = _graph(n)
    seen = 0
    for written in rows:
        seen |= g.bit[_to_int(written)]
    row = _to_int(rows[-1])
    solver = _Solver(g, budget, g.sym)
    wins: list[int] = []
    try:
        for p, r, b in g.moves(row, seen):
            known = _table_move(g, r, seen | b)
            lost = known == 0 if known is not None else not solver.solve(r, seen | b)
            if lost:
                wins.append(p)
    except _OutOfBudget:
        return None
    return bool(wins), wins


# ---- reading the view ---------------------------------------------------------------------------------


def _position(view: View) -> tuple[_Graph, int, int]:
    g = _graph(view.n)
    seen = 0
    for row in view.rows:
        seen |= g.bit[_to_int(row)]
    return g, _to_int(view.rows[-1]), seen


def _active_players(view: View) -> int:
    """How many players are still in: the table's count less those who forfeited (at least 2; with one
    left the game is over)."""
    return max(2, view.n_players - len(view.forfeited))


def _act(position: int) -> dict[str, Any]:
    return {"type": "flip", "position": position}


# ---- levels -------------------------------------------------------------------------------------------


def _immediate_wins(g: _Graph, row: int, seen: int) -> list[int]:
    """Moves after which nobody can move (the mover wins)."""
    return [p for p, r, b in g.moves(row, seen) if g.mobility(r, seen | b) == 0]


def _safe(g: _Graph, row: int, seen: int) -> list[int]:
    """Moves that leave the next player no immediate win."""
    out = []
    for p, r, b in g.moves(row, seen):
        s2 = seen | b
        if not any(g.mobility(r2, s2 | b2) == 0 for _, r2, b2 in g.moves(r, s2)):
            out.append(p)
    return out


def _easy(g: _Graph, row: int, seen: int, rng: random.Random) -> int:
    wins = _immediate_wins(g, row, seen)
    return rng.choice(wins) if wins else rng.choice([p for p, _, _ in g.moves(row, seen)])


def _normal(g: _Graph, row: int, seen: int, players: int, rng: random.Random) -> int:
    wins = _immediate_wins(g, row, seen)
    if wins:
        return rng.choice(wins)
    if players == 2:
        try:
            move = _winning_move(g, row, seen, NORMAL_BUDGET)
        except _OutOfBudget:
            move = None
        if move is not None:
            return move
    safe = _safe(g, row, seen)
    return rng.choice(safe or [p for p, _, _ in g.moves(row, seen)])


def _hard_two(g: _Graph, row: int, seen: int, rng: random.Random) -> int:
    move = _table_move(g, row, seen)
    if move:
        return move
    if move is None:  # not in the table: search
        solver = _Solver(g, EXACT_BUDGET if g.n <= TABLE_N else SOLVE_BUDGET, g.sym)
        try:
            if solver.solve(row, seen):
                won = solver.winning_move(row, seen)
                assert won is not None
                return won
            lost = True
        except _OutOfBudget:
            lost = False
        if not lost:
            return _hard_unproven(g, row, seen, rng)
    # A lost position: keep the game long and tricky, never hand over an immediate win if avoidable.
    safe = _safe(g, row, seen)
    kids = {p: (r, seen | b) for p, r, b in g.moves(row, seen)}
    pool = safe or list(kids)
    return max(pool, key=lambda p: (g.mobility(*kids[p]), rng.random()))


def _hard_unproven(g: _Graph, row: int, seen: int, rng: random.Random) -> int:
    """Too big to prove in one budget: try each move with a share of it, else a safe move."""
    solver = _Solver(g, 0, g.sym)
    kids = solver.ordered(row, seen)
    refuted: set[int] = set()
    for i, (p, r, b) in enumerate(kids):
        solver.budget = SOLVE_BUDGET // (2 * len(kids)) if i else SOLVE_BUDGET // 2
        try:
            if not solver.solve(r, seen | b):
                return p
            refuted.add(p)
        except _OutOfBudget:
            pass
    safe = [p for p in _safe(g, row, seen) if p not in refuted]
    if safe:
        # Fewest replies first: the search's own ordering, a decent proxy for a strong move.
        kid_of = {p: (r, seen | b) for p, r, b in kids}
        return min(safe, key=lambda p: (g.mobility(*kid_of[p]), rng.random()))
    return rng.choice([p for p, _, _ in kids if p not in refuted] or [p for p, _, _ in kids])


class _Expecti:
    """Probability that seat 0 makes the last move, seat 0 maximising and the others uniform."""

    def __init__(self, g: _Graph, players: int, budget: int) -> None:
        self.g, self.k, self.left = g, players, budget
        self.memo: dict[tuple[int, int], float] = {}

    def value(self, row: int, seen: int, j: int) -> float:
        """``j``: the seat (relative to us) to move at (row, seen)."""
        key = (self.g.key(row, seen), j)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.left -= 1
        if self.left < 0:
            raise _OutOfBudget
        kids = self.g.moves(row, seen)
        nxt = (j + 1) % self.k
        if not kids:
            v = 1.0 if j == 1 % self.k else 0.0
        elif j == 0:
            v = max(self.value(r, seen | b, nxt) for _, r, b in kids)
        else:
            v = sum(self.value(r, seen | b, nxt) for _, r, b in kids) / len(kids)
        self.memo[key] = v
        return v


def _hard_multi(g: _Graph, row: int, seen: int, players: int, rng: random.Random) -> int:
    wins = _immediate_wins(g, row, seen)
    if wins:
        return wins[0]
    kids = g.moves(row, seen)
    ex = _Expecti(g, players, EXPECTI_BUDGET)
    try:
        scores = {p: ex.value(r, seen | b, 1) for p, r, b in kids}
    except _OutOfBudget:
        scores = {p: _rollouts(g, r, seen | b, players, rng) for p, r, b in kids}
    best = max(scores.values())
    return min(p for p, v in scores.items() if v >= best - 1e-12)


def _rollouts(g: _Graph, row: int, seen: int, players: int, rng: random.Random) -> float:
    """Share of random playouts from (row, seen), the next seat to move, that seat 0 ends."""
    won = 0
    per = max(20, ROLLOUTS // g.n)
    for _ in range(per):
        r, s, j = row, seen, 1
        while True:
            kids = g.moves(r, s)
            if not kids:
                won += j == 1 % players
                break
            _, r, b = kids[rng.randrange(len(kids))]
            s |= b
            j = (j + 1) % players
    return won / per


def choose(view: View, level: str, rng: random.Random) -> dict[str, Any]:
    if not view.legal:
        raise ValueError("Procession: no legal move in this view.")
    g, row, seen = _position(view)
    players = _active_players(view)
    if level == "easy":
        return _act(_easy(g, row, seen, rng))
    if level == "normal":
        return _act(_normal(g, row, seen, players, rng))
    if level == "hard":
        if players == 2:
            return _act(_hard_two(g, row, seen, rng))
        return _act(_hard_multi(g, row, seen, players, rng))
    raise ValueError(f"Unknown level {level!r}.")


if __name__ == "__main__":
    import sys

    write_table(jobs=int(sys.argv[1]) if len(sys.argv) > 1 else 1)
