"""The rules contract every game's ``cogs/<game>/rules.py`` fulfils (``base.py``), its check, and how a
logged action is applied.

Each rules module is checked against the contract once, at import of the registry (`bot.registry`):
statically (a spec's ``GameSpec[State, View, Move]`` annotation, for mypy) and at run time
(`check_rules`, which names the missing piece).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Protocol, TypeVar

from bot.rules.base import ActionJSON, AnyRules, Forfeit, GameRules, M, Option, S

V = TypeVar("V")


def _contract() -> dict[str, Callable[..., object] | None]:
    """The contract's members: name -> the protocol's function (for its arity), or None for data."""
    members: dict[str, Callable[..., object] | None] = dict.fromkeys(GameRules.__annotations__)
    for name, value in vars(GameRules).items():
        if not name.startswith("_") and inspect.isfunction(value):
            members[name] = value
    return members


def check_rules(module: ModuleType) -> AnyRules:
    """``module`` as a `GameRules`, or ``TypeError`` naming what it lacks."""
    where = f"{module.__name__} does not fulfil the rules contract of bot/rules/base.py"
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


def play(rules: GameRules[S, V, M], state: S, seat: int, action: M | Forfeit | ActionJSON) -> S:
    """Apply one action as the move log has it: a forfeit, or a move of the game's own (typed, or its
    logged JSON, which is parsed first)."""
    typed = rules.parse_action(action) if isinstance(action, Mapping) else action
    if isinstance(typed, Forfeit):
        return rules.forfeit(state, seat)
    return rules.apply(state, seat, typed)


class Logged(Protocol):
    """A move as the log keeps it: who made it, what it was, and whether it was taken back (the
    version its takeback made, or None)."""

    @property
    def seat(self) -> int: ...
    @property
    def action(self) -> ActionJSON: ...
    @property
    def undone(self) -> int | None: ...


def replay(rules: GameRules[S, V, M], start: S, log: Iterable[Logged]) -> S:
    """The state a move log leads to from ``start``: every move applied in order, except those taken
    back (a takeback leaves the move in the log, marked; the game goes on as if it was never made)."""
    state = start
    for move in log:
        if move.undone is None:
            state = play(rules, state, move.seat, move.action)
    return state
