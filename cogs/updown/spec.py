"""The `bot.spec.GameSpec` of Up-Down-Stay, exported as ``cogs.updown.SPEC``."""

from __future__ import annotations

import cogs.updown.analysis as analysis
import cogs.updown.player as player
import cogs.updown.present as present
import cogs.updown.rules as rules
from bot.cogkit.assemble import game_spec
from bot.spec import GameSpec
from cogs.updown.commands import cog
from cogs.updown.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = game_spec(
    rules, present, player, commands=cog, rules_text=TEXT, analyse=analysis.analyse
)
