"""What the rules tests of several games share: a state's trip through its JSON, a view as plain data,
and an action refused without changing anything."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any, TypeVar

import pytest

from bot.rules.base import GameEvent, GameState

S = TypeVar("S", bound=GameState)


def round_trip(state: S) -> S:
    """The state through its JSON and back, which must give the same state (``from_dict`` validates)."""
    back = type(state).from_dict(json.loads(json.dumps(state.to_dict())))
    assert back == state
    return back


def jsonable(value: Any) -> Any:
    """A view (dataclasses, tuples, frozensets) as plain JSON data."""
    if isinstance(value, GameEvent):
        return value.to_dict()  # as a state stores it: with its "type"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, frozenset | set):
        return sorted(jsonable(v) for v in value)
    if isinstance(value, tuple | list):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return value


def unchanged_after(
    rules: Any, state: GameState, seat: int, action: Any, error: type[Exception], match: str | None = None
) -> str:
    """``rules.apply`` refuses the action with ``error`` (its message matching ``match``, when given) and
    leaves the state as it was. The message, a whole sentence for the player."""
    before = copy.deepcopy(state.to_dict())
    with pytest.raises(error, match=match) as info:
        rules.apply(state, seat, action)
    assert state.to_dict() == before
    assert str(info.value).endswith((".", "?", ")"))
    return str(info.value)
