"""Lines By The Dots rules: dot names, hand-built scenarios with known scores (a first move, a fallback,
a skipped line, a game ending between the two lines of a turn), forfeits, bad input, and properties of
random games (lines over virgin dots only, scores equal to a recount, the end exactly when every dot
is taken, JSON round trip, legal_actions exactly the accepted moves)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import BadInput, GameError, IllegalMove, NotYourTurn
from cogs.dots import rules as T
from tests.rules.helpers import round_trip, unchanged_after


def stored(events: tuple[T.Event, ...]) -> tuple[dict[str, Any], ...]:
    """Events as a state stores them."""
    return tuple(e.to_dict() for e in events)


def line(state: T.State, to: str, start: str | None = None) -> T.State:
    return T.apply(state, state.turn, {"type": "line", "to": to, "from": start})


def names(dots: tuple[T.Dot, ...] | list[T.Dot]) -> list[str]:
    return [T.dot_name(d) for d in dots]


# ---- dot names --------------------------------------------------------------------------------------


def test_dot_names() -> None:
    assert T.dot_name((2, 3)) == "C4"
    assert T.parse_dot("C4", 5) == (2, 3)
    assert T.parse_dot(" c4 ", 5) == (2, 3)
    assert T.parse_dot("J10", 10) == (9, 9)
    with pytest.raises(BadInput, match=r"^K1 is off the grid: columns run A-E, rows 1-5\.$"):
        T.parse_dot("K1", 5)
    with pytest.raises(BadInput, match="A6 is off the grid"):
        T.parse_dot("a6", 5)
    with pytest.raises(BadInput, match="A0 is off the grid"):
        T.parse_dot("A0", 5)
    for garbage in ["4C", "CC", "C-1", "", "C 4 5"]:
        with pytest.raises(BadInput, match="like C4"):
            T.parse_dot(garbage, 5)


# ---- scenarios --------------------------------------------------------------------------------------


def test_first_move() -> None:
    state = T.new_game(2, {}, 0)
    assert state.size == 5
    assert T.owed(state) == T.Owed(T.VERTICAL, needs_from=True, first=True, fallback=False)
    assert len(T.legal_starts(state)) == 25
    assert names(T.legal_ends(state, (2, 2))) == ["C1", "C2", "C4", "C5"]
    assert len(T.legal_actions(state, 0)) == 25 * 4
    state = line(state, "C5", "C3")
    assert stored(state.events) == (
        {
            "type": "line",
            "seat": 0,
            "direction": "vertical",
            "from": "C3",
            "to": "C5",
            "score": 0,
            "fallback": False,
        },
    )
    assert state.marked == {(2, 2), (2, 3), (2, 4)}
    assert state.current == (2, 4) and state.turn == 0
    assert T.owed(state) == T.Owed(T.HORIZONTAL, needs_from=False, first=False, fallback=False)
    assert T.legal_starts(state) == ((2, 4),)
    assert names(T.legal_ends(state, (2, 4))) == ["A5", "B5", "D5", "E5"]
    assert T.legal_actions(state, 0)[0] == {"type": "line", "from": None, "to": "A5"}
    state = line(state, "A5")  # row 5 holds one non-virgin dot (C5): 1 point
    assert state.scores == (1, 0)
    assert state.turn == 1 and state.direction == T.VERTICAL and state.current == (0, 4)


def test_the_three_by_three_game() -> None:
    """A whole game with a skipped line, a fallback line and an end between the lines of a turn."""
    state = T.new_game(2, {"size": 3}, 0)
    state = line(state, "A1", "A2")  # the first line scores 0
    state = line(state, "B1")  # row 1: A1 -> 1
    state = line(state, "B3")  # seat 2, column B: B1 -> 1
    assert state.scores == (1, 1)
    state = line(state, "A3")  # row 3: B3 -> 1
    # Columns A and B are full and C is empty: no vertical line exists anywhere, so seat 1's
    # vertical line is skipped and the horizontal line starts from A3, where none can start.
    assert state.scores == (1, 2)
    assert state.events[-1].to_dict() == {"type": "skip", "seat": 0, "direction": "vertical", "at": "A3"}
    assert state.turn == 0 and state.direction == T.HORIZONTAL and state.current == (0, 2)
    assert T.owed(state) == T.Owed(T.HORIZONTAL, needs_from=True, first=False, fallback=True)
    assert names(T.legal_starts(state)) == ["B1", "B2", "B3"]
    assert T.legal_actions(state, 0) == [
        {"type": "line", "from": "B1", "to": "C1"},
        {"type": "line", "from": "B2", "to": "C2"},
        {"type": "line", "from": "B3", "to": "C3"},
    ]
    with pytest.raises(BadInput, match="no horizontal line can start at A3"):
        line(state, "C3")
    with pytest.raises(IllegalMove, match="C3 is unused"):
        line(state, "B3", "C3")
    with pytest.raises(IllegalMove, match="No horizontal line can start at A1"):
        line(state, "C1", "A1")
    state = line(state, "C3", "B3")  # fallback; row 3: A3, B3 -> 2
    assert state.events[-1].to_dict()["fallback"] is True and state.events[-1].to_dict()["score"] == 2
    assert state.scores == (3, 2)
    assert state.turn == 1 and state.current == (2, 2)
    state = line(state, "C1")  # column C: C3 -> 1; every dot is taken before seat 2's horizontal line
    assert state.events[-1].to_dict() == {"type": "end", "reason": "full"}
    assert state.scores == (3, 3)
    assert T.to_act(state) == frozenset() and T.owed(state) is None
    outcome = T.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0, 1) and outcome.reason == "every dot is taken"
    with pytest.raises(IllegalMove, match="game is over"):
        T.apply(state, 1, {"type": "line", "to": "A1"})


def test_horizontal_line_skipped() -> None:
    state = T.new_game(2, {"size": 3}, 0)
    state = line(state, "A2", "A1")  # 0
    state = line(state, "B2")  # row 2: A2 -> 1
    state = line(state, "B1")  # seat 2, column B: B2 -> 1
    state = line(state, "C1")  # row 1: A1, B1 -> 2
    state = line(state, "C2")  # seat 1, column C: C1 -> 1
    # Rows 1 and 2 are full and row 3 is empty: seat 1's horizontal line is skipped, and seat 2
    # starts a turn from C2.
    assert state.events[-1].to_dict() == {"type": "skip", "seat": 0, "direction": "horizontal", "at": "C2"}
    assert state.scores == (2, 3)
    assert state.turn == 1 and state.direction == T.VERTICAL and state.current == (2, 1)
    assert T.owed(state) == T.Owed(T.VERTICAL, needs_from=False, first=False, fallback=False)
    state = line(state, "C3")  # column C: C1, C2 -> 2
    state = line(state, "A3")  # row 3: C3 -> 1, and every dot is taken
    assert state.scores == (2, 6)
    outcome = T.outcome(state)
    assert outcome is not None and outcome.winners == (1,)


# ---- forfeits ---------------------------------------------------------------------------------------


def test_forfeit_mid_turn_passes_a_whole_turn() -> None:
    state = T.new_game(3, {"size": 5}, 0)
    state = line(state, "C5", "C3")
    assert state.direction == T.HORIZONTAL
    state = T.forfeit(state, 0)
    assert stored(state.events) == ({"type": "out", "seat": 0, "reason": "forfeited"},)
    assert state.turn == 1 and state.direction == T.VERTICAL and state.current == (2, 4)
    # C5's column has no virgin neighbour: seat 2 owes a fallback vertical line.
    assert T.owed(state) == T.Owed(T.VERTICAL, needs_from=True, first=False, fallback=True)
    state = line(state, "C1", "C3")  # column C: C3, C4, C5 -> 3
    assert state.scores == (0, 3, 0)
    state = line(state, "A1")
    assert state.turn == 2  # seat 1 left: after seat 3 comes seat 2
    state = line(state, "A5")
    state = line(state, "B5")
    assert state.turn == 1


def test_forfeit_of_a_waiting_player_and_before_the_first_line() -> None:
    state = T.new_game(3, {}, 0)
    state = T.forfeit(state, 0)  # the first player leaves before drawing
    assert state.turn == 1 and T.owed(state) == T.Owed(T.VERTICAL, True, True, False)
    state = T.forfeit(state, 2)  # a waiting player: only two seats were left, now one
    assert state.end_reason == T.END_PLAYERS
    outcome = T.outcome(state)
    assert outcome is not None and outcome.winners == (1,)
    assert outcome.reason == "every other player left the game"
    assert T.forfeit(state, 1).events == ()


def test_forfeit_can_cause_a_skip() -> None:
    state = T.new_game(3, {"size": 3}, 0)
    for to, start in [("A1", "A2"), ("B1", None), ("B3", None), ("A3", None)]:
        state = line(state, to, start)
    assert state.turn == 2 and state.direction == T.HORIZONTAL  # seat 3's vertical was skipped
    state = T.forfeit(state, 2)
    # Seat 1 starts a whole turn from A3, but no vertical line exists anywhere: skipped at once.
    assert stored(state.events) == (
        {"type": "out", "seat": 2, "reason": "forfeited"},
        {"type": "skip", "seat": 0, "direction": "vertical", "at": "A3"},
    )
    assert state.turn == 0 and state.direction == T.HORIZONTAL
    round_trip(state)


# ---- bad input ----------------------------------------------------------------------------------------


def test_bad_input_changes_nothing() -> None:
    state = T.new_game(2, {"size": 5}, 0)
    unchanged_after(T, state, 0, {"type": "line", "to": "A3"}, BadInput, "first line of the game starts")
    unchanged_after(T, state, 0, {"type": "line", "to": "C1", "from": "A1"}, IllegalMove, "must be vertical")
    unchanged_after(T, state, 1, {"type": "line", "to": "A3", "from": "A1"}, NotYourTurn, "player 1's turn")
    state = line(state, "A3", "A1")
    state = line(state, "E3")  # row 3: A3 -> 1; B3..E3 are taken
    assert state.turn == 1 and state.current == (4, 2)
    v = {"type": "line"}
    unchanged_after(T, state, 1, {**v, "to": "D2"}, IllegalMove, "diagonal")
    unchanged_after(T, state, 1, {**v, "to": "B3"}, IllegalMove, "must be vertical: stay in column E")
    unchanged_after(T, state, 1, {**v, "to": "F1"}, BadInput, "F1 is off the grid: columns run A-E, rows 1-5")
    unchanged_after(T, state, 1, {**v, "to": "E3"}, IllegalMove, "must leave its dot")
    unchanged_after(T, state, 1, {**v, "to": "E1", "from": "A1"}, IllegalMove, "leave out from")
    unchanged_after(T, state, 0, {**v, "to": "E1"}, NotYourTurn, "player 2's turn")
    unchanged_after(T, state, 1, {**v, "to": 5}, BadInput, "text for to")
    unchanged_after(T, state, 1, {**v, "to": "E1", "from": 3}, BadInput, "text for from")
    unchanged_after(T, state, 1, {"type": "dot", "to": "E1"}, BadInput, "only move is drawing a line")
    unchanged_after(T, state, 1, {**v, "to": "bogus"}, BadInput, "like C4")
    state = line(state, "E1", "E3")  # naming the current dot as the start is the same line: accepted
    state = line(state, "B1")  # row 1: A1, E1 -> 2
    assert state.scores == (1, 3)
    unchanged_after(T, state, 0, {**v, "to": "B3"}, IllegalMove, "B3 is already used")
    unchanged_after(
        T, state, 0, {**v, "to": "B5"}, IllegalMove, "would pass B3, which a line already touched"
    )
    unchanged_after(T, state, 0, {**v, "to": "A1"}, IllegalMove, "must be vertical")
    state = line(state, "B2")
    unchanged_after(T, state, 0, {**v, "to": "A2"}, IllegalMove, "A2 is already used")


def test_from_dict_rejects_broken_states() -> None:
    state = T.new_game(2, {}, 0)
    state = line(line(state, "A3", "A1"), "E3")
    good = state.to_dict()
    for mutate in [
        lambda d: d.update(size=11),
        lambda d: d["lines"][1].update(score=5),  # not the recount
        lambda d: d["lines"][1].update(to="A4"),  # not horizontal
        lambda d: d["lines"].append(dict(d["lines"][0], seat=1)),  # over non-virgin dots
        lambda d: d.update(scores=[1, 1]),
        lambda d: d.update(turn=2),
        lambda d: d.update(current="Z9"),
        lambda d: d.update(direction="diagonal"),
    ]:
        bad = copy.deepcopy(good)
        mutate(bad)
        with pytest.raises(ValueError):
            T.State.from_dict(bad)


# ---- properties of random games -------------------------------------------------------------------


def axis(dot: T.Dot, direction: str, size: int) -> list[T.Dot]:
    return (
        [(dot[0], r) for r in range(size)] if direction == T.VERTICAL else [(c, dot[1]) for c in range(size)]
    )


def random_action(rng: random.Random, size: int) -> dict[str, Any]:
    def dot() -> str:
        return T.dot_name((rng.randrange(size), rng.randrange(size)))

    return {"type": "line", "to": dot(), "from": dot() if rng.random() < 0.5 else None}


def play_random(n: int, size: int, seed: int) -> None:
    rng = random.Random(seed)
    state = T.new_game(n, {"size": size}, seed)
    totals = [0] * n
    marked: set[T.Dot] = set()
    while T.outcome(state) is None:
        assert len(state.marked) < size * size
        seat = state.turn
        legal = T.legal_actions(state, seat)
        assert legal, "a line is always owed while the game goes on"
        # legal_actions is exactly what apply accepts (a `from` naming the current dot aside).
        probe = random_action(rng, size)
        if state.current is not None and probe["from"] == T.dot_name(state.current):
            probe["from"] = None
        if probe in legal:
            T.apply(state, seat, probe)
        else:
            before = state.to_dict()
            with pytest.raises(GameError):
                T.apply(state, seat, probe)
            assert state.to_dict() == before
        if rng.random() < 0.01:
            state = T.forfeit(state, rng.randrange(n))
            round_trip(state)
            continue
        state = T.apply(state, seat, rng.choice(legal))
        drawn = [e.to_dict() for e in state.events if e.TYPE == "line"]
        assert len(drawn) == 1
        new = state.lines[-1]
        dots = new.dots()
        assert new.start[0] == new.end[0] if new.direction == T.VERTICAL else new.start[1] == new.end[1]
        assert all(d not in marked for d in dots[1:])  # to and through virgin dots only
        expected = sum(d in marked for d in axis(new.start, new.direction, size)) if marked else 0
        assert new.score == expected
        if marked:
            assert new.start in marked
        totals[new.seat] += new.score
        marked.update(dots)
        assert state.marked == marked
        assert list(state.scores) == totals
        round_trip(state)
    full = len(state.marked) == size * size
    assert full == (state.end_reason == T.END_FULL)
    assert full or len(state.forfeited) >= n - 1
    assert T.to_act(state) == frozenset()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 6), size=st.integers(3, 10), seed=st.integers(0, 10**6))
def test_random_games(n: int, size: int, seed: int) -> None:
    play_random(n, size, seed)


@pytest.mark.parametrize("size", range(3, 11))
def test_seeded_playouts(size: int) -> None:
    for seed in range(5):
        play_random(2 + seed % 5, size, seed)
