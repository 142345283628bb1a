"""The `bot.spec.GameSpec` of Procession: its parts put together
(exported as ``cogs.procession.SPEC``)."""

from __future__ import annotations

import cogs.procession.player as player
import cogs.procession.present as present
import cogs.procession.rules as rules
from bot.spec import GameSpec
from cogs.procession.commands import ProcessionCommands
from cogs.procession.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = GameSpec(
    rules=rules,
    present=present.PRESENTER,
    private=present.PRIVATE,
    player=player.choose,
    commands=ProcessionCommands,
    rules_text=TEXT,
)
