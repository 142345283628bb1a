"""Procession rules: the seed's sample game move by move, and properties of every game."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import BadInput, IllegalMove, NotYourTurn
from cogs.procession import rules as P

PARTITIONS = {2: 2, 3: 3, 4: 5, 5: 7, 6: 11, 7: 15, 8: 22, 9: 30, 10: 42, 11: 56, 12: 77}


def flip(state: P.State, position: int) -> P.State:
    return P.apply(state, state.turn, {"type": "flip", "position": position})


def test_run_lengths_and_multisets_of_the_seed() -> None:
    assert P.run_lengths("10010") == [1, 2, 1, 1]
    assert P.multiset("10010") == P.multiset("01001") == (2, 1, 1, 1)
    assert P.multiset("00000") == (5,)
    assert P.format_multiset(P.multiset("10011")) == "{2,2,1}"


def test_seed_sample_game_move_by_move() -> None:
    state = P.new_game(2, {"n": 5}, seed=0)
    assert state.row == "00000"
    expected = [
        (4, "00010", (3, 1, 1)),
        (1, "10010", (2, 1, 1, 1)),
        (5, "10011", (2, 2, 1)),
    ]
    for position, row, ms in expected:
        state = flip(state, position)
        assert state.row == row
        assert P.multiset(row) == ms
    # "Can't do 10111 here, for example, because the run-length multiset 3,1,1 already occurred."
    assert P.flip(state.row, 3) == "10111"
    with pytest.raises(IllegalMove, match="already occurred"):
        flip(state, 3)
    state = flip(state, 1)
    assert state.row == "00011"
    state = flip(state, 4)
    assert state.row == "00001"
    # Every flip of 00001 repeats a multiset: 10001, 01001, 00101, 00011, 00000.
    assert P.legal_positions(state) == []
    assert state.finished
    outcome = P.outcome(state)
    assert outcome is not None
    # Five moves in a two-player game: seat 1 (index 0) wrote 00001.
    assert state.movers[-1] == 0
    assert outcome.winners == (0,)


def test_bad_input_changes_nothing() -> None:
    state = P.new_game(3, {"n": 5}, seed=0)
    for action, error in [
        ({"type": "flip", "position": 6}, BadInput),
        ({"type": "flip", "position": 0}, BadInput),
        ({"type": "flip", "position": "2"}, BadInput),
        ({"type": "jump"}, BadInput),
        ({}, BadInput),
    ]:
        with pytest.raises(error):
            P.apply(state, 0, action)
    with pytest.raises(NotYourTurn):
        P.apply(state, 1, {"type": "flip", "position": 1})
    assert state == P.new_game(3, {"n": 5}, seed=0)
    with pytest.raises(BadInput, match="Choose 1-5"):
        P.apply(state, 0, {"type": "flip", "position": 9})


def test_forfeit_passes_the_turn_and_the_last_one_standing_wins() -> None:
    state = P.new_game(3, {"n": 6}, seed=0)
    state = P.forfeit(state, 0)
    assert state.turn == 1 and not state.finished
    state = flip(state, 1)
    assert state.turn == 2
    state = P.forfeit(state, 2)
    assert state.finished
    outcome = P.outcome(state)
    assert outcome is not None and outcome.winners == (1,)


def test_a_forfeited_player_is_skipped_in_turn_order() -> None:
    state = P.new_game(3, {"n": 6}, seed=0)
    state = P.forfeit(state, 1)
    state = flip(state, 1)
    assert state.turn == 2
    state = flip(state, 2)
    assert state.turn == 0


def random_game(n: int, players: int, rng: random.Random) -> P.State:
    state = P.new_game(players, {"n": n}, seed=0)
    while not state.finished:
        legal = P.legal_positions(state)
        assert [a["position"] for a in P.legal_actions(state, state.turn)] == legal
        state = flip(state, rng.choice(legal))
        assert P.State.from_dict(state.to_dict()) == state
    return state


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 12), players=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_every_game_ends_within_p_n_moves_with_distinct_multisets(n: int, players: int, seed: int) -> None:
    state = random_game(n, players, random.Random(seed))
    multisets = [P.multiset(r) for r in state.rows]
    assert len(set(multisets)) == len(multisets)
    assert len(state.rows) - 1 <= PARTITIONS[n] - 1
    assert P.legal_positions(state) == []
    outcome = P.outcome(state)
    assert outcome is not None
    assert outcome.winners == (state.movers[-1],)
    for prev, row in zip(state.rows, state.rows[1:], strict=False):
        assert sum(a != b for a, b in zip(prev, row, strict=True)) == 1


def test_from_dict_rejects_malformed_states() -> None:
    good = P.new_game(2, {"n": 4}, seed=0).to_dict()
    for patch in [
        {"n": 13},
        {"rows": ["0001"]},
        {"rows": ["0000", "0002"], "movers": [0]},
        {"rows": ["0000", "1111"], "movers": [0]},  # {4} repeated
        {"movers": [0]},
        {"turn": 5},
    ]:
        with pytest.raises(ValueError):
            P.State.from_dict({**good, **patch})
    with pytest.raises(ValueError):
        P.State.from_dict({"n": 4})
