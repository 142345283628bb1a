"""The contract every game's rules module fulfils, and the helpers shared by all of them.

A rules module (``bot/games/<name>.py``) is pure: no discord, aiosqlite or PIL imports, no module-level
randomness. It exposes:

- ``NAME`` (the slash command group, e.g. ``"procession"``), ``TITLE``, ``MIN_PLAYERS``, ``MAX_PLAYERS``
- ``OPTIONS``: a tuple of ``Option`` (the ``/<name> new`` options, with their ranges and defaults)
- ``State``: a frozen dataclass with ``to_dict()`` and ``State.from_dict(d)`` (validates, raises
  ``ValueError`` on malformed data); JSON round-trippable
- ``new_game(n_players, options, seed) -> State``
- ``to_act(state) -> frozenset[int]``: the seats (0-based) that must act now; empty once the game is over
- ``legal_actions(state, seat) -> list[Action]``
- ``apply(state, seat, action) -> State``: a *new* state; raises a ``GameError`` subclass and changes
  nothing when the action is malformed (``BadInput``), not allowed now (``IllegalMove``) or comes from a
  seat that must not act (``NotYourTurn``)
- ``forfeit(state, seat) -> State``: the seat leaves play as RULES.md says
- ``outcome(state) -> Outcome | None``: ``None`` while the game goes on
- ``view_for(state, seat | None)``: everything a seat (or, with ``None``, the public channel) may see.
  Renderers and message builders only ever receive a view.

Seats are 0-based in code and shown to people as seat 1, seat 2, ... An action is a JSON object with a
``"type"`` key (``{"type": "flip", "position": 3}``); the move log stores it as is, so replaying the log
from ``new_game`` reproduces the stored state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.errors import BadInput

Action = Mapping[str, Any]

FORFEIT: dict[str, str] = {"type": "forfeit"}


@dataclass(frozen=True)
class Option:
    """A numeric option of ``/<game> new``."""

    name: str
    description: str
    default: int
    min: int
    max: int


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``winners`` are the seats sharing the win (several on a tie; all remaining seats on a draw),
    ``scores`` the final score per seat when the game keeps scores, ``reason`` a short sentence for the
    announcement ("no legal move is left", "every dot is taken", ...).
    """

    winners: tuple[int, ...]
    reason: str
    scores: tuple[int, ...] | None = None
    draw: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "winners": list(self.winners),
            "reason": self.reason,
            "scores": None if self.scores is None else list(self.scores),
            "draw": self.draw,
        }


def resolve_options(options_spec: tuple[Option, ...], given: Mapping[str, Any]) -> dict[str, int]:
    """Fill defaults and check ranges; raise ``BadInput`` naming the allowed range."""
    known = {o.name for o in options_spec}
    unknown = set(given) - known
    if unknown:
        raise BadInput(f"Unknown option {sorted(unknown)[0]!r}.")
    out: dict[str, int] = {}
    for opt in options_spec:
        value = given.get(opt.name, opt.default)
        if value is None:
            value = opt.default
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput(f"Option {opt.name} must be a whole number from {opt.min} to {opt.max}.")
        if not opt.min <= value <= opt.max:
            raise BadInput(f"Option {opt.name} must be from {opt.min} to {opt.max} (you gave {value}).")
        out[opt.name] = value
    return out


def action_type(action: Action) -> str:
    """The action's ``type``, or ``BadInput`` when the action is not a JSON object with one."""
    if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
        raise BadInput("That move could not be read.")
    return str(action["type"])


def int_field(action: Action, key: str) -> int:
    """An integer field of an action, or ``BadInput``."""
    value = action.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"The move needs a whole number for {key}.")
    return value


def str_field(action: Action, key: str) -> str:
    """A string field of an action, or ``BadInput``."""
    value = action.get(key)
    if not isinstance(value, str):
        raise BadInput(f"The move needs text for {key}.")
    return value


def check_seat(n_players: int, seat: int) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n_players:
        raise ValueError(f"seat {seat!r} is not in a game of {n_players} players")


def require(cond: bool, what: str) -> None:
    """``from_dict`` validation: raise ``ValueError`` unless ``cond``."""
    if not cond:
        raise ValueError(f"invalid state: {what}")
