"""What every piece of the table machinery works with: one bundle, built once by bot/app.py."""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.i18n.audience import Audiences
from bot.service import Finder, Games, Histories, LobbyLife, Moves, Services
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

    @classmethod
    def of(
        cls,
        client: discord.Client,
        services: Services,
        storage: Storage,
        catalog: Catalog,
        router: Router,
        outbox: Outbox,
        shown: Shown,
        notify: Notify,
        audiences: Audiences,
    ) -> Deps:
        s = services
        return cls(client, s.games, s.finder, s.lobby, s.moves, s.history, storage, catalog, router, outbox,
                   shown, notify, audiences)  # fmt: skip
