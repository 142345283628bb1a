"""The Up-Down-Stay computer player: legal moves at every level in whole games (every seat a computer,
forfeits and playoffs included), no peeking (states with the same view give the same choice),
reproducible from the seed, a bounded amount of work per decision, and its tactics on hand-built rows."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from bot.players import LEVELS
from bot.registry import choose as choose_for
from bot.rules import play
from cogs.updown import player as p
from cogs.updown import rules as u


def legal(state: u.State, seat: int, action: dict[str, Any]) -> None:
    """The action is one the rules accept now (a prediction of 1..R-1 letters, or a held rank)."""
    if action["type"] == "predict":
        assert action == {"type": "predict", "letters": action["letters"]}
        assert 1 <= len(action["letters"]) <= state.max_letters
        assert set(action["letters"]) <= set("UDS")
    else:
        assert action in u.legal_actions(state, seat)


def scrambled(state: u.State, seat: int, rng: random.Random) -> u.State:
    """The same game with every secret of ``seat`` changed: other hands dealt differently (same sizes)
    unless it is a two-player deal, the set-aside cards too, and the others' predictions rewritten."""
    others = [s for s in range(state.n_players) if s != seat]
    predictions = list(state.predictions)
    for s in others:
        if predictions[s] is not None:
            predictions[s] = rng.choice(["S", "UUUUUU", "DS"])
    hands, leftover = list(state.hands), state.leftover
    if not (len(state.players) == 2 and seat in state.active):
        pool = [c for s in others for c in hands[s]] + list(leftover)
        rng.shuffle(pool)
        for s in others:
            k = len(hands[s])
            hands[s], pool = u.sort_cards(pool[:k]), pool[k:]
        leftover = u.sort_cards(pool)
    out = dataclasses.replace(state, hands=tuple(hands), predictions=tuple(predictions), leftover=leftover)
    return u.State.from_dict(out.to_dict())


def game(levels: list[str], seed: int, forfeits: bool = False, check_peeking: bool = False) -> list[Any]:
    """A whole game with a computer of ``levels[s]`` in each seat; the list of actions taken."""
    rng = random.Random(seed)
    state = u.new_game(len(levels), {}, seed)
    actions: list[Any] = []
    while u.outcome(state) is None:
        if forfeits and rng.random() < 0.005 and len(state.active) > 2:
            state = play(u, state, rng.choice(state.active), {"type": "forfeit"})
            continue
        seat = min(u.to_act(state))
        choice_seed = rng.getrandbits(32)
        action = p.choose(u.view_for(state, seat), levels[seat], random.Random(choice_seed))
        legal(state, seat, action)
        if check_peeking:
            other = scrambled(state, seat, rng)
            assert other != state or len(state.players) == 2
            again = p.choose(u.view_for(other, seat), levels[seat], random.Random(choice_seed))
            assert again == action
        state = play(u, state, seat, action)
        actions.append((seat, action))
    return actions


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n_players", [2, 3, 4, 7, 10])
def test_every_level_plays_whole_games_legally(level: str, n_players: int) -> None:
    for seed in range(3):
        game([level] * n_players, seed=1000 * n_players + seed, forfeits=True)


def test_mixed_levels_through_the_players_package() -> None:
    rng = random.Random(5)
    for seed in range(20):
        levels = [rng.choice(LEVELS) for _ in range(rng.randint(2, 5))]
        state = u.new_game(len(levels), {}, seed)
        while u.outcome(state) is None:
            seat = min(u.to_act(state))
            action = choose_for("updown", u.view_for(state, seat), levels[seat], rng)
            legal(state, seat, action)
            state = play(u, state, seat, action)


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_no_peeking_same_view_same_choice(n_players: int) -> None:
    for seed in range(4):
        levels = [LEVELS[(seed + s) % 3] for s in range(n_players)]
        game(levels, seed=77 + seed, check_peeking=True)


def test_reproducible_from_the_seed() -> None:
    for levels in (["hard", "normal"], ["hard", "easy", "normal", "hard"]):
        assert game(levels, seed=42) == game(levels, seed=42)
    # and the rng matters: different seeds give different games
    assert game(["hard", "hard"], seed=1) != game(["hard", "hard"], seed=2)


def test_work_per_decision_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """No search: a card choice scores each distinct held rank once (at most 13), each score a scan of
    the prediction (at most HARD_MAX_LETTERS letters) and of the row."""
    calls = {"progress": 0, "chance": 0}
    real_progress, real_chance = p.progress, p.next_letter_chance

    def counted_progress(*args: Any) -> int:
        calls["progress"] += 1
        return real_progress(*args)

    def counted_chance(*args: Any) -> float:
        calls["chance"] += 1
        return real_chance(*args)

    monkeypatch.setattr(p, "progress", counted_progress)
    monkeypatch.setattr(p, "next_letter_chance", counted_chance)
    for n_players in (2, 4):
        state = u.new_game(n_players, {}, 9)
        rng = random.Random(9)
        while u.outcome(state) is None:
            seat = min(u.to_act(state))
            view = u.view_for(state, seat)
            calls.update(progress=0, chance=0)
            action = p.choose(view, "hard", rng)
            if action["type"] == "predict":
                assert len(action["letters"]) <= p.HARD_MAX_LETTERS
            distinct = len({u.card_rank(c) for c in view.hand or ()})
            assert calls["progress"] <= distinct <= 13 and calls["chance"] <= distinct
            state = play(u, state, seat, action)


# ---- tactics ----------------------------------------------------------------------------------------


def placing(hands: dict[int, list[str]], row: list[str], predictions: dict[int, str], n_players: int = 2):
    """A place-phase state with ``row`` already placed (placers in seat order) and these hands."""
    placers = tuple(i % n_players for i in range(len(row)))
    state = u.State(
        n_players=n_players,
        seed=0,
        deal=0,
        players=tuple(range(n_players)),
        hands=tuple(u.sort_cards(hands.get(s, [])) for s in range(n_players)),
        leftover=(),
        predictions=tuple(predictions.get(s) for s in range(n_players)),
        phase="place",
        row=tuple(row),
        placers=placers,
        turn=len(row) % n_players,
    )
    return u.State.from_dict(state.to_dict())


def test_predictions_by_level() -> None:
    view = u.view_for(u.new_game(3, {}, 1), 0)
    for seed in range(20):
        easy = p.predict(view, "easy", random.Random(seed))
        assert 2 <= len(easy) <= 3 and set(easy) <= {"U", "D"}
        assert p.predict(view, "normal", random.Random(seed)) in ("UDUDU", "DUDUD")
        assert p.predict(view, "hard", random.Random(seed)) in ("UDUDUD", "DUDUDU")
    assert len(p.predict(u.view_for(u.new_game(2, {}, 1), 0), "hard", random.Random(0))) == 7


def test_hard_outbids_the_predictions_revealed_in_earlier_deals() -> None:
    """In a playoff the others' earlier predictions are public: hard writes one letter more."""
    rng = random.Random(3)
    state = u.new_game(2, {}, 3)
    state = play(u, state, 0, {"type": "predict", "letters": "UDUDUDUDU"})
    state = play(u, state, 1, {"type": "predict", "letters": "UDUDUDUDU"})
    while state.deal == 0 and u.outcome(state) is None:
        seat = state.turn
        state = play(u, state, seat, p.choose(u.view_for(state, seat), "easy", rng))
    assert state.history[0].result == "playoff"  # equal predictions score equally
    assert len(p.predict(u.view_for(state, 0), "hard", rng)) == 10


def test_hard_steers_towards_its_prediction_and_forces_the_next_change() -> None:
    """Row ..5, 9 (an up): hard wants a down then an up; of its downs it plays the lowest card, so
    that the opponent (holding a 3 and a 7) must go up."""
    state = placing(
        {0: ["2C", "4C", "KC"], 1: ["3D", "7D"]}, ["5C", "9C"], {0: "DUDUDUD", 1: "U"}, n_players=2
    )
    assert p.choose(u.view_for(state, 0), "hard", random.Random(0)) == {"type": "play", "rank": 2}


def test_hard_breaks_zigzags_once_its_prediction_occurred() -> None:
    row = ["AC", "3C", "2C", "5C", "4C", "6C", "5D", "7C", "3D"]  # UDUDUDUD: hard's "UDUDU" occurred
    state = placing({0: ["AD", "2D", "KC"], 1: ["8C", "9C"]}, row, {0: "UDUDU", 1: "UDUDUDUDUD"})
    # the last change is a down: repeating it (A or 2) breaks the zigzag; K would continue it
    assert p.choose(u.view_for(state, 0), "hard", random.Random(0))["rank"] in (1, 2)


def test_helpers() -> None:
    assert p.zigzag(5, "D") == "DUDUD"
    assert p.progress("SSUDU", "UDUDU") == 3
    assert p.progress("UDUDUS", "UDUDU") == 5
    assert p.progress("", "UD") == 0
    assert p.zigzag_tail("UUDUD") == 4 and p.zigzag_tail("UDS") == 0 and p.zigzag_tail("") == 0
