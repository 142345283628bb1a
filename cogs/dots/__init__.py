"""Lines By The Dots: rules in bot/games/dots.py, commands in commands.py, presentation in
present.py, image in bot/render/dots.py."""

from __future__ import annotations

from bot.games import dots
from bot.table.catalog import GameKind
from bot.table.tools import Tools
from cogs.dots import present
from cogs.dots.commands import DotsCommands


def build(tools: Tools) -> tuple[GameKind, DotsCommands]:
    return GameKind.of(dots, present), DotsCommands(tools)
