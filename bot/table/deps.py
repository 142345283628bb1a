"""What the games' commands (cogs/) are handed of the table, through `bot.table.tools.Tools`: one
bundle, built once by bot/app.py. The table's own objects take only the parts each uses."""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.i18n.audience import Audiences
from bot.service import Finder, Games, Histories, LobbyLife, Moves
from bot.storage import Storage
from bot.table.catalog import Catalog
from bot.table.notify import Notify
from bot.table.outbox import Outbox
from bot.table.routing import Router
from bot.table.shown import Shown


@dataclass(frozen=True)
class Deps:
    client: discord.Client  # for REST calls (any process may call REST for any channel)
    games: Games  # the games as this process knows them
    finder: Finder  # which game a place and a person mean
    lobby: LobbyLife
    moves: Moves
    history: Histories
    storage: Storage
    catalog: Catalog
    router: Router
    outbox: Outbox
    shown: Shown
    notify: Notify  # how each person is told it is their move
    audiences: Audiences  # who reads which language (DMs: the person's; public posts: the server's)
