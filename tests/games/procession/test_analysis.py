"""The Procession analyser against an independent exact solver (written here, sharing nothing with
player.py): in whole two-player games up to n = 6 it marks exactly the moves that turn a won position
into a lost one as blunders, every "better" flip wins, and indexes run 1-based in log order; spot
checks of late n = 9 positions; forfeits; three or more players (estimates, never an unproved
blunder); and the time budget."""

from __future__ import annotations

import json
import random
import time
from functools import cache

import pytest

from bot.analysis import GameRecord, Review
from bot.registry import GAMES
from bot.rules import play
from cogs.procession import rules as T
from cogs.procession.analysis import analyse

FORFEIT: dict[str, object] = {"type": "forfeit"}


def runs(row: str) -> tuple[int, ...]:
    """The run-length multiset, written again here: lengths of the blocks of equal digits, sorted."""
    out: list[int] = []
    for i, ch in enumerate(row):
        if i and row[i - 1] == ch:
            out[-1] += 1
        else:
            out.append(1)
    return tuple(sorted(out))


def flips(row: str, seen: frozenset[tuple[int, ...]]) -> list[tuple[int, str]]:
    out = []
    for i in range(len(row)):
        new = row[:i] + ("1" if row[i] == "0" else "0") + row[i + 1 :]
        if runs(new) not in seen:
            out.append((i + 1, new))
    return out


@cache
def wins(row: str, seen: frozenset[tuple[int, ...]]) -> bool:
    """Whether the player to move wins (two players, the last mover wins): plain minimax."""
    return any(not wins(new, seen | {runs(new)}) for _, new in flips(row, seen))


def winning_flips(rows: tuple[str, ...]) -> set[int]:
    seen = frozenset(runs(r) for r in rows)
    return {p for p, new in flips(rows[-1], seen) if not wins(new, seen | {runs(new)})}


def random_game(n: int, seed: int, players: int = 2) -> list[tuple[int, dict[str, object]]]:
    rng = random.Random(seed)
    state = T.new_game(players, {"n": n}, 0)
    moves: list[tuple[int, dict[str, object]]] = []
    while not state.finished:
        action = rng.choice(T.legal_actions(state, state.turn))
        moves.append((state.turn, action))
        state = play(T, state, state.turn, action)
    return moves


def record(n: int, moves: list[tuple[int, dict[str, object]]], players: int = 2) -> GameRecord:
    return GameRecord("procession", players, {"n": n}, 0, tuple(moves))  # type: ignore[arg-type]


def check_exact(rec: GameRecord, review: Review, only_after: int = 0) -> int:
    """Every move (from ``only_after`` on) as the independent solver judges it; returns the blunders."""
    state = T.new_game(rec.n_players, rec.options, rec.seed)
    blunders = 0
    assert [m.index for m in review.moves] == list(range(1, len(rec.moves) + 1))
    for m, (seat, action) in zip(review.moves, rec.moves, strict=True):
        assert m.seat == seat and m.action == action
        if action.get("type") == "forfeit":
            assert m.verdict == "unknown"
        elif m.index > only_after:
            good = winning_flips(state.rows)
            position = int(action["position"])  # type: ignore[call-overload]
            assert m.exact and m.basis == "exact"
            assert m.value_before == (1.0 if good else -1.0)
            assert m.value_after == (1.0 if position in good else -1.0)
            blunder = bool(good) and position not in good
            assert (m.verdict == "blunder") == blunder, m
            if blunder:
                blunders += 1
                assert {b["position"] for b in m.better} == good
                assert all(b == {"type": "flip", "position": b["position"]} for b in m.better)
            else:
                assert m.verdict == "best" and m.better == ()
        state = play(T, state, seat, action)
    return blunders


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_blunders_are_exactly_the_proved_ones(n: int) -> None:
    blunders = 0
    for seed in range(8):
        moves = random_game(n, seed)
        rec = record(n, moves)
        review = analyse(rec, 30)
        assert review.complete and review.scale == "win" and review.kind == "procession"
        assert Review.from_dict(json.loads(json.dumps(review.to_dict()))) == review
        blunders += check_exact(rec, review)
    if n >= 5:
        assert blunders > 0  # random play blunders: the check is not empty


def test_rules_example_n5() -> None:
    """RULES.md's example (n = 5): 00000, 00010, 10010, 10011, 00011, 00001, after which every flip
    repeats a multiset, so the writer of 00001 (the first player) wins. Judged move by move as the
    independent solver does; the last flip wins at once."""
    positions = (4, 1, 5, 1, 4)
    moves = [(i % 2, {"type": "flip", "position": p}) for i, p in enumerate(positions)]
    rec = record(5, moves)
    state = T.new_game(2, {"n": 5}, 0)
    for seat, action in moves:
        state = play(T, state, seat, action)
    assert state.finished and state.rows[-1] == "00001"
    review = analyse(rec, 30)
    check_exact(rec, review)
    last = review.moves[-1]
    assert (last.index, last.verdict, last.value_after) == (5, "best", 1.0)


def test_a_known_blunder() -> None:
    """n = 5: the first random game that throws away a won position is marked at exactly the moves
    the independent solver proves, and the better flips listed are exactly the winning ones."""
    for seed in range(40):
        moves = random_game(5, seed)
        rec = record(5, moves)
        review = analyse(rec, 30)
        if any(m.verdict == "blunder" for m in review.moves):
            assert check_exact(rec, review) > 0
            return
    raise AssertionError("no blunder in 40 random games of n = 5")


def test_perfect_play_has_no_blunder() -> None:
    """Both sides playing the lowest winning flip when they have one: nothing is a blunder."""
    state = T.new_game(2, {"n": 6}, 0)
    moves = []
    while not state.finished:
        good = sorted(winning_flips(state.rows))
        position = good[0] if good else T.legal_positions(state)[0]
        action = {"type": "flip", "position": position}
        moves.append((state.turn, action))
        state = play(T, state, state.turn, action)
    review = analyse(record(6, moves), 30)
    assert all(m.verdict == "best" and m.exact for m in review.moves)


def test_forfeit_leaves_two_players_exact() -> None:
    """Three players, one forfeits: the forfeit is unknown, the two left are judged exactly."""
    rng = random.Random(5)
    state = T.new_game(3, {"n": 5}, 0)
    moves: list[tuple[int, dict[str, object]]] = []
    for _ in range(2):
        action = rng.choice(T.legal_actions(state, state.turn))
        moves.append((state.turn, action))
        state = play(T, state, state.turn, action)
    moves.append((2, FORFEIT))
    state = play(T, state, 2, FORFEIT)
    while not state.finished:
        action = rng.choice(T.legal_actions(state, state.turn))
        moves.append((state.turn, action))
        state = play(T, state, state.turn, action)
    rec = record(5, moves, players=3)
    review = analyse(rec, 30)
    assert review.moves[2].verdict == "unknown"
    assert all(not m.exact for m in review.moves[:2])  # three players in: estimates
    check_exact(rec, review, only_after=3)


def test_n9_late_positions() -> None:
    """n = 9 (solved by the shipped table and the search): the last moves of a few games agree with
    the independent solver."""
    for seed in (1, 2):
        moves = random_game(9, seed)
        rec = record(9, moves)
        review = analyse(rec, 30)
        check_exact(rec, review, only_after=max(0, len(moves) - 8))
    # From the sixth move on, where the shipped table (positions up to six moves made) hands over to
    # the search: a short game, so that the independent solver proves it in about a second.
    moves = random_game(9, 4)
    rec = record(9, moves)
    check_exact(rec, analyse(rec, 30), only_after=5)


@pytest.mark.parametrize("players", [3, 8])
def test_many_players_are_estimates(players: int) -> None:
    moves = random_game(7, 3, players)
    review = analyse(record(7, moves, players), 30)
    for m in review.moves:
        assert m.verdict != "unknown"
        assert m.value_before is not None and m.value_after is not None
        assert -1 <= m.value_after <= m.value_before <= 1
        if m.verdict == "blunder":  # only a proved certain win made a certain loss
            assert m.exact and (m.value_before, m.value_after) == (1.0, -1.0)
        elif not m.exact:
            assert m.basis == "estimate"
        if m.verdict not in ("best", "blunder"):
            assert m.better and m.action not in m.better


@pytest.mark.parametrize("players", [2, 8])
def test_budget_is_kept_at_n12(players: int) -> None:
    moves = random_game(12, 7, players)
    t0 = time.monotonic()
    review = GAMES["procession"].analyse(record(12, moves, players), 1.0)
    assert time.monotonic() - t0 < 1.3
    assert len(review.moves) == len(moves)
    assert all(m.exact or m.verdict != "blunder" for m in review.moves)
