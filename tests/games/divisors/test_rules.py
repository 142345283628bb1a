"""The Numerical Card Game rules: the resolution table, RULES.md's schedule examples, scenarios for
drops, forfeits and each way the game ends, bad input, and properties of random games (cards
conserved, scores grow only by the table, termination, JSON round trip, no leaks)."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import BadInput, IllegalMove, NotYourTurn
from cogs.divisors import rules as D
from tests.rules.helpers import round_trip, unchanged_after


def pick(state: D.State, seat: int, card: int) -> D.State:
    return D.apply(state, seat, {"type": "pick", "card": card})


def events_of(state: D.State, kind: str) -> list[dict[str, Any]]:
    """The state's events of one kind, as stored."""
    return [e.to_dict() for e in state.events if e.TYPE == kind]


def stored(events: tuple[D.Event, ...]) -> tuple[dict[str, Any], ...]:
    """Events as a state stores them."""
    return tuple(e.to_dict() for e in events)


# ---- the resolution table ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected", "label"),
    [
        (1, 1, (2, 2, D.EXCHANGE), "equal"),  # equal, both 1
        (7, 7, (2, 2, D.MOLDY), "equal"),  # equal, above 1
        (1, 9, (2, 0, D.EXCHANGE), "one"),  # one is 1, other above 1
        (9, 1, (0, 2, D.EXCHANGE), "one"),
        (3, 12, (2, 0, D.MOLDY), "divides"),  # a divides b, a above 1
        (12, 3, (0, 2, D.MOLDY), "divides"),
        (2, 4, (2, 0, D.MOLDY), "divides"),
        (4, 6, (1, 1, D.MOLDY), "shared factor"),  # common factor, neither divides
        (10, 15, (1, 1, D.MOLDY), "shared factor"),
        (4, 9, (0, 0, D.EXCHANGE), "coprime"),  # coprime, both above 1
        (7, 11, (0, 0, D.EXCHANGE), "coprime"),
    ],
)
def test_resolution_table(a: int, b: int, expected: tuple[int, int, str], label: str) -> None:
    assert D.resolve(a, b) == expected
    assert D.describe(a, b) == label


@given(st.integers(1, 25), st.integers(1, 25))
def test_resolution_is_symmetric(a: int, b: int) -> None:
    pa, pb, kind = D.resolve(a, b)
    assert D.resolve(b, a) == (pb, pa, kind)
    assert D.describe(a, b) == D.describe(b, a)


def test_a_resolved_pairing_moves_the_cards() -> None:
    state = D.new_game(2, {"m": 12}, 0)
    state = pick(state, 0, 3)
    assert stored(state.events) == ({"type": "picked", "seat": 0},)
    state = pick(state, 1, 12)  # 3 divides 12: +2 to seat 1 (index 0), both cards go moldy
    resolved = events_of(state, "resolved")[0]
    assert resolved == {
        "type": "resolved",
        "seats": [0, 1],
        "cards": [3, 12],
        "points": [2, 0],
        "kind": "moldy",
        "label": "divides",
    }
    assert state.scores == (2, 0)
    assert state.moldy == ((3,), (12,))
    assert 3 not in state.fresh[0] and 12 not in state.fresh[1]
    state = pick(pick(state, 0, 1), 1, 5)  # 1 against 5: +2 to the 1, exchanged
    assert state.scores == (4, 0)
    assert Counter(state.fresh[0])[5] == 2 and 1 not in state.fresh[0]
    assert 1 in state.fresh[1] and 5 not in state.fresh[1]
    assert dict(D.view_for(state, 0).hand)[5] == 2  # counts per value: exchanges make duplicates


# ---- the schedule -----------------------------------------------------------------------------------


def test_schedule_four_players_as_rules_md() -> None:
    seats = [1, 2, 3, 4]
    assert D.round_pairings(seats, 0) == [(1, 4), (2, 3)]
    assert D.round_pairings(seats, 1) == [(1, 3), (2, 4)]
    assert D.round_pairings(seats, 2) == [(1, 2), (3, 4)]
    assert D.round_pairings(seats, 3) == D.round_pairings(seats, 0)  # cycle after cycle


def test_schedule_three_players_as_rules_md() -> None:
    seats = [1, 2, 3]
    assert D.round_pairings(seats, 0) == [(2, 3)]
    assert D.round_pairings(seats, 1) == [(1, 3)]
    assert D.round_pairings(seats, 2) == [(1, 2)]
    assert D.round_pairings(seats, 3) == [(2, 3)]


@pytest.mark.parametrize("n", range(2, 9))
def test_every_pair_meets_once_per_cycle(n: int) -> None:
    per_cycle = D.rounds_per_cycle(n)
    met: list[tuple[int, int]] = []
    for r in range(per_cycle):
        pairs = D.round_pairings(range(n), r)
        seats = [s for p in pairs for s in p]
        assert len(seats) == len(set(seats))  # a round shares no player
        met.extend(pairs)
    assert sorted(met) == [(a, b) for a in range(n) for b in range(a + 1, n)]


def test_new_game_announces_the_first_round() -> None:
    state = D.new_game(3, {}, 0)
    assert state.m == 12
    assert stored(state.events) == ({"type": "round", "cycle": 1, "round": 1, "pairings": [[1, 2]]},)
    assert D.to_act(state) == {1, 2}
    assert D.legal_actions(state, 0) == []
    assert D.legal_actions(state, 1)[-1] == {"type": "drop"}
    assert [a["card"] for a in D.legal_actions(state, 1)[:-1]] == list(range(1, 13))


def test_rounds_skip_pairings_with_players_out() -> None:
    # Four players; seat 4 (index 3) drops during round 1 ({1-4, 2-3}): round 2 is {1-3, 2-4}
    # without 2-4, round 3 {1-2, 3-4} without 3-4.
    state = D.new_game(4, {"m": 5}, 0)
    state = D.apply(state, 3, {"type": "drop"})
    assert events_of(state, "void") == [{"type": "void", "seats": [0, 3], "by": 3}]
    assert D.to_act(state) == {1, 2}
    state = pick(pick(state, 1, 2), 2, 3)
    assert state.pairings == ((0, 2),)
    assert events_of(state, "round") == [{"type": "round", "cycle": 1, "round": 2, "pairings": [[0, 2]]}]
    state = pick(pick(state, 0, 2), 2, 5)
    assert state.pairings == ((0, 1),)


def test_rounds_left_with_no_pairing_are_skipped() -> None:
    # Three players, seat 1 (index 0) drops: only 2-3 remains, which is round 1 of every cycle.
    state = D.new_game(3, {"m": 5}, 0)
    state = D.apply(state, 0, {"type": "drop"})
    assert state.pairings == ((1, 2),)
    state = pick(pick(state, 1, 2), 2, 3)  # coprime: exchanged
    assert state.round_no == 3 and state.pairings == ((1, 2),)
    assert events_of(state, "round") == [{"type": "round", "cycle": 2, "round": 1, "pairings": [[1, 2]]}]


# ---- the end --------------------------------------------------------------------------------------


def test_dead_ends_the_game() -> None:
    # m = 3: 2 against 2 and 3 against 3 go moldy; only the 1s are left, nothing can go moldy again.
    state = D.new_game(2, {"m": 3}, 0)
    state = pick(pick(state, 0, 2), 1, 2)
    assert not state.finished  # 3 and 3 share a factor
    state = pick(pick(state, 0, 3), 1, 3)
    assert state.end_reason == D.END_DEAD
    assert events_of(state, "end") == [{"type": "end", "reason": "dead"}]
    assert D.to_act(state) == frozenset()
    outcome = D.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0, 1) and outcome.scores == (4, 4)
    assert "factor" in outcome.reason


def test_dead_counts_every_card_together() -> None:
    assert D.is_dead([1, 1, 5, 7, 9, 4, 1])
    assert not D.is_dead([1, 5, 5])  # equal cards share a factor
    assert not D.is_dead([4, 9, 6])
    assert D.is_dead([])


def hand_built(n: int, m: int, fresh: list[list[int]], **changes: Any) -> D.State:
    """A state in round 1 with the given fresh piles; the other cards are in their owners' moldy piles."""
    base = D.new_game(n, {"m": m}, 0)
    moldy = [sorted((Counter(range(1, m + 1)) - Counter(f)).elements()) for f in fresh]
    status = tuple(D.IN if f else D.EMPTY for f in fresh)
    state = replace(
        base,
        fresh=tuple(tuple(sorted(f)) for f in fresh),
        moldy=tuple(tuple(x) for x in moldy),
        status=status,
        events=(),
        **changes,
    )
    return round_trip(state)  # validates the hand-built state


def test_dead_by_a_hand_built_state() -> None:
    # Three players, round 1 pairs seats 2-3 (indices 1, 2). After 4 against 6 (shared factor, moldy),
    # the fresh cards left are 1, 5, 9, 7 and 1: pairwise coprime, so the game is dead.
    state = hand_built(3, 9, [[1, 5], [9, 4], [6, 7, 1]], pairings=((1, 2),))
    state = pick(pick(state, 1, 4), 2, 6)
    assert state.end_reason == D.END_DEAD
    assert state.scores == (0, 1, 1)


def test_no_progress_ends_the_game() -> None:
    # m = 2, two players (one round per cycle): 1 against 2 twice, both exchanges, so no card goes
    # moldy in 2 full cycles. The fresh piles always hold two 2s, so "dead" never fires.
    state = D.new_game(2, {"m": 2}, 0)
    state = pick(pick(state, 0, 1), 1, 2)
    assert not state.finished and state.quiet_cycles == 1
    assert state.fresh == ((2, 2), (1, 1))
    state = pick(pick(state, 0, 2), 1, 1)
    assert state.end_reason == D.END_NO_PROGRESS
    outcome = D.outcome(state)
    assert outcome is not None and outcome.winners == (0, 1)
    assert "2 full cycles" in outcome.reason


def test_a_moldy_card_resets_the_quiet_count() -> None:
    state = D.new_game(2, {"m": 3}, 0)
    state = pick(pick(state, 0, 1), 1, 2)  # exchange
    assert state.quiet_cycles == 1
    state = pick(pick(state, 0, 3), 1, 3)  # moldy
    assert state.quiet_cycles == 0


def test_an_emptied_pile_puts_the_player_out() -> None:
    state = hand_built(3, 4, [[1, 2, 3, 4], [4], [2, 3]], pairings=((1, 2),))
    state = pick(pick(state, 1, 4), 2, 2)  # 2 divides 4: +2 to seat 3, both moldy
    assert {"type": "out", "seat": 1, "reason": "empty"} in stored(state.events)
    assert state.status[1] == D.EMPTY
    assert state.pairings == ((0, 2),)  # round 2 is 1-3; round 3 (1-2) will be skipped
    with pytest.raises(IllegalMove, match="fresh pile is empty"):
        pick(state, 1, 4)


def test_a_player_out_of_cards_can_still_win() -> None:
    state = hand_built(3, 4, [[1, 2, 3, 4], [4], [2, 3]], pairings=((1, 2),), scores=(0, 10, 0))
    state = pick(pick(state, 1, 4), 2, 2)  # seat 2 (index 1) is out with 10 points
    state = pick(pick(state, 0, 3), 2, 3)  # equal: +2 each; seat 3 is out of cards too
    assert state.end_reason == D.END_PLAYERS
    outcome = D.outcome(state)
    assert outcome is not None
    assert outcome.winners == (1,) and outcome.scores == (2, 10, 4)


# ---- drop and forfeit -------------------------------------------------------------------------------


def test_drop_mid_pairing_voids_it_and_keeps_the_opponents_card() -> None:
    state = D.new_game(2, {"m": 6}, 0)
    state = pick(pick(state, 0, 6), 1, 3)  # 3 divides 6: +2 to seat 2
    state = pick(state, 0, 5)
    before = state.fresh[0]
    state = D.apply(state, 1, {"type": "drop"})
    assert stored(state.events) == (
        {"type": "out", "seat": 1, "reason": "dropped"},
        {"type": "void", "seats": [0, 1], "by": 1},
        {"type": "end", "reason": "players"},
    )
    assert state.fresh[0] == before and 5 in state.fresh[0]  # the pending 5 never left the pile
    assert state.picks == (None, None)
    assert state.left[1] == (1, 2, 4, 5, 6)
    assert state.last_results[-1].kind == D.VOID and state.last_results[-1].cards is None
    outcome = D.outcome(state)
    assert outcome is not None and outcome.winners == (1,)  # a dropped player keeps score and can win
    assert "5" not in json.dumps(stored(state.events))  # the void pick is never revealed


def test_drop_from_a_waiting_seat_is_accepted() -> None:
    state = D.new_game(3, {"m": 4}, 0)  # seat 1 (index 0) has the bye
    assert 0 not in D.to_act(state)
    state = D.apply(state, 0, {"type": "drop"})
    assert state.status[0] == D.DROPPED
    assert D.to_act(state) == {1, 2}


def test_forfeit_cannot_win_even_with_the_best_score() -> None:
    state = D.new_game(3, {"m": 4}, 0)
    state = pick(pick(state, 1, 2), 2, 4)  # +2 to seat 2 (index 1)
    state = D.forfeit(state, 1)
    assert state.status[1] == D.FORFEITED
    assert {"type": "out", "seat": 1, "reason": "forfeited"} in stored(state.events)
    assert state.pairings == ((0, 2),)
    state = D.forfeit(state, 2)
    assert state.end_reason == D.END_PLAYERS
    outcome = D.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0,) and outcome.scores == (0, 2, 0)
    assert outcome.reason == "every other player left the game"


def test_forfeit_mid_pairing_voids_it() -> None:
    state = D.new_game(4, {"m": 4}, 0)  # {1-4, 2-3}
    state = pick(state, 1, 3)
    state = D.forfeit(state, 2)
    assert {"type": "void", "seats": [1, 2], "by": 2} in stored(state.events)
    assert 3 in state.fresh[1] and state.picks[1] is None
    assert D.to_act(state) == {0, 3}


def test_forfeit_after_dropping_takes_away_the_win() -> None:
    state = D.new_game(2, {"m": 4}, 0)
    state = pick(pick(state, 0, 2), 1, 4)  # +2 to seat 1
    state = D.apply(state, 0, {"type": "drop"})
    assert state.finished
    assert D.forfeit(state, 0).events == ()  # the game is over: nothing changes
    state2 = hand_built(3, 4, [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]])
    state2 = D.apply(state2, 0, {"type": "drop"})
    state2 = D.forfeit(state2, 0)
    assert state2.status[0] == D.FORFEITED
    assert stored(state2.events) == ({"type": "out", "seat": 0, "reason": "forfeited"},)
    assert D.forfeit(state2, 0).events == ()


# ---- bad input ----------------------------------------------------------------------------------------


def test_bad_input_changes_nothing() -> None:
    state = D.new_game(3, {"m": 6}, 0)  # round 1: 2-3; seat 1 (index 0) has the bye
    state = pick(pick(state, 1, 2), 2, 4)  # 2 divides 4 -> round 2: 1-3
    unchanged_after(D, state, 0, {"type": "pick", "card": 9}, BadInput, "Cards run from 1 to 6")
    unchanged_after(
        D,
        state,
        2,
        {"type": "pick", "card": 4},
        IllegalMove,
        r"no 4 in your fresh pile\. Your cards: 1, 2, 3, 5, 6\.",
    )
    unchanged_after(D, state, 1, {"type": "pick", "card": 3}, NotYourTurn, "no pairing left in this round")
    unchanged_after(D, state, 0, {"type": "pick", "card": "3"}, BadInput, "whole number")
    unchanged_after(D, state, 0, {"type": "pick"}, BadInput, "whole number")
    unchanged_after(D, state, 0, {"type": "flip"}, BadInput, "pick a card")
    unchanged_after(D, state, 0, "pick 3", BadInput, "could not be read")
    picked = pick(state, 0, 3)
    unchanged_after(D, picked, 0, {"type": "pick", "card": 5}, NotYourTurn, "already picked")
    dropped = D.apply(state, 1, {"type": "drop"})
    unchanged_after(D, dropped, 1, {"type": "pick", "card": 3}, IllegalMove, "dropped out")
    unchanged_after(D, dropped, 1, {"type": "drop"}, IllegalMove, "dropped out")
    over = D.apply(dropped, 0, {"type": "drop"})
    assert over.finished
    unchanged_after(D, over, 2, {"type": "pick", "card": 3}, IllegalMove, "game is over")
    unchanged_after(D, over, 2, {"type": "drop"}, IllegalMove, "game is over")


def test_from_dict_rejects_broken_states() -> None:
    good = D.new_game(3, {"m": 5}, 0).to_dict()
    for key, value in [
        ("m", 30),
        ("fresh", [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4]]),  # a card vanished
        ("status", ["in", "in", "gone"]),
        ("pairings", [[0, 1]]),  # not in round 1 of the schedule
        ("picks", [3, None, None]),  # seat 0 is not in a pairing
        ("scores", [0, -1, 0]),
    ]:
        bad = copy.deepcopy(good)
        bad[key] = value
        with pytest.raises(ValueError):
            D.State.from_dict(bad)


# ---- views ------------------------------------------------------------------------------------------


def test_views_show_a_pick_only_to_its_owner() -> None:
    state = D.new_game(4, {"m": 5}, 0)  # {1-4, 2-3}
    state = pick(state, 0, 4)
    public = D.view_for(state, None)
    assert public.picked == {0} and public.to_act == {1, 2, 3}
    assert public.hand == () and public.pending is None
    mine = D.view_for(state, 0)
    assert mine.pending == 4 and mine.hand == ((1, 1), (2, 1), (3, 1), (4, 1), (5, 1))
    theirs = D.view_for(state, 3)
    assert theirs.pending is None and theirs.hand_cards == (1, 2, 3, 4, 5)
    assert stored(public.events) == ({"type": "picked", "seat": 0},)


# ---- properties of random games -------------------------------------------------------------------


def scrambled(state: D.State) -> D.State:
    """The same public position with every secret changed: other pending cards, and fresh piles whose
    contents differ (same sizes). A view that depends on a secret tells the two apart."""
    picks = list(state.picks)
    for s, p in enumerate(picks):
        if p is not None:
            others = [c for c in state.fresh[s] if c != p]
            if others:
                picks[s] = others[0]
    fresh = list(state.fresh)
    # Swap the fresh piles' contents between two seats with equal pile sizes and no pending picks.
    free = [s for s in range(state.n_players) if state.picks[s] is None and fresh[s]]
    for a in free:
        for b in free:
            if a < b and len(fresh[a]) == len(fresh[b]) and fresh[a] != fresh[b]:
                fresh[a], fresh[b] = fresh[b], fresh[a]
                return replace(state, picks=tuple(picks), fresh=tuple(fresh))
    return replace(state, picks=tuple(picks))


def check_views(state: D.State) -> None:
    other = scrambled(state)
    assert D.view_for(other, None) == D.view_for(state, None)
    for seat in range(state.n_players):
        if other.fresh[seat] == state.fresh[seat] and other.picks[seat] == state.picks[seat]:
            assert D.view_for(other, seat) == D.view_for(state, seat)
    for e in stored(state.events):
        if e["type"] in ("picked", "void"):
            assert "card" not in e and "cards" not in e


def play_random(n: int, m: int, seed: int, leave_rate: float = 0.004) -> int:
    rng = random.Random(seed)
    state = D.new_game(n, {"m": m}, seed)
    steps = 0
    while D.outcome(state) is None:
        steps += 1
        assert steps < 100_000
        acting = sorted(D.to_act(state))
        assert acting
        before = state
        roll = rng.random()
        if roll < leave_rate:
            seat = rng.randrange(n)
            state = D.forfeit(state, seat)
        elif roll < 2 * leave_rate:
            seat = rng.choice(acting)
            state = D.apply(state, seat, {"type": "drop"})
        else:
            seat = rng.choice(acting)
            picks = [a for a in D.legal_actions(state, seat) if a["type"] == "pick"]
            state = D.apply(state, seat, rng.choice(picks))
        # Cards are conserved: each of the n*m cards is in exactly one pile or left play.
        every = Counter(c for piles in (state.fresh, state.moldy, state.left) for p in piles for c in p)
        assert every == Counter({v: n for v in range(1, m + 1)})
        # Scores only grow, by exactly the table's points of this step's resolved pairings.
        gained = [0] * n
        for e in events_of(state, "resolved"):
            a, b = e["seats"]
            pa, pb, kind = D.resolve(*e["cards"])
            assert e["points"] == [pa, pb] and e["kind"] == kind
            gained[a] += pa
            gained[b] += pb
        assert [y - x for x, y in zip(before.scores, state.scores, strict=True)] == gained
        round_trip(state)
        check_views(state)
    assert D.to_act(state) == frozenset()
    assert isinstance(state.end_reason, D.EndReason)
    return steps


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 8), m=st.integers(2, 25), seed=st.integers(0, 10**6))
def test_random_games(n: int, m: int, seed: int) -> None:
    play_random(n, m, seed)


@pytest.mark.parametrize("n", range(2, 9))
def test_seeded_playouts_terminate(n: int) -> None:
    """Nobody leaves: the games run until a termination rule (or empty piles) end them."""
    for seed in range(3):
        play_random(n, [2, 12, 25][seed], seed, leave_rate=0.0)
