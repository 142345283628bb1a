"""The `bot.spec.GameSpec` of Procession, exported as ``cogs.procession.SPEC``."""

from __future__ import annotations

import cogs.procession.analysis as analysis
import cogs.procession.player as player
import cogs.procession.present as present
import cogs.procession.rules as rules
from bot.cogkit.assemble import game_spec
from bot.spec import GameSpec
from cogs.procession.commands import cog
from cogs.procession.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = game_spec(
    rules, present, player, commands=cog, rules_text=TEXT, analyse=analysis.analyse
)
