"""Up-Down-Stay: rules in bot/games/updown.py, commands in commands.py, presentation in present.py,
image in bot/render/updown.py."""

from __future__ import annotations

from bot.games import updown
from bot.table.catalog import GameKind
from bot.table.tools import Tools
from cogs.updown import present
from cogs.updown.commands import UpDownCommands


def build(tools: Tools) -> tuple[GameKind, UpDownCommands]:
    return GameKind.of(updown, present), UpDownCommands(tools)
