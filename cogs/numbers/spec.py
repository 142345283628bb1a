"""The `bot.spec.GameSpec` of Numbers To Number: its parts put together
(exported as ``cogs.numbers.SPEC``)."""

from __future__ import annotations

import cogs.numbers.player as player
import cogs.numbers.present as present
import cogs.numbers.rules as rules
from bot.spec import GameSpec
from cogs.numbers.commands import NumbersCommands
from cogs.numbers.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = GameSpec(
    rules=rules,
    present=present.PRESENTER,
    private=present.PRIVATE,
    player=player.choose,
    commands=NumbersCommands,
    rules_text=TEXT,
    ranked_by_score=True,
)
