"""Numbers To Number: rules in bot/games/numbers.py, commands in commands.py, presentation in
present.py, image in bot/render/numbers.py."""

from __future__ import annotations

from bot.games import numbers
from bot.table.catalog import GameKind
from bot.table.tools import Tools
from cogs.numbers import present
from cogs.numbers.commands import NumbersCommands


def build(tools: Tools) -> tuple[GameKind, NumbersCommands]:
    return GameKind.of(numbers, present), NumbersCommands(tools)
