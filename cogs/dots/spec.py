"""The `bot.spec.GameSpec` of Lines By The Dots: its parts put together
(exported as ``cogs.dots.SPEC``)."""

from __future__ import annotations

import cogs.dots.player as player
import cogs.dots.present as present
import cogs.dots.rules as rules
from bot.spec import GameSpec
from cogs.dots.commands import DotsCommands
from cogs.dots.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = GameSpec(
    rules=rules,
    present=present.PRESENTER,
    private=present.PRIVATE,
    player=player.choose,
    commands=DotsCommands,
    rules_text=TEXT,
    ranked_by_score=True,
)
