"""What a game is to the framework: one typed `GameSpec`, exported by its package ``cogs/<game>/``.

A game package holds its pure rules (``rules.py``), its presentation (``present.py``: view -> text,
components, alt text), its renderer (``render.py``: view -> PNG), its pure computer player
(``player.py``), its rules text (``rules_text.py``) and its slash commands (``commands.py``, the cog);
its ``__init__.py`` puts them together in ``SPEC``. The framework (``bot/``) meets the games through
`bot.registry` only, which lists the specs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from discord.ext import commands

from bot.analysis import Analyser, unknown_review
from bot.jsontypes import JSONObject
from bot.rules.base import GameRules, M, S
from bot.table.present import Presenter, PrivatePresenter

V = TypeVar("V")  # the game's view


@dataclass(frozen=True)
class RulesText:
    """The rules as /game rules and the Rules button tell them: a short summary of RULES.md with a
    worked example. The body is one msgid (a translation keeps every number of the example)."""

    title: str
    body: str


Player = Callable[[V, str, random.Random], JSONObject]  # (own view, level, rng) -> the action's JSON


@dataclass(frozen=True)
class GameSpec(Generic[S, V, M]):
    """One game, as the framework uses it.

    ``rules``: the pure rules (checked against `bot.rules.base.GameRules` by the registry).
    ``present``: the public presentation (its ``render`` draws the board, from ``render.py``);
    ``private``: what one player sees of a game with secret choices (None: no secrets).
    ``player``: the computer player's ``choose``. ``commands``:
    what builds the cog from the table's parts (`bot.table.commands.CogParts`: the cog's constructor
    gets those it uses; `bot.cogkit.assemble.game_spec` checks the type, which this module, below the
    table, cannot name). ``ranked_by_score``: the final scores rank every
    seat (else the losers tie below the winners). ``analyse``: the
    analyser of a finished game (`bot.analysis`; every move "unknown" without one)."""

    rules: GameRules[S, V, M]
    present: Presenter[V]
    private: PrivatePresenter[V] | None
    player: Player[V]
    commands: Callable[..., commands.Cog]
    rules_text: RulesText
    ranked_by_score: bool = False
    analyse: Analyser = unknown_review  # its ``analysis.analyse`` (`bot.analysis`), run in a worker

    @property
    def name(self) -> str:
        return self.rules.NAME

    @property
    def title(self) -> str:
        return self.rules.TITLE

    @property
    def secret(self) -> bool:
        """Whether players make secret choices (collected privately: DM panels)."""
        return self.private is not None
