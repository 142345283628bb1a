"""The daily puzzle's positions (``/game puzzle``): pure, like the rules.

A puzzle is a Procession position (the rows written so far; the multisets seen follow from them)
where exactly one flip wins for the player to move, two players and normal play (whoever cannot move
has lost), as `solve_position` proves it (exact up to n = 9). Any finished game gives positions,
whatever its player count: a position is just its rows.

Among a game's positions, an interesting one is preferred: several legal flips (at least
`MIN_CHOICES`), and a winning flip that does not simply end the game (after it the other player still
has a move). When no real game gives one, `self_play` plays a game of the computer against itself
from the day's seed, deterministically, and its positions are used instead.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import cogs.procession.rules as procession
from cogs.procession.player import choose, solve_position

MAX_N = 9  # solve_position is exact up to here
MIN_CHOICES = 3  # the legal flips an interesting puzzle offers at least
# A puzzle is a position a person can think through (and an independent solver check by brute force):
# at most this many multisets of run lengths are left unseen, so the game has at most that many moves.
MAX_UNSEEN = 10
SELF_PLAY_NS = (7, 8, 9)  # the row lengths of the computer's own games
SELF_PLAY_TRIES = 40  # self-played games tried before giving up (one nearly always gives a puzzle)


@dataclass(frozen=True)
class Puzzle:
    n: int
    rows: tuple[str, ...]  # every row written so far, the start row first
    answer: int  # the one winning flip (1-based position)

    @property
    def legal(self) -> tuple[int, ...]:
        return tuple(legal_flips(self.n, self.rows))


def legal_flips(n: int, rows: Sequence[str]) -> list[int]:
    """The 1-based positions whose flip gives a multiset not seen yet."""
    seen = {procession.multiset(r) for r in rows}
    row = rows[-1]
    return [p for p in range(1, n + 1) if procession.multiset(procession.flip(row, p)) not in seen]


@cache
def partitions(n: int, most: int | None = None) -> int:
    """How many multisets of run lengths a row of n digits could have (the partitions of n)."""
    if n == 0:
        return 1
    top = n if most is None else min(n, most)
    return sum(partitions(n - first, first) for first in range(1, top + 1))


def unseen(n: int, rows: Sequence[str]) -> int:
    """How many multisets of run lengths have not occurred yet: no game goes on longer than this."""
    return partitions(n) - len({procession.multiset(r) for r in rows})


def only_winner(n: int, rows: Sequence[str]) -> int | None:
    """The flip that wins the position, when exactly one does (proved); else None."""
    if n > MAX_N:
        return None
    solved = solve_position(n, rows)
    if solved is None:
        return None
    won, wins = solved
    return wins[0] if won and len(wins) == 1 else None


def interest(puzzle: Puzzle) -> tuple[bool, bool, int]:
    """How good a puzzle is (greater is better): several choices, a winning flip that does not end
    the game, and more choices."""
    choices = len(puzzle.legal)
    after = (*puzzle.rows, procession.flip(puzzle.rows[-1], puzzle.answer))
    return choices >= MIN_CHOICES, bool(legal_flips(puzzle.n, after)), choices


def puzzles_in(n: int, rows: Sequence[str]) -> list[Puzzle]:
    """Every position of a game (after ``rows[:k]``, k >= 1) with exactly one winning flip, at least
    two legal ones and at most `MAX_UNSEEN` multisets unseen, in the game's order."""
    found = []
    for k in range(1, len(rows) + 1):
        prefix = tuple(rows[:k])
        if unseen(n, prefix) > MAX_UNSEEN or len(legal_flips(n, prefix)) < 2:
            continue
        answer = only_winner(n, prefix)
        if answer is not None:
            found.append(Puzzle(n=n, rows=prefix, answer=answer))
    return found


def best(puzzles: Iterable[Puzzle]) -> Puzzle | None:
    """The most interesting puzzle (the earliest of equals), or None."""
    chosen: Puzzle | None = None
    for puzzle in puzzles:
        if chosen is None or interest(puzzle) > interest(chosen):
            chosen = puzzle
    return chosen


def from_game(n: int, rows: Sequence[str]) -> Puzzle | None:
    """The puzzle a finished game gives: its most interesting position, or None (none qualifies, or
    n is beyond exact search)."""
    if n > MAX_N or not rows:
        return None
    return best(puzzles_in(n, rows))


def self_play(seed: int) -> tuple[int, tuple[str, ...]]:
    """A game of the computer (level normal, two seats) against itself from ``seed``: its n and rows.
    The same seed gives the same game."""
    rng = random.Random(seed)
    n = SELF_PLAY_NS[rng.randrange(len(SELF_PLAY_NS))]
    state = procession.new_game(2, {"n": n}, seed)
    while not state.finished:
        action = choose(procession.view_for(state, None), "normal", rng)
        state = procession.apply(state, state.turn, action)
    return n, state.rows


def fallback(seed: int) -> Puzzle:
    """The day's puzzle when no real game gives one: from the computer's own games, seeded."""
    found = []
    for attempt in range(SELF_PLAY_TRIES):
        n, rows = self_play(seed * 1000 + attempt)
        puzzle = from_game(n, rows)
        if puzzle is not None and is_interesting(puzzle):
            return puzzle
        found.extend([] if puzzle is None else [puzzle])
    chosen = best(found)
    if chosen is None:  # (never seen: nearly every game gives one)
        raise RuntimeError("No self-played game gave a puzzle.")
    return chosen


def is_interesting(puzzle: Puzzle) -> bool:
    """Several choices and a winning flip that does not end the game at once."""
    many, goes_on, _ = interest(puzzle)
    return many and goes_on


REAL_TRIES = 20  # real games looked at for a day's puzzle before the computer's own


def of_the_day(day: int, games: Sequence[tuple[int, int, Sequence[str]]]) -> tuple[Puzzle, int | None]:
    """The puzzle of ``day`` and the game it comes from (None: the computer's own game). ``games``:
    finished games (id, n, rows) to choose from, in a stable order; the day decides where the look
    starts, and the first game with an interesting puzzle gives it. None of them: `fallback`."""
    if games:
        start = day % len(games)
        for i in range(min(REAL_TRIES, len(games))):
            game_id, n, rows = games[(start + i) % len(games)]
            puzzle = from_game(n, rows)
            if puzzle is not None and is_interesting(puzzle):
                return puzzle, game_id
    return fallback(day), None


# ---- what the daily puzzle's desk (bot/table/puzzles.py) asks of the game ------------------------------

KIND = procession.NAME  # the games whose finished positions may become puzzles


def game_rows(state: Mapping[str, Any]) -> tuple[int, tuple[str, ...]] | None:
    """A finished game's n and rows from its stored state, when a puzzle may come from it (n within
    exact search); None otherwise, or for a state that does not read."""
    try:
        read = procession.State.from_dict(state)
    except ValueError:
        return None
    return (read.n, read.rows) if read.n <= MAX_N else None


def board_lines(n: int, rows: Sequence[str]) -> list[str]:
    """The position as monospaced lines: the positions numbered above, then each row with its run
    lengths."""
    width = len(str(len(rows)))
    head = " " * (width + 2) + "".join(str(p % 10) for p in range(1, n + 1))
    return [head] + [
        f"{i:>{width}}. {row}  {procession.format_multiset(procession.multiset(row))}"
        for i, row in enumerate(rows, 1)
    ]
