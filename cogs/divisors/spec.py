"""The `bot.spec.GameSpec` of The Numerical Card Game, exported as ``cogs.divisors.SPEC``:
its final scores rank every seat."""

from __future__ import annotations

import cogs.divisors.analysis as analysis
import cogs.divisors.player as player
import cogs.divisors.present as present
import cogs.divisors.rules as rules
from bot.cogkit.assemble import game_spec
from bot.spec import GameSpec
from cogs.divisors.commands import cog
from cogs.divisors.rules_text import TEXT

SPEC: GameSpec[rules.State, rules.View, rules.Move] = game_spec(
    rules, present, player, commands=cog, rules_text=TEXT, analyse=analysis.analyse, ranked_by_score=True
)
