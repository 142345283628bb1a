"""The typed contract: every module fulfils it, typed actions log exactly today's JSON and parse back
from it, applying a typed action equals applying its JSON, and the registry refuses a module that
lacks a piece, naming it."""

from __future__ import annotations

import json
import random
import types
from typing import Any

import pytest

from bot.errors import BadInput, NoGameHere
from bot.registry import RULES, rules_for
from bot.rules import check_rules, play
from bot.rules.base import Forfeit, GameRules, Option, action_json
from cogs.divisors import rules as divisors
from cogs.dots import rules as dots
from cogs.numbers import rules as numbers
from cogs.procession import rules as procession
from cogs.updown import rules as updown

GAMES = sorted(RULES)

# What the bot writes to the move log today, one of each shape (cogs, service, legal_actions).
LOGGED: list[tuple[Any, dict[str, Any], Any]] = [
    (procession, {"type": "flip", "position": 3}, procession.Flip(3)),
    (numbers, {"type": "pick", "number": 42}, numbers.Pick(42)),
    (divisors, {"type": "pick", "card": 7}, divisors.Pick(7)),
    (divisors, {"type": "drop"}, divisors.Drop()),
    (updown, {"type": "predict", "letters": "UDS"}, updown.Predict("UDS")),
    (updown, {"type": "play", "rank": 12}, updown.Play(12)),
    (dots, {"type": "line", "to": "C4", "from": None}, dots.Line("C4")),
    (dots, {"type": "line", "to": "C4", "from": "A1"}, dots.Line("C4", "A1")),
    *((m, {"type": "forfeit"}, Forfeit()) for m in (procession, numbers, divisors, updown, dots)),
    *(
        (m, {"type": "forfeit", "reason": "timeout"}, Forfeit("timeout"))
        for m in (procession, numbers, divisors, updown, dots)
    ),
]


@pytest.mark.parametrize(("rules", "logged", "typed"), LOGGED)
def test_logged_json_parses_to_the_typed_action_and_back_exactly(
    rules: Any, logged: dict[str, Any], typed: Any
) -> None:
    assert rules.parse_action(logged) == typed
    assert list(typed.to_json().items()) == list(logged.items())  # keys in the same order too
    assert json.dumps(typed.to_json()) == json.dumps(logged)
    assert action_json(typed) == action_json(logged) == logged


@pytest.mark.parametrize("kind", GAMES)
def test_typed_and_json_actions_play_alike_through_whole_games(kind: str) -> None:
    rules = RULES[kind]
    rng = random.Random(f"typed {kind}")
    for game in range(6):
        players = rng.randint(rules.MIN_PLAYERS, rules.MAX_PLAYERS)
        options = {o.name: rng.randint(o.min, min(o.max, o.min + 3)) for o in rules.OPTIONS}
        state = rules.new_game(players, options, game)
        while rules.outcome(state) is None:
            seat = rng.choice(sorted(rules.to_act(state)))
            legal = rules.legal_actions(state, seat)
            for data in legal:
                typed = rules.parse_action(data)
                assert typed.to_json() == data
                assert json.loads(json.dumps(data)) == data
            data = dict(rng.choice(legal)) if rng.random() > 0.02 else {"type": "forfeit"}
            typed = rules.parse_action(data)
            after = play(rules, state, seat, data)
            assert play(rules, state, seat, typed) == after
            if not isinstance(typed, Forfeit):
                assert rules.apply(state, seat, typed) == rules.apply(state, seat, data) == after
            state = after


@pytest.mark.parametrize("kind", GAMES)
def test_parse_action_refuses_malformed_json(kind: str) -> None:
    rules = RULES[kind]
    fields = {"flip": "position", "pick": "number" if kind == "numbers" else "card", "play": "rank"}
    malformed: list[Any] = [{}, {"type": 3}, {"type": "castle"}, {"type": "forfeit", "reason": 5}]
    for data in rules.legal_actions(rules.new_game(rules.MIN_PLAYERS, {}, 0), 0):
        for key in data:
            if key == "type":
                continue
            malformed += [
                {**data, key: True},
                {**data, key: 2.5},
                {k: v for k, v in data.items() if k != key},
            ]
            if key in fields.values():
                malformed.append({**data, key: "3"})
    for data in malformed:
        if data.get("from", "") is None or (kind == "dots" and "from" not in data and "to" in data):
            continue  # a line's `from` may be null or left out
        with pytest.raises(BadInput):
            rules.parse_action(data)
    for garbage in ("flip 3", None, 3, ["type", "flip"]):
        with pytest.raises(BadInput, match="could not be read"):
            rules.parse_action(garbage)


@pytest.mark.parametrize("kind", GAMES)
def test_apply_refuses_a_forfeit_and_anything_that_is_not_an_action(kind: str) -> None:
    rules = RULES[kind]
    state = rules.new_game(rules.MIN_PLAYERS, {}, 0)
    seat = min(rules.to_act(state))
    for action in (Forfeit(), {"type": "forfeit"}):  # leaving goes through forfeit (or play)
        with pytest.raises(BadInput):
            rules.apply(state, seat, action)
    for garbage in ("flip 3", None, 3, object()):
        with pytest.raises(BadInput, match="could not be read"):
            rules.apply(state, seat, garbage)


def test_typed_moves_are_checked_like_their_json() -> None:
    state = updown.new_game(2, {}, 0)
    with pytest.raises(BadInput, match="X is not allowed"):
        updown.apply(state, 0, updown.Predict("UXD"))
    with pytest.raises(BadInput, match="no card value 14"):
        updown.apply(state, 0, updown.Play(14))
    assert updown.apply(state, 0, updown.Predict("u d")).predictions[0] == "UD"
    with pytest.raises(BadInput, match="Position 13 does not exist"):
        procession.apply(procession.new_game(2, {}, 0), 0, procession.Flip(13))
    with pytest.raises(BadInput, match="off the grid"):
        dots.apply(dots.new_game(2, {}, 0), 0, dots.Line("Z9", "A1"))


# ---- the registry -----------------------------------------------------------------------------------


def test_registry() -> None:
    assert GAMES == ["divisors", "dots", "numbers", "procession", "updown"]
    for kind, rules in RULES.items():
        assert rules.NAME == kind and isinstance(rules, GameRules)
        assert rules_for(kind) is rules
    with pytest.raises(NoGameHere, match=r"^There is no game called 'chess' here\. The games are: divisors"):
        rules_for("chess")
    with pytest.raises(TypeError):
        RULES["chess"] = procession  # type: ignore[index]


def _copy_of(module: types.ModuleType, **changes: Any) -> types.ModuleType:
    fake = types.ModuleType("cogs.x.rules")
    fake.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    for name, value in changes.items():
        if value is None:
            del fake.__dict__[name]
        else:
            fake.__dict__[name] = value
    return fake


def test_a_module_missing_a_piece_is_refused_by_name() -> None:
    assert check_rules(_copy_of(procession)) is not None
    for missing in ("parse_action", "view_for", "OPTIONS", "State", "NAME"):
        with pytest.raises(TypeError, match=rf"^cogs\.x\.rules does not fulfil .*: it has no {missing}\.$"):
            check_rules(_copy_of(procession, **{missing: None}))
    with pytest.raises(TypeError, match=r"apply must take 3 arguments \(state, seat, action\)"):
        check_rules(_copy_of(procession, apply=lambda state, action: state))
    with pytest.raises(TypeError, match="outcome is not a function"):
        check_rules(_copy_of(procession, outcome=3))
    with pytest.raises(TypeError, match="OPTIONS must be a tuple of Option"):
        check_rules(_copy_of(procession, OPTIONS=[procession.N_OPTION]))
    with pytest.raises(TypeError, match="its State has no to_dict"):
        check_rules(_copy_of(procession, State=object))
    with pytest.raises(TypeError, match="its State has no from_dict"):
        check_rules(_copy_of(procession, State=type("State", (), {"to_dict": lambda self: {}})))


def test_options_have_one_source() -> None:
    assert procession.OPTIONS == (procession.N_OPTION,)
    assert numbers.OPTIONS == (numbers.M_OPTION,)
    assert divisors.OPTIONS == (divisors.M_OPTION,)
    assert dots.OPTIONS == (dots.SIZE_OPTION,)
    assert updown.OPTIONS == ()
    assert procession.N_OPTION.help == "How many digits the row has (2-12, default 6)"
    for rules in RULES.values():
        for option in rules.OPTIONS:
            assert isinstance(option, Option) and option.allows(option.default)
            assert not option.allows(option.max + 1) and not option.allows(option.min - 1)
