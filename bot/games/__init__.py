"""The pure rules of each game, one module per game, and the registry that names them.

See ``bot/games/base.py`` for the contract every rules module fulfils. Each module is checked against
it here, once, at import: statically (the annotated assignments below, for mypy) and at run time
(`check_rules`, which names the missing piece).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import Any

from bot.errors import NoGameHere
from bot.games import divisors, dots, numbers, procession, updown
from bot.games.base import ActionJSON, AnyRules, Forfeit, GameRules, M, Option, S
from bot.inputs import excerpt

_procession: GameRules[procession.State, procession.View, procession.Move] = procession
_updown: GameRules[updown.State, updown.View, updown.Move] = updown
_numbers: GameRules[numbers.State, numbers.View, numbers.Move] = numbers
_divisors: GameRules[divisors.State, divisors.View, divisors.Move] = divisors
_dots: GameRules[dots.State, dots.View, dots.Move] = dots


def _contract() -> dict[str, Any]:
    """The contract's members: name -> the protocol's function (for its arity), or None for data."""
    members: dict[str, Any] = dict.fromkeys(GameRules.__annotations__)
    for name, value in vars(GameRules).items():
        if not name.startswith("_") and inspect.isfunction(value):
            members[name] = value
    return members


def check_rules(module: ModuleType) -> AnyRules:
    """``module`` as a `GameRules`, or ``TypeError`` naming what it lacks."""
    where = f"{module.__name__} does not fulfil the rules contract of bot/games/base.py"
    for name, spec in _contract().items():
        if not hasattr(module, name):
            raise TypeError(f"{where}: it has no {name}.")
        value = getattr(module, name)
        if spec is None:
            continue
        if not callable(value):
            raise TypeError(f"{where}: {name} is not a function.")
        wanted = list(inspect.signature(spec).parameters)[1:]  # the protocol's own `self` aside
        positional = [
            p
            for p in inspect.signature(value).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        required = [p for p in positional if p.default is p.empty]
        if not len(required) <= len(wanted) <= len(positional):
            raise TypeError(f"{where}: {name} must take {len(wanted)} arguments ({', '.join(wanted)}).")
    for name, kind in (("NAME", str), ("TITLE", str), ("MIN_PLAYERS", int), ("MAX_PLAYERS", int)):
        if not isinstance(getattr(module, name), kind):
            raise TypeError(f"{where}: {name} must be a {kind.__name__}.")
    options = module.OPTIONS
    if not isinstance(options, tuple) or not all(isinstance(o, Option) for o in options):
        raise TypeError(f"{where}: OPTIONS must be a tuple of Option.")
    for method in ("to_dict", "from_dict"):
        if not callable(getattr(module.State, method, None)):
            raise TypeError(f"{where}: its State has no {method}.")
    if not isinstance(module, GameRules):
        raise TypeError(f"{where}.")
    return module


def _registry(*modules: ModuleType) -> Mapping[str, AnyRules]:
    out: dict[str, AnyRules] = {}
    for module in modules:
        rules = check_rules(module)
        if rules.NAME in out:
            raise TypeError(f"Two rules modules are named {rules.NAME!r}.")
        out[rules.NAME] = rules
    return MappingProxyType(out)


RULES: Mapping[str, AnyRules] = _registry(updown, procession, numbers, divisors, dots)
"""Every game's rules, by NAME (the slash command group)."""


def rules_for(kind: str) -> AnyRules:
    """The rules of the game called ``kind``, or `NoGameHere`."""
    try:
        return RULES[kind]
    except KeyError:
        raise NoGameHere(
            "There is no game called {kind} here. The games are: {games}.",
            kind=repr(excerpt(kind)),
            games=", ".join(sorted(RULES)),
        ) from None


def play(rules: GameRules[S, Any, M], state: S, seat: int, action: M | Forfeit | ActionJSON) -> S:
    """Apply one action as the move log has it: a forfeit, or a move of the game's own (typed, or its
    logged JSON, which is parsed first)."""
    typed = rules.parse_action(action) if isinstance(action, Mapping) else action
    if isinstance(typed, Forfeit):
        return rules.forfeit(state, seat)
    return rules.apply(state, seat, typed)
