"""The `bot.spec.GameSpec` of Up-Down-Stay: its parts put together
(exported as ``cogs.updown.SPEC``)."""

from __future__ import annotations

import cogs.updown.player as player
import cogs.updown.present as present
import cogs.updown.rules as rules
from bot.spec import GameSpec
from cogs.updown.commands import UpDownCommands
from cogs.updown.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = GameSpec(
    rules=rules,
    present=present.PRESENTER,
    private=present.PRIVATE,
    player=player.choose,
    commands=UpDownCommands,
    rules_text=TEXT,
)
