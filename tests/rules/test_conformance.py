"""One conformance suite for every registered game: seeded random playouts to the end, checking that
legal actions are accepted, that the state round-trips through JSON, that nobody outside `to_act` may
act, that the game ends with an outcome, and that replaying the actions reproduces the state."""

from __future__ import annotations

import json
import random
from types import ModuleType
from typing import Any

import pytest

from bot.errors import GameError
from bot.registry import RULES
from bot.rules import play

GAMES = sorted(RULES)


def playout(
    rules: ModuleType, players: int, seed: int, rng: random.Random
) -> tuple[Any, list[tuple[int, dict]]]:
    options = {o.name: rng.randint(o.min, min(o.max, o.min + 4)) for o in rules.OPTIONS}
    state = rules.new_game(players, options, seed)
    log: list[tuple[int, dict]] = []
    for _ in range(20_000):
        if rules.outcome(state) is not None:
            break
        acting = sorted(rules.to_act(state))
        assert acting, "a game without an outcome must have someone to act"
        for seat in range(players):
            if seat not in acting:
                assert rules.legal_actions(state, seat) == []
        seat = rng.choice(acting)
        if rng.random() < 0.01:
            action: dict = {"type": "forfeit"}
        else:
            legal = rules.legal_actions(state, seat)
            assert legal, f"seat {seat} must act but has no legal action"
            action = dict(rng.choice(legal))
        state = play(rules, state, seat, action)
        log.append((seat, action))
        assert rules.State.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    else:
        pytest.fail("the game did not end")
    return state, log


@pytest.mark.parametrize("kind", GAMES)
def test_random_playouts_end_and_replay(kind: str) -> None:
    rules = RULES[kind]
    rng = random.Random(kind)
    for game in range(25):
        players = rng.randint(rules.MIN_PLAYERS, rules.MAX_PLAYERS)
        state, log = playout(rules, players, seed=game, rng=rng)
        assert rules.to_act(state) == frozenset()
        replayed = rules.new_game(players, _options(state, rules), game)
        for seat, action in log:
            replayed = play(rules, replayed, seat, action)
        assert replayed == state


def _options(state: Any, rules: ModuleType) -> dict[str, int]:
    return {o.name: getattr(state, o.name) for o in rules.OPTIONS}


@pytest.mark.parametrize("kind", GAMES)
def test_nobody_outside_to_act_can_move(kind: str) -> None:
    rules = RULES[kind]
    players = rules.MIN_PLAYERS + (1 if rules.MAX_PLAYERS > rules.MIN_PLAYERS else 0)
    state = rules.new_game(players, {}, 1)
    acting = rules.to_act(state)
    some_action = rules.legal_actions(state, min(acting))[0]
    for seat in set(range(players)) - acting:
        with pytest.raises(GameError):
            rules.apply(state, seat, some_action)


@pytest.mark.parametrize("kind", GAMES)
def test_from_dict_rejects_garbage(kind: str) -> None:
    rules = RULES[kind]
    for garbage in [{}, {"n_players": "x"}, {"n_players": 2}]:
        with pytest.raises(ValueError):
            rules.State.from_dict(garbage)
