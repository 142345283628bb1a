"""The `bot.spec.GameSpec` of The Numerical Card Game: its parts put together
(exported as ``cogs.divisors.SPEC``)."""

from __future__ import annotations

import cogs.divisors.player as player
import cogs.divisors.present as present
import cogs.divisors.rules as rules
from bot.spec import GameSpec
from cogs.divisors.commands import DivisorsCommands
from cogs.divisors.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = GameSpec(
    rules=rules,
    present=present.PRESENTER,
    private=present.PRIVATE,
    player=player.choose,
    commands=DivisorsCommands,
    rules_text=TEXT,
    ranked_by_score=True,
)
