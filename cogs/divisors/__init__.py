"""The Numerical Card Game: rules in bot/games/divisors.py, commands in commands.py, presentation in
present.py, image in bot/render/divisors.py."""

from __future__ import annotations

from bot.games import divisors
from bot.table.catalog import GameKind
from bot.table.tools import Tools
from cogs.divisors.commands import DivisorsCommands
from cogs.divisors.present import DivisorsPresenter


def build(tools: Tools) -> tuple[GameKind, DivisorsCommands]:
    presenter = DivisorsPresenter()
    return GameKind(rules=divisors, present=presenter, private=presenter), DivisorsCommands(tools)
