"""A game's `bot.spec.GameSpec`, put together from its package's modules.

Every game wires its parts the same way: the public presenter is its ``present`` module's
``PRESENTER``, what one player sees its ``PRIVATE`` (None: no secrets), the computer player its
``player`` module's ``choose``. `game_spec` does that wiring once, taking the modules themselves
(checked against the protocols below: a part renamed fails the type check, and the import); a game's
``spec.py`` says only what is its own: its cog, its rules text, how it is ranked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from discord.ext import commands

from bot.analysis import Analyser, unknown_review
from bot.rules.base import GameRules, M, S
from bot.spec import GameSpec, Player, RulesText, V
from bot.table.commands import CogParts
from bot.table.present import Presenter, PrivatePresenter


class Presentation(Protocol[V]):
    """A game's ``present`` module, as its spec takes it."""

    PRESENTER: Presenter[V]
    PRIVATE: PrivatePresenter[V] | None


class ComputerPlayer(Protocol):
    """A game's ``player`` module, as its spec takes it."""

    @property
    def choose(self) -> Player: ...


def game_spec(
    rules: GameRules[S, V, M],
    present: Presentation[V],
    player: ComputerPlayer,
    *,
    commands: Callable[[CogParts], commands.Cog],
    rules_text: RulesText,
    ranked_by_score: bool = False,
    analyse: Analyser = unknown_review,
) -> GameSpec[S, V, M]:
    """The game of these modules, with its cog (``commands``: what builds it from the parts of the
    table it takes), its rules text, whether its final scores rank every seat, and its analyser
    (see `GameSpec`)."""
    return GameSpec(
        rules=rules,
        present=present.PRESENTER,
        private=present.PRIVATE,
        player=player.choose,
        commands=commands,
        rules_text=rules_text,
        ranked_by_score=ranked_by_score,
        analyse=analyse,
    )
