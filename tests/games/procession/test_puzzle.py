"""The daily puzzle's positions (cogs/procession/puzzle.py), checked against a brute-force solver
written here from the rules text alone (no code of the bot's solver): a position is won when some
flip leads to a position that is lost for the other player; a player without a legal flip has lost.

Every puzzle must have exactly one winning flip by this solver, and it must be the stored answer.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

import cogs.procession.puzzle as puzzle
from cogs.procession.player import choose
from cogs.procession.rules import apply, new_game, view_for


def runs(row: str) -> tuple[int, ...]:
    lengths: list[int] = []
    for i, ch in enumerate(row):
        if i and row[i - 1] == ch:
            lengths[-1] += 1
        else:
            lengths.append(1)
    return tuple(sorted(lengths))


def flipped(row: str, i: int) -> str:
    return row[:i] + ("0" if row[i] == "1" else "1") + row[i + 1 :]


@cache
def wins(row: str, seen: frozenset[tuple[int, ...]]) -> bool:
    """Plain minimax over every flip, no transposition beyond this cache, no symmetry."""
    for i in range(len(row)):
        nxt = flipped(row, i)
        if runs(nxt) not in seen and not wins(nxt, seen | {runs(nxt)}):
            return True
    return False


def winning_flips(rows: tuple[str, ...]) -> list[int]:
    seen = frozenset(runs(r) for r in rows)
    row = rows[-1]
    return [
        i + 1
        for i in range(len(row))
        if runs(flipped(row, i)) not in seen and not wins(flipped(row, i), seen | {runs(flipped(row, i))})
    ]


def partitions_of(n: int, most: int | None = None) -> list[tuple[int, ...]]:
    """Every multiset of run lengths of n digits, listed."""
    if n == 0:
        return [()]
    top = n if most is None else min(n, most)
    return [(first, *rest) for first in range(1, top + 1) for rest in partitions_of(n - first, first)]


def legal(rows: tuple[str, ...]) -> list[int]:
    seen = {runs(r) for r in rows}
    return [i + 1 for i in range(len(rows[-1])) if runs(flipped(rows[-1], i)) not in seen]


def played(n: int, players: int, seed: int) -> tuple[str, ...]:
    """A finished game of ``players`` random-ish players (the rules' own engine)."""
    rng = random.Random(seed)
    state = new_game(players, {"n": n}, seed)
    while not state.finished:
        state = apply(state, state.turn, choose(view_for(state, None), "easy", rng))
    return state.rows


@pytest.mark.parametrize(("n", "players", "seed"), [(5, 2, 1), (6, 2, 2), (6, 3, 3), (7, 2, 4), (7, 4, 5)])
def test_every_puzzle_of_a_game_has_exactly_one_winning_flip(n: int, players: int, seed: int) -> None:
    rows = played(n, players, seed)
    found = puzzle.puzzles_in(n, rows)
    expected = [
        rows[:k]
        for k in range(1, len(rows) + 1)
        if len(winning_flips(rows[:k])) == 1
        and len(legal(rows[:k])) >= 2
        and len(partitions_of(n)) - len({runs(r) for r in rows[:k]}) <= puzzle.MAX_UNSEEN
    ]
    assert [p.rows for p in found] == expected  # every such position, and only those
    for p in found:
        assert winning_flips(p.rows) == [p.answer]
        assert list(p.legal) == legal(p.rows)


def test_a_games_puzzle_prefers_an_interesting_position() -> None:
    for seed in range(12):
        rows = played(7, 2, 100 + seed)
        chosen = puzzle.from_game(7, rows)
        if chosen is None:
            continue
        assert winning_flips(chosen.rows) == [chosen.answer]
        candidates = puzzle.puzzles_in(7, rows)
        assert puzzle.interest(chosen) == max(puzzle.interest(p) for p in candidates)


def test_beyond_exact_search_no_puzzle_is_made() -> None:
    assert puzzle.from_game(10, ("0" * 10, "1" + "0" * 9)) is None


def test_the_self_played_fallback_is_deterministic_and_has_one_winning_flip() -> None:
    for day in range(20000, 20012):
        first = puzzle.fallback(day)
        assert first == puzzle.fallback(day)  # the same day, the same puzzle
        assert puzzle.self_play(day) == puzzle.self_play(day)
        assert winning_flips(first.rows) == [first.answer]  # proved by the independent solver
        assert puzzle.is_interesting(first)
        assert len(legal(first.rows)) >= puzzle.MIN_CHOICES
        after = (*first.rows, flipped(first.rows[-1], first.answer - 1))
        assert legal(after)  # the winning flip does not simply end the game


def test_the_day_picks_among_real_games_and_falls_back_to_self_play() -> None:
    games = [(10 + s, 7, played(7, 2, 200 + s)) for s in range(6)]
    chosen, source = puzzle.of_the_day(20400, games)
    assert source is not None and source in {g[0] for g in games}
    rows = next(r for gid, _, r in games if gid == source)
    assert chosen.rows == rows[: len(chosen.rows)]  # a position of that game
    assert winning_flips(chosen.rows) == [chosen.answer]
    assert puzzle.of_the_day(20400, games) == (chosen, source)  # deterministic
    # No real game: the computer's own game of that day.
    alone, none = puzzle.of_the_day(20400, [])
    assert none is None and alone == puzzle.fallback(20400)
    # Real games without an interesting position (beyond exact search): the fallback too.
    big = [(1, 10, ("0" * 10, "1" + "0" * 9))]
    assert puzzle.of_the_day(20400, big) == (puzzle.fallback(20400), None)
