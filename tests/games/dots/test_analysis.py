"""The Lines By The Dots analyser against an independent exhaustive search (written here with the
rules alone, sharing nothing with player.py): on 3 x 3 boards (2 and 3 players, a forfeit) and in
4 x 4 endgames every value marked exact is the exact final margin, verdicts follow the documented
thresholds, and "better" lists lines that reach the best margin; on big boards the budget is kept and
estimates never claim a blunder."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping
from typing import Any

import pytest

from bot.analysis import GameRecord, Review
from bot.registry import GAMES
from bot.rules import play
from cogs.dots import rules as T
from cogs.dots.analysis import BETTER, BLUNDER, INACCURACY, analyse

FORFEIT: dict[str, Any] = {"type": "forfeit"}
_memo: dict[tuple[object, ...], int] = {}


def future(state: T.State, me: int) -> int:
    """The points ``me`` scores from here on less the others' together, every seat playing its best
    (``me`` the most, the others the least): plain minimax over the rules' own legal lines."""
    if state.finished:
        return 0
    key = (
        state.n_players,
        state.size,
        state.marked,
        state.current,
        state.direction,
        state.turn,
        state.forfeited,
        me,
    )
    if key in _memo:
        return _memo[key]
    values = [line_value(state, action, me) for action in T.legal_actions(state, state.turn)]
    value = max(values) if state.turn == me else min(values)
    _memo[key] = value
    return value


def line_value(state: T.State, action: Mapping[str, Any], me: int) -> int:
    seat = state.turn
    child = T.apply(state, seat, action)
    gain = child.scores[seat] - state.scores[seat]
    return (gain if seat == me else -gain) + future(child, me)


def margin(state: T.State, seat: int) -> int:
    return state.scores[seat] - sum(
        s for i, s in enumerate(state.scores) if i != seat and i not in state.forfeited
    )


def random_game(size: int, players: int, seed: int, forfeit_at: int | None = None) -> list[Any]:
    rng = random.Random(seed)
    state = T.new_game(players, {"size": size}, 0)
    moves: list[Any] = []
    while not state.finished:
        if len(moves) == forfeit_at:
            seat = (state.turn + 1) % players
            moves.append((seat, FORFEIT))
            state = play(T, state, seat, FORFEIT)
            continue
        action = rng.choice(T.legal_actions(state, state.turn))
        moves.append((state.turn, action))
        state = play(T, state, state.turn, action)
    return moves


def record(size: int, players: int, moves: list[Any]) -> GameRecord:
    return GameRecord("dots", players, {"size": size}, 0, tuple(moves))


def check(rec: GameRecord, review: Review, virgins_at_most: int = 99) -> int:
    """Every exact judgement (where at most ``virgins_at_most`` dots are virgin) as the independent
    search makes it; returns how many were checked."""
    state = T.new_game(rec.n_players, rec.options, rec.seed)
    size = state.size
    checked = 0
    assert [m.index for m in review.moves] == list(range(1, len(rec.moves) + 1))
    for m, (seat, action) in zip(review.moves, rec.moves, strict=True):
        assert m.seat == seat and m.action == action
        if action["type"] == "forfeit":
            assert m.verdict == "unknown"
        elif m.exact and size * size - len(state.marked) <= virgins_at_most:
            assert m.basis == "exact"
            values = {
                tuple(sorted(a.items(), key=str)): line_value(state, a, seat)
                for a in T.legal_actions(state, seat)
            }
            best = max(values.values())
            played = line_value(state, action, seat)
            now = margin(state, seat)
            assert (m.value_before, m.value_after) == (now + best, now + played), m
            lost = best - played
            two = rec.n_players - len(state.forfeited) == 2
            if lost >= BLUNDER or (two and now + best >= 0 > now + played):
                assert m.verdict == "blunder"
            else:
                expected = (
                    "best"
                    if lost == 0
                    else "good"
                    if lost == 1
                    else "inaccuracy"
                    if lost <= INACCURACY
                    else "mistake"
                )
                assert m.verdict == expected, m
            tops = [k for k, v in values.items() if v == best]
            if m.verdict == "best":
                assert m.better == ()
            else:
                assert len(m.better) == min(BETTER, len(tops))
                assert all(tuple(sorted(b.items(), key=str)) in tops for b in m.better)
            checked += 1
        state = play(T, state, seat, action)
    return checked


@pytest.mark.parametrize("players", [2, 3])
def test_3x3_exact_everywhere(players: int) -> None:
    verdicts = set()
    for seed in range(6):
        moves = random_game(3, players, seed)
        rec = record(3, players, moves)
        review = analyse(rec, 30)
        assert review.complete and review.scale == "points" and review.kind == "dots"
        assert Review.from_dict(json.loads(json.dumps(review.to_dict()))) == review
        assert all(m.exact for m in review.moves)
        assert check(rec, review) == len(moves)
        verdicts |= {m.verdict for m in review.moves}
    assert "best" in verdicts and len(verdicts) > 1  # random lines lose points: the check is not empty


def test_rules_example_opening() -> None:
    """The rules text's example opens the game: the first line B1 to B3 scores 0; the game it starts
    (the rest random, 2 players on 3 x 3) is judged exactly, the opening included."""
    first = {"type": "line", "to": "B3", "from": "B1"}
    for seed in range(3):
        rng = random.Random(seed)
        state = play(T, T.new_game(2, {"size": 3}, 0), 0, first)
        assert state.scores == (0, 0)
        moves: list[Any] = [(0, first)]
        while not state.finished:
            action = rng.choice(T.legal_actions(state, state.turn))
            moves.append((state.turn, action))
            state = play(T, state, state.turn, action)
        rec = record(3, 2, moves)
        assert check(rec, analyse(rec, 30)) == len(moves)


def test_3x3_forfeit() -> None:
    """Three players, one forfeits after two lines: the forfeit is unknown, the rest exact."""
    moves = random_game(3, 3, 4, forfeit_at=2)
    rec = record(3, 3, moves)
    review = analyse(rec, 30)
    assert review.moves[2].verdict == "unknown"
    assert check(rec, review) == len(moves) - 1


def test_4x4_endgames() -> None:
    checked = 0
    for seed in range(4):
        moves = random_game(4, 2, seed)
        rec = record(4, 2, moves)
        checked += check(rec, analyse(rec, 30), virgins_at_most=8)
    assert checked >= 8


@pytest.mark.parametrize("players", [2, 6])
def test_budget_is_kept_at_size_10(players: int) -> None:
    moves = random_game(10, players, 1)
    t0 = time.monotonic()
    review = GAMES["dots"].analyse(record(10, players, moves), 1.0)
    assert time.monotonic() - t0 < 1.3
    assert len(review.moves) == len(moves) and not review.complete
    for m in review.moves:
        assert m.exact or m.verdict != "blunder"
        assert m.basis in (("exact",) if m.exact else ("search", ""))
