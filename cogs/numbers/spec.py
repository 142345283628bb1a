"""The `bot.spec.GameSpec` of Numbers To Number, exported as ``cogs.numbers.SPEC``:
its final scores rank every seat."""

from __future__ import annotations

import cogs.numbers.analysis as analysis
import cogs.numbers.player as player
import cogs.numbers.present as present
import cogs.numbers.rules as rules
from bot.cogkit.assemble import game_spec
from bot.spec import GameSpec
from cogs.numbers.commands import cog
from cogs.numbers.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = game_spec(
    rules, present, player, commands=cog, rules_text=TEXT, analyse=analysis.analyse, ranked_by_score=True
)
