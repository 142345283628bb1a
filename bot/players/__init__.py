"""Computer players: one pure module per game (no discord, no SQL, no PIL), like the rules.

Each ``bot/players/<game>.py`` offers

    choose(view, level, rng) -> dict          # the action JSON the move log stores

where ``view`` is ``rules.view_for(state, seat)`` for the computer's own seat (exactly what a person in
that seat sees: never a state, never another seat's view), ``level`` is one of `LEVELS`, and ``rng`` a
``random.Random`` the caller seeds (a choice is reproducible from its seed: searches are budgeted in
iterations or nodes, never in wall-clock time). The action is legal for that view; `choose` is only
called when the rules wait for the seat (its turn, or a secret choice everyone makes at once).
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType
from typing import Any

LEVELS = ("easy", "normal", "hard")
GAMES = ("procession", "dots", "updown", "numbers", "divisors")


def player_for(game: str) -> ModuleType:
    """The computer player module of ``game`` (``bot.players.<game>``)."""
    if game not in GAMES:
        raise KeyError(f"No computer player for {game!r}.")
    return importlib.import_module(f"bot.players.{game}")


def choose(game: str, view: Any, level: str, rng: random.Random) -> dict[str, Any]:
    """The computer's action in ``game`` for its own ``view``, at ``level``."""
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; one of {', '.join(LEVELS)}.")
    action: dict[str, Any] = player_for(game).choose(view, level, rng)
    return action
