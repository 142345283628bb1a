"""The pure rules of each game, one module per game, and the registry that names them.

See ``bot/games/base.py`` for the contract every rules module fulfils.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from bot.games import divisors, dots, numbers, procession, updown
from bot.games.base import Action, action_type

RULES: dict[str, ModuleType] = {m.NAME: m for m in (updown, procession, numbers, divisors, dots)}


def play(rules: ModuleType, state: Any, seat: int, action: Action) -> Any:
    """Apply one logged action: a forfeit, or a move of the game's own."""
    if action_type(action) == "forfeit":
        return rules.forfeit(state, seat)
    return rules.apply(state, seat, action)
