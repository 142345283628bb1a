"""The Numerical Card Game: rules in bot/games/divisors.py, commands in commands.py, presentation in
present.py, image in bot/render/divisors.py."""

from __future__ import annotations

from bot.games import divisors
from bot.table.catalog import GameKind
from bot.table.tools import Tools
from cogs.divisors import present
from cogs.divisors.commands import DivisorsCommands


def build(tools: Tools) -> tuple[GameKind, DivisorsCommands]:
    return GameKind.of(divisors, present), DivisorsCommands(tools)
