"""The Numbers To Number computer player: legal choices at every level, in every seat; no peeking at
the other seat's pending pick; choices reproducible from the seed; a bounded amount of work per choice."""

from __future__ import annotations

import random

import pytest

from bot.players import LEVELS
from bot.rules import play
from cogs.numbers import player, rules


def _play_game(m: int, levels: tuple[str, str], seed: int) -> rules.State:
    """A whole game between two computer players, each choice checked against the legal actions."""
    rng = random.Random(seed)
    state = rules.new_game(2, {"m": m}, seed)
    while rules.outcome(state) is None:
        for seat in sorted(rules.to_act(state)):
            action = player.choose(rules.view_for(state, seat), levels[seat], rng)
            assert action in rules.legal_actions(state, seat)
            state = play(rules, state, seat, action)
    return state


@pytest.mark.parametrize("m", [3, 4, 5, 6])
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_games_in_either_seat(m: int, level: str) -> None:
    for seed, other in enumerate(LEVELS):
        assert _play_game(m, (level, other), seed).finished
        assert _play_game(m, (other, level), 100 + seed).finished


@pytest.mark.parametrize("m", [7, 8])
def test_hard_plays_whole_games_of_the_largest_sizes(m: int) -> None:
    state = _play_game(m, ("hard", "easy"), m)
    assert len(state.rounds) == rules.n_rounds(m)
    state = _play_game(m, ("normal", "hard"), m + 1)
    assert len(state.rounds) == rules.n_rounds(m)


def _states_at(m: int, moves: int, seed: int) -> rules.State:
    """A game ``moves`` revealed moves in, picked at random."""
    rng = random.Random(seed)
    state = rules.new_game(2, {"m": m}, seed)
    for _ in range(moves):
        for seat in (0, 1):
            state = rules.apply(state, seat, rules.Pick(rng.choice(rules.available(state, seat))))
    return state


@pytest.mark.parametrize("m", [4, 6, 8])
@pytest.mark.parametrize("seat", [0, 1])
def test_no_peeking_at_the_other_seats_pending_pick(m: int, seat: int) -> None:
    """Two states that differ only in the other seat's secret pick give the same view, hence the same
    choice for the same seed, at every level and on every move of a round (the last one included)."""
    other = 1 - seat
    for moves in range(0, 3 * m + 1):
        base = _states_at(m, moves, seed=moves)
        if base.finished:
            break
        left = rules.available(base, other)
        one = rules.apply(base, other, rules.Pick(left[0]))
        two = rules.apply(base, other, rules.Pick(left[-1]))
        assert one != two
        view = rules.view_for(one, seat)
        assert view == rules.view_for(two, seat)
        for level in LEVELS:
            for seed in range(3):
                a = player.choose(view, level, random.Random(seed))
                b = player.choose(rules.view_for(two, seat), level, random.Random(seed))
                assert a == b
                assert a in rules.legal_actions(one, seat)


@pytest.mark.parametrize("level", LEVELS)
def test_a_choice_is_reproducible_from_its_seed(level: str) -> None:
    for moves in (0, 5, 6, 11, 13):
        view = rules.view_for(_states_at(6, moves, seed=3), 1)
        first = [player.choose(view, level, random.Random(seed)) for seed in range(5)]
        again = [player.choose(view, level, random.Random(seed)) for seed in range(5)]
        assert first == again


def test_the_work_of_a_choice_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The costly step is valuing a last move (O(2^m)); a choice does it at most once per finished
    round (to weigh the opponent model) plus a fixed number of times, whatever the history."""
    calls = 0
    values = player.LastMove.values

    def counted(self: player.LastMove, dist: player.Distribution) -> dict[int, float]:
        nonlocal calls
        calls += 1
        return values(self, dist)

    monkeypatch.setattr(player.LastMove, "values", counted)
    m = 8
    for moves in (m - 2, m - 1, 10 * m + m - 2, 10 * m + m - 1, 30 * m + m - 2, 30 * m + m - 1):
        view = rules.view_for(_states_at(m, moves, seed=moves), 0)
        for level in LEVELS:
            player._likes.cache_clear()  # the worst case: nothing cached
            calls = 0
            player.choose(view, level, random.Random(1))
            assert calls <= view.round + 50
