"""Procession: rules in bot/games/procession.py, commands in commands.py, presentation in
present.py, image in bot/render/procession.py, computer player (later) in bot/players/."""

from __future__ import annotations

from bot.games import procession
from bot.table.catalog import GameKind
from bot.table.tools import Tools
from cogs.procession import present
from cogs.procession.commands import ProcessionCommands


def build(tools: Tools) -> tuple[GameKind, ProcessionCommands]:
    return GameKind.of(procession, present), ProcessionCommands(tools)
