"""The computer player of The Numerical Card Game: legal in whole games at every level and in every
seat, blind to everything its view hides (other piles, pending picks), reproducible from its seed,
bounded in work, and dropping exactly when a drop wins."""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from bot.players import LEVELS
from cogs.divisors import player as P
from cogs.divisors import rules as D


def play_game(levels: list[str], m: int, seed: int, check: Any = None) -> D.State:
    """A whole game with one computer level per seat; every action must be listed as legal."""
    rng = random.Random(seed)
    state = D.new_game(len(levels), {"m": m}, 0)
    moves = 0
    while D.outcome(state) is None:
        seat = rng.choice(sorted(D.to_act(state)))
        view = D.view_for(state, seat)
        if check is not None:
            check(state, seat)
        action = P.choose(view, levels[seat], random.Random(rng.getrandbits(32)))
        assert action in D.legal_actions(state, seat), (action, view)
        state = D.apply(state, seat, action)
        moves += 1
        assert moves < 20_000
    return state


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_level_plays_whole_games_legally(n: int) -> None:
    for seed in range(6):
        levels = [LEVELS[(seed + s) % 3] for s in range(n)]
        state = play_game(levels, m=[12, 8, 5][seed % 3], seed=seed)
        assert state.finished


def test_a_game_of_computers_only_at_each_level() -> None:
    for level in LEVELS:
        for n in (3, 4):
            assert play_game([level] * n, m=12, seed=n).finished


# ---- no peeking ------------------------------------------------------------------------------------


def hidden_shuffle(state: D.State, seat: int, rng: random.Random) -> D.State:
    """Another state the seat cannot tell from ``state``: the other seats' fresh and moldy cards
    dealt out anew (same pile sizes) and their pending picks chosen anew."""
    others = [s for s in range(state.n_players) if s != seat]
    fresh = list(state.fresh)
    moldy = list(state.moldy)
    for piles in (fresh, moldy):
        pool = [c for s in others for c in piles[s]]
        rng.shuffle(pool)
        for s in others:
            size = len(piles[s])
            piles[s], pool = tuple(sorted(pool[:size])), pool[size:]
    picks = list(state.picks)
    for s in others:
        if picks[s] is not None:
            picks[s] = rng.choice(fresh[s])
    other = replace(state, fresh=tuple(fresh), moldy=tuple(moldy), picks=tuple(picks))
    return D.State.from_dict(other.to_dict())  # validates


def test_no_peeking_same_view_same_choice() -> None:
    rng = random.Random(7)
    compared = 0

    def check(state: D.State, seat: int) -> None:
        nonlocal compared
        if rng.random() > 0.3:
            return
        twin = hidden_shuffle(state, seat, rng)
        view = D.view_for(state, seat)
        assert D.view_for(twin, seat) == view
        hidden_differs = twin.fresh != state.fresh or twin.picks != state.picks
        for level in LEVELS:
            seed = rng.getrandbits(32)
            assert P.choose(view, level, random.Random(seed)) == P.choose(
                D.view_for(twin, seat), level, random.Random(seed)
            )
        compared += hidden_differs

    for n, seed in ((3, 1), (4, 2), (5, 3)):
        play_game(["hard", "normal", "easy", "normal", "hard"][:n], m=12, seed=seed, check=check)
    assert compared > 50


def test_a_pending_pick_of_the_opponent_changes_nothing() -> None:
    state = D.new_game(3, {"m": 12}, 0)  # round 1 pairs seats 1 and 2 (0-based)
    for card in range(1, 13):
        picked = D.apply(state, 2, {"type": "pick", "card": card})
        for level in LEVELS:
            assert P.choose(D.view_for(picked, 1), level, random.Random(5)) == P.choose(
                D.view_for(state, 1), level, random.Random(5)
            )


# ---- reproducible and bounded ----------------------------------------------------------------------


def test_the_same_seed_gives_the_same_choice() -> None:
    def check(state: D.State, seat: int) -> None:
        view = D.view_for(state, seat)
        for level in LEVELS:
            first = P.choose(view, level, random.Random(11))
            assert all(P.choose(view, level, random.Random(11)) == first for _ in range(3))

    play_game(["normal", "hard", "easy", "normal"], m=12, seed=4, check=check)


def test_a_choice_costs_at_most_m_squared_evaluations(monkeypatch: pytest.MonkeyPatch) -> None:
    """normal weighs each card against each value: at most m x m `worth` calls. hard does that for
    the opponent's side once and for its own answer once, and draws a fixed number of hands."""
    calls = hands = 0
    real_worth, real_sample = P.worth, P.CardModel.sample_hands

    def counted(*args: Any) -> float:
        nonlocal calls
        calls += 1
        return real_worth(*args)

    def sampled(self: P.CardModel, view: Any, seat: int, count: int, rng: random.Random) -> list[list[int]]:
        nonlocal hands
        hands += count
        return real_sample(self, view, seat, count, rng)

    monkeypatch.setattr(P, "worth", counted)
    monkeypatch.setattr(P.CardModel, "sample_hands", sampled)
    worst = dict.fromkeys(LEVELS, 0)

    def check(state: D.State, seat: int) -> None:
        nonlocal calls, hands
        for level in LEVELS:
            calls = hands = 0
            P.choose(D.view_for(state, seat), level, random.Random(0))
            worst[level] = max(worst[level], calls)
            assert calls <= (2 if level == "hard" else 1) * state.m * state.m
            assert hands <= (P.PREDICTION_HANDS if level == "hard" else 0)

    play_game(["hard", "normal", "normal", "hard", "easy"], m=25, seed=9, check=check)
    assert 0 < worst["normal"] < worst["hard"]


# ---- dropping --------------------------------------------------------------------------------------


def two_left(scores: tuple[int, ...]) -> D.State:
    """Three seats, seat 0 dropped; seats 1 and 2 in play and about to meet."""
    state = D.new_game(3, {"m": 6}, 0)  # round 1: seats 1-2, seat 0 has the bye
    state = D.apply(state, 0, {"type": "drop"})
    return replace(state, scores=scores)


def test_drops_when_that_wins_at_once() -> None:
    state = two_left((4, 6, 5))
    assert P.drop_wins(D.view_for(state, 1))
    for level in ("normal", "hard"):
        assert P.choose(D.view_for(state, 1), level, random.Random(0)) == {"type": "drop"}
    assert D.outcome(D.apply(state, 1, {"type": "drop"})) is not None


@pytest.mark.parametrize("scores", [(4, 5, 6), (4, 6, 6), (7, 6, 5)])
def test_no_drop_without_a_sure_win(scores: tuple[int, int, int]) -> None:
    state = two_left(scores)
    for level in LEVELS:
        for seed in range(5):
            assert P.choose(D.view_for(state, 1), level, random.Random(seed))["type"] == "pick"


def test_no_drop_at_the_start() -> None:
    view = D.view_for(D.new_game(4, {"m": 12}, 0), 0)
    for level in LEVELS:
        assert P.choose(view, level, random.Random(1))["type"] == "pick"


# ---- what the seat infers --------------------------------------------------------------------------


def test_an_exchanged_card_is_known_to_its_new_holder() -> None:
    state = D.new_game(4, {"m": 12}, 0)  # round 1: {0-3, 1-2}
    state = D.apply(state, 0, {"type": "pick", "card": 1})
    state = D.apply(state, 3, {"type": "pick", "card": 7})  # 1 against 7: exchanged
    view = D.view_for(state, 1)
    assert P.known_cards(view, 0)[7] == 1 and P.known_cards(view, 3)[1] == 1
    model = P.card_model(view)
    assert abs(sum(model.chance) - 1) < 1e-9
    assert dict(model.pile(view, 3))[1] > dict(model.pile(view, 0))[1]


def test_the_hidden_cards_favour_the_1s_once_cards_go_moldy() -> None:
    # Three unseen copies of each of 1..12, of which only 20 are not moldy.
    chance = P._chances(12, (3,) * 12, 20)
    assert abs(sum(chance) - 1) < 1e-9
    assert chance[1] > chance[7] == chance[11] > chance[5] > chance[2] > chance[6] == chance[12]
    assert P._chances(12, (3,) * 12, 36) == (0.0, *(1 / 12,) * 12)  # nothing moldy: all alike


# ---- hard: the opponent as a normal player, and the pile sizes --------------------------------------


def midgame(seed: int, n: int = 4) -> D.State:
    """A game of normal players some rounds in, stopped where seat 0 must pick and its opponent has
    not picked yet."""
    rng = random.Random(seed)
    state = D.new_game(n, {"m": 12}, 0)
    while True:
        seat = min(D.to_act(state))
        view = D.view_for(state, seat)
        if seat == 0 and state.round_no >= 8 and not view.picked:
            return state
        state = D.apply(state, seat, P.choose(view, "normal", rng))
        assert D.outcome(state) is None


def normal_distribution(view: D.View) -> dict[int, float]:
    """The chance of each card to be what ``normal`` picks in ``view`` (its softmax, worked out)."""
    opp = P.opponent_of(view, view.seat)
    assert opp is not None
    scored = P.values(list(view.hand_cards), P.card_model(view).pile(view, opp), P.NORMAL)
    top = max(v for _, v in scored)
    weights = {x: math.exp((v - top) / P.NORMAL.temperature) for x, v in scored}
    total = sum(weights.values())
    return {x: w / total for x, w in weights.items()}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hard_predicts_the_pick_of_a_normal_opponent_holding_a_drawn_hand(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = midgame(seed)
    view = D.view_for(state, 0)
    opp = P.opponent_of(view, 0)
    assert opp is not None
    # Had the card model drawn the opponent's real pile, the prediction is normal's own choice there.
    real = list(state.fresh[opp])
    monkeypatch.setattr(P.CardModel, "sample_hands", lambda *args: [real])
    predicted = dict(P.predicted_pick(view, opp, P.card_model(view), random.Random(0), hands=1))
    truth = normal_distribution(D.view_for(state, opp))
    assert predicted.keys() == truth.keys() == set(real)
    assert all(abs(predicted[x] - truth[x]) < 1e-9 for x in truth)
    # ... which is what normal's `choose` does, drawn many times.
    drawn = Counter(P.choose(D.view_for(state, opp), "normal", random.Random(i))["card"] for i in range(2000))
    assert all(abs(drawn[x] / 2000 - truth[x]) < 0.04 for x in truth)


def test_hard_predicts_over_hands_the_seat_could_hold() -> None:
    for seed in (4, 5):
        state = midgame(seed, n=5)
        view = D.view_for(state, 0)
        opp = P.opponent_of(view, 0)
        assert opp is not None
        model = P.card_model(view)
        hands = model.sample_hands(view, opp, 50, random.Random(seed))
        unseen = Counter({v: c for v, c in enumerate(model.unseen) if c})
        for hand in hands:
            assert len(hand) == len(state.fresh[opp])
            assert not Counter(hand) - unseen - model.known.get(opp, Counter())
        predicted = P.predicted_pick(view, opp, model, random.Random(seed))
        assert abs(sum(p for _, p in predicted) - 1) < 1e-9
        assert all(p > 0 and 1 <= x <= 12 for x, p in predicted)


def test_hard_counts_pile_sizes_only_when_cards_go_moldy() -> None:
    # 6 against 4: a shared factor, both go moldy. Smaller own pile: worse; smaller opponent pile: better.
    assert P.hard_worth(6, 4, 0, 2, 8) < P.hard_worth(6, 4, 0, 5, 8) < P.hard_worth(6, 4, 0, 12, 8)
    assert P.hard_worth(6, 4, 0, 8, 2) > P.hard_worth(6, 4, 0, 8, 5) > P.hard_worth(6, 4, 0, 8, 12)
    # 5 against 4 are exchanged: the sizes do not matter.
    assert P.hard_worth(5, 4, 0, 1, 9) == P.hard_worth(5, 4, 0, 9, 1) == P.worth(5, 4, P.HARD, 0, 9)
