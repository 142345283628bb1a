"""The games this bot hosts: the one module of bot/ that names them.

Each game is a package under cogs/ exporting a `bot.spec.GameSpec`; adding a game is adding its
package and one line here. The rest of the framework receives the specs (or what it needs of them)
from the composition root (`bot.app`), and never imports a game.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType

from bot.errors import GameError, NoGameHere
from bot.i18n import ENGLISH, Lang
from bot.inputs import excerpt
from bot.jsontypes import JSONObject
from bot.players import LEVELS
from bot.rules import check_rules
from bot.rules.base import AnyRules
from bot.spec import GameSpec, RulesText
from cogs import divisors, dots, numbers, procession, updown
from cogs.procession import puzzle as daily_puzzle

AnySpec = GameSpec
"""Some game's spec, its state, view and move types its own (as `bot.rules.base.AnyRules`)."""


def _registry(*specs: AnySpec) -> Mapping[str, AnySpec]:
    out: dict[str, AnySpec] = {}
    for spec in specs:
        check_rules(spec.rules)  # type: ignore[arg-type]
        if spec.name in out:
            raise TypeError(f"Two games are named {spec.name!r}.")
        out[spec.name] = spec
    return MappingProxyType(out)


GAMES: Mapping[str, AnySpec] = _registry(
    procession.SPEC,
    updown.SPEC,
    numbers.SPEC,
    divisors.SPEC,
    dots.SPEC,
)
"""Every game, by name (its slash command group), in the order the bot offers them."""

RULES: Mapping[str, AnyRules] = MappingProxyType({name: spec.rules for name, spec in GAMES.items()})
"""Every game's rules, by name."""

SCORE_RANKED: frozenset[str] = frozenset(name for name, spec in GAMES.items() if spec.ranked_by_score)
"""The games whose final scores rank every seat (the storage is told: `bot.storage.Storage.open`)."""

RULES_TEXT: Mapping[str, RulesText] = MappingProxyType(
    {name: spec.rules_text for name, spec in GAMES.items()}
)


def spec_for(kind: str) -> AnySpec:
    """The game called ``kind``, or `NoGameHere`."""
    try:
        return GAMES[kind]
    except KeyError:
        raise NoGameHere(
            "There is no game called {kind} here. The games are: {games}.",
            kind=repr(excerpt(kind)),
            games=", ".join(sorted(GAMES)),
        ) from None


def rules_for(kind: str) -> AnyRules:
    """The rules of the game called ``kind``, or `NoGameHere`."""
    return spec_for(kind).rules


def choose(game: str, view: object, level: str, rng: random.Random) -> JSONObject:
    """The computer's action in ``game`` for its own ``view``, at ``level``."""
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; one of {', '.join(LEVELS)}.")
    return GAMES[game].player(view, level, rng)


def rules_of(game: str, lang: Lang = ENGLISH) -> str:
    """The rules of ``game`` (its name, like ``dots``) as /game rules and the Rules button give them,
    in ``lang`` (each body is a msgid; English until its translations are in the catalogs)."""
    text = RULES_TEXT.get(game)
    if text is None:
        raise GameError("There is no game by that name. Choose one from the list.")
    return lang.t(text.body)


# The daily puzzle's positions (/game puzzle: `bot.table.puzzles`): Procession's, where exact search
# proves the one winning flip.
DAILY_PUZZLE = daily_puzzle
