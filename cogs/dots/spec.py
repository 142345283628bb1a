"""The `bot.spec.GameSpec` of Lines By The Dots, exported as ``cogs.dots.SPEC``:
its final scores rank every seat."""

from __future__ import annotations

import cogs.dots.analysis as analysis
import cogs.dots.player as player
import cogs.dots.present as present
import cogs.dots.rules as rules
from bot.cogkit.assemble import game_spec
from bot.spec import GameSpec
from cogs.dots.commands import cog
from cogs.dots.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = game_spec(
    rules, present, player, commands=cog, rules_text=TEXT, ranked_by_score=True, analyse=analysis.analyse
)
