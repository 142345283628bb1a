"""Numbers To Number rules: the seed's example, hand-built rounds, whole games, forfeits, JSON round
trips, bad input, and that a pending pick is seen by nobody but its owner until both are in."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import BadInput, IllegalMove
from cogs.numbers import rules as nb
from tests.rules.helpers import jsonable, round_trip, unchanged_after

# ---- helpers --------------------------------------------------------------------------------------


def pick(state: nb.State, seat: int, number: int) -> nb.State:
    return nb.apply(state, seat, {"type": "pick", "number": number})


def play_moves(state: nb.State, moves: list[tuple[int, int]]) -> nb.State:
    for a, b in moves:
        state = pick(pick(state, 0, a), 1, b)
    return state


def assert_no_leak(state: nb.State) -> None:
    """A pending pick is in no view but its owner's, and in no event."""
    for viewer in (None, 0, 1):
        view = nb.view_for(state, viewer)
        for seat in (0, 1):
            secret = state.pending[seat]
            if secret is None or seat == viewer:
                continue
            # Structural: another pick for that seat gives the very same view.
            pending = list(state.pending)
            pending[seat] = secret % nb.largest(state.m) + 1
            changed = dataclasses.replace(state, pending=(pending[0], pending[1]))
            assert nb.view_for(changed, viewer) == view
            assert secret not in view.played[seat]
            for event in view.events:
                assert not isinstance(event, nb.Reveal) or state.pending == (None, None)
        if viewer is None:
            assert view.my_pick is None and view.available is None
        else:
            assert view.my_pick == state.pending[viewer]
        json.dumps(jsonable(view))  # the view is plain data


def playout(m: int, seed: int, forfeits: bool = False) -> nb.State:
    rng = random.Random(seed)
    state = nb.new_game(2, {"m": m}, seed)
    for _ in range(10_000):
        assert_no_leak(state)
        state = round_trip(state)
        if nb.outcome(state) is not None:
            return state
        acting = sorted(nb.to_act(state))
        assert acting
        seat = rng.choice(acting)
        if forfeits and rng.random() < 0.005:
            return nb.forfeit(state, seat)
        legal = nb.legal_actions(state, seat)
        assert [a["number"] for a in legal] == list(nb.available(state, seat))
        state = nb.apply(state, seat, rng.choice(legal))
    raise AssertionError("the game did not end")


# ---- the seed's example and D ---------------------------------------------------------------------


def test_seed_example() -> None:
    assert nb.decode_list("01_001_1") == [69, 71, 101, 103]
    assert [nb.binary(v, 8) for v in nb.decode_list("01_001_1")] == [
        "01000101",
        "01000111",
        "01100101",
        "01100111",
    ]


def test_decode_list_edges() -> None:
    assert nb.decode_list("______") == list(range(64))
    assert nb.decode_list("000") == [0]
    assert nb.decode_list("111") == [7]
    assert nb.decode_list("0_0") == [0, 2]
    with pytest.raises(ValueError):
        nb.decode_list("01x")


@given(st.text("01_", min_size=1, max_size=10))
def test_decode_list_matches_the_pattern(symbols: str) -> None:
    d = nb.decode_list(symbols)
    assert len(d) == 2 ** symbols.count("_") and d == sorted(set(d))
    for v in range(2 ** len(symbols)):
        matches = all(s in ("_", b) for s, b in zip(symbols, nb.binary(v, len(symbols)), strict=True))
        assert (v in d) == matches


def test_rounds_and_sizes() -> None:
    assert [nb.n_rounds(m) for m in range(3, 9)] == [2, 3, 6, 10, 18, 31]
    assert nb.largest(8) == 255


# ---- hand-built rounds ----------------------------------------------------------------------------


def test_hand_built_round_of_the_seed_example() -> None:
    # m = 8: moves giving 0, 1, _, 0, 0, 1, _, 1 write 01_001_1, D = {69, 71, 101, 103}.
    # Seat 1 plays 69 and 101 (two points); seat 2 plays 103 (one point) and 71 is nobody's.
    moves = [(1, 2), (101, 3), (50, 50), (4, 103), (5, 6), (69, 7), (60, 60), (9, 8)]
    state = play_moves(nb.new_game(2, {"m": 8}, 0), moves)
    record = state.rounds[0]
    assert record.symbols == "01_001_1"
    assert record.d == (69, 71, 101, 103)
    assert record.points == (2, 1) and state.totals == (2, 1)
    assert record.scoring(0) == (101, 69) and record.scoring(1) == (103,)
    assert [e.TYPE for e in state.events] == ["picked", "reveal", "round_end"]
    end = state.events[-1]
    assert end.to_dict() == {
        "type": "round_end",
        "round": 0,
        "list": "01_001_1",
        "d": [69, 71, 101, 103],
        "d_binary": ["01000101", "01000111", "01100101", "01100111"],
        "points": [2, 1],
        "scoring": [[101, 69], [103]],
        "totals": [2, 1],
    }
    view = nb.view_for(state, None)
    assert view.last_round == record and view.round == 1 and view.moves == ()
    assert view.round_points == ((2, 1),)


def test_all_equal_round_makes_every_value_d() -> None:
    # m = 3: both play the same numbers; the list is ___ and D is 0..7: each scores 3.
    state = play_moves(nb.new_game(2, {"m": 3}, 0), [(1, 1), (2, 2), (3, 3)])
    record = state.rounds[0]
    assert record.symbols == "___" and record.d == tuple(range(8))
    assert record.points == (3, 3)


def test_d_containing_zero_which_nobody_can_play() -> None:
    # m = 3: seat 1 always smaller: 000, D = {0}, nobody scores.
    state = play_moves(nb.new_game(2, {"m": 3}, 0), [(1, 7), (2, 6), (3, 5)])
    assert state.rounds[0].symbols == "000" and state.rounds[0].d == (0,)
    assert state.rounds[0].points == (0, 0)
    # m = 4: _00_ gives D = {0, 1, 8, 9}; seat 1 played 1 (a point), seat 2 none of 1, 8, 9.
    state = play_moves(nb.new_game(2, {"m": 4}, 0), [(2, 2), (1, 3), (5, 6), (4, 4)])
    assert state.rounds[0].symbols == "_00_" and state.rounds[0].d == (0, 1, 8, 9)
    assert state.rounds[0].points == (1, 0)


def test_a_whole_m3_game_to_a_draw_and_to_a_win() -> None:
    state = play_moves(nb.new_game(2, {"m": 3}, 0), [(1, 1), (2, 2), (3, 3)])
    state = play_moves(state, [(4, 4), (5, 5), (6, 6)])
    outcome = nb.outcome(state)
    assert outcome is not None and outcome.draw and outcome.winners == (0, 1)
    assert outcome.scores == (6, 6) and state.events[-1].TYPE == "game_over"
    assert nb.to_act(state) == frozenset()
    # A second game: round 1 writes 111 (D = {7}) and seat 1 played 7.
    state = play_moves(nb.new_game(2, {"m": 3}, 0), [(7, 1), (6, 2), (5, 3)])
    assert state.rounds[0].d == (7,) and state.totals == (1, 0)
    state = play_moves(state, [(1, 7), (2, 6), (3, 5)])  # 000: D = {0}
    outcome = nb.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and not outcome.draw


def test_picks_are_revealed_together() -> None:
    state = nb.new_game(2, {"m": 4}, 0)
    state = pick(state, 1, 9)
    assert nb.to_act(state) == {0}
    assert [e.to_dict() for e in state.events] == [{"type": "picked", "seat": 1}]
    assert nb.view_for(state, 1).my_pick == 9 and nb.view_for(state, 0).my_pick is None
    assert nb.view_for(state, None).picked == (False, True)
    assert 9 not in nb.available(state, 1) and 9 in nb.available(state, 0)  # a pick is final
    assert nb.view_for(state, 1).available == nb.available(state, 1)
    state = pick(state, 0, 3)
    assert state.events[-1].to_dict() == {
        "type": "reveal",
        "round": 0,
        "move": 0,
        "numbers": [3, 9],
        "symbol": "0",
        "list": "0",
    }
    assert nb.to_act(state) == {0, 1} and state.pending == (None, None)


# ---- properties and whole games -------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 8), st.integers(0, 2**32))
def test_pool_never_runs_out_and_numbers_are_distinct(m: int, seed: int) -> None:
    rng = random.Random(seed)
    state = nb.new_game(2, {"m": m}, seed)
    while nb.outcome(state) is None:
        seat = rng.choice(sorted(nb.to_act(state)))
        legal = nb.legal_actions(state, seat)
        assert legal
        state = nb.apply(state, seat, rng.choice(legal))
    assert len(state.rounds) == nb.n_rounds(m)
    for seat in (0, 1):
        played = state.played(seat)
        assert len(played) == nb.n_rounds(m) * m == len(set(played))
        assert all(1 <= k <= nb.largest(m) for k in played)
    totals = state.totals
    assert totals == (
        sum(len(r.scoring(0)) for r in state.rounds),
        sum(len(r.scoring(1)) for r in state.rounds),
    )


@pytest.mark.parametrize("m", range(3, 9))
def test_random_games_to_the_end(m: int) -> None:
    state = playout(m, seed=m)
    outcome = nb.outcome(state)
    assert outcome is not None and outcome.scores == state.totals
    assert not nb.to_act(state)
    assert all(not nb.legal_actions(state, s) for s in (0, 1))
    for record in state.rounds:
        assert len(record.d) == 2 ** record.symbols.count("_")


@pytest.mark.parametrize("seed", range(4))
def test_random_games_with_forfeit(seed: int) -> None:
    state = playout(5, seed=seed, forfeits=True)
    assert nb.outcome(state) is not None


def test_forfeit_gives_the_win_to_the_other_player_and_drops_pending_picks() -> None:
    state = pick(nb.new_game(2, {"m": 6}, 0), 0, 17)
    state = nb.forfeit(state, 1)
    outcome = nb.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and not outcome.draw
    assert state.pending == (None, None)
    assert [e.TYPE for e in state.events] == ["forfeit", "game_over"]
    assert "17" not in json.dumps([e.to_dict() for e in state.events])
    assert nb.to_act(state) == frozenset()
    assert nb.forfeit(state, 0).events == ()
    round_trip(state)


# ---- bad input ------------------------------------------------------------------------------------


def test_bad_picks_change_nothing() -> None:
    state = play_moves(nb.new_game(2, {"m": 4}, 0), [(5, 6)])
    assert "out of range" in unchanged_after(nb, state, 0, {"type": "pick", "number": 16}, BadInput)
    assert "1 to 15" in unchanged_after(nb, state, 0, {"type": "pick", "number": 0}, BadInput)
    unchanged_after(nb, state, 0, {"type": "pick", "number": "7"}, BadInput)
    unchanged_after(nb, state, 0, {"type": "pick", "number": 2.5}, BadInput)
    unchanged_after(nb, state, 0, {"type": "pick"}, BadInput)
    unchanged_after(nb, state, 0, {"type": "guess", "number": 3}, BadInput)
    message = unchanged_after(nb, state, 0, {"type": "pick", "number": 5}, IllegalMove)
    assert message.startswith("You already played 5 (earlier this round)")
    state = pick(state, 0, 6)  # seat 2 played 6, but seat 1 has not: allowed
    message = unchanged_after(nb, state, 0, {"type": "pick", "number": 7}, IllegalMove)
    assert "already picked 6" in message and "final" in message
    state = pick(state, 1, 7)
    with pytest.raises(ValueError):
        nb.apply(state, 2, {"type": "pick", "number": 1})


def test_numbers_from_earlier_rounds_are_refused() -> None:
    state = play_moves(nb.new_game(2, {"m": 3}, 0), [(1, 2), (3, 4), (5, 6)])
    message = unchanged_after(nb, state, 1, {"type": "pick", "number": 4}, IllegalMove)
    assert "in round 1" in message and "4 remain" in message


def test_no_pick_after_the_game_is_over() -> None:
    state = play_moves(nb.new_game(2, {"m": 3}, 0), [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)])
    assert "over" in unchanged_after(nb, state, 0, {"type": "pick", "number": 7}, IllegalMove)
    forfeited = nb.forfeit(nb.new_game(2, {"m": 3}, 0), 0)
    unchanged_after(nb, forfeited, 0, {"type": "pick", "number": 7}, IllegalMove)


def test_parse_number() -> None:
    assert nb.parse_number(" 42 ", 6) == 42
    assert nb.parse_number("0b101", 6) == 5
    assert nb.parse_number("63", 6) == 63
    for text, fragment in (
        ("abc", "not a whole number"),
        ("4.5", "not a whole number"),
        ("", "Type a whole number"),
        ("64", "out of range"),
        ("0", "out of range"),
        ("-3", "out of range"),
        ("0b2", "not a whole number"),
    ):
        with pytest.raises(BadInput, match=fragment):
            nb.parse_number(text, 6)


def test_from_dict_validates() -> None:
    state = play_moves(nb.new_game(2, {"m": 3}, 0), [(1, 2)])
    good = state.to_dict()
    assert nb.State.from_dict(good) == state
    for key, value in (
        ("m", 9),
        ("moves", [[1, 1], [1, 2]]),
        ("pending", [3, 4]),
        ("pending", [1, None]),
        ("moves", [[1, 8]]),
        ("forfeited", [0, 1]),
        ("rounds", [{"moves": [[1, 2]]}]),
        ("moves", [[True, 2]]),
    ):
        bad = json.loads(json.dumps(good))
        bad[key] = value
        with pytest.raises(ValueError):
            nb.State.from_dict(bad)
    for garbage in ({}, {"m": "x"}, []):
        with pytest.raises(ValueError):
            nb.State.from_dict(garbage)  # type: ignore[arg-type]
