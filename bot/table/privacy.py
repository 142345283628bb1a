"""/game privacy export and /game privacy delete: a person's data, on request (PRIVACY.md).

**Export** answers privately with a JSON file, ``quetbot-<user id>.json``: the games they sat in
(game, server, dates, the names at the table, the move log, less the secrets that are not theirs or
not revealed yet: `bot.storage.privacy.export`), their settings and ratings.

**Delete** asks first (a private message with a confirm button), then one transaction leaves every
live game of theirs as /game leave leaves it (a lobby: they leave it; a game being played: they
forfeit it, with the board and panels it owes) and replaces them everywhere by an anonymous
placeholder (`bot.storage.privacy.forget`), which readers see as "Deleted player" in their language
(`bot.present.shown_name` and `who`, kept importable from here). The same transaction owes each thread
of their games a new name, without theirs (`Rename`, carried out by `bot.table.threads`). The confirm
button is routed like the history's pages (no game is loaded for it): ``q:<user id>:-:forget``, and
only that user may click it (its message is private anyway); it holds nothing secret.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
from collections.abc import Callable

import discord

from bot.errors import GameError, NotAllowed
from bot.i18n.audience import reader
from bot.present import DELETED_PLAYER as DELETED_PLAYER  # (the rule's home; kept importable from here)
from bot.present import shown_name as shown_name
from bot.present import who as who
from bot.rules.base import FORFEIT
from bot.service import Changed, Games, Loaded, LobbyLife, MoveResult, Moves
from bot.storage import Storage, Written
from bot.storage.driver import Txn
from bot.table.catalog import Catalog
from bot.table.components import button
from bot.table.effects import ForSeat, Lobby, Rename
from bot.table.ids import ComponentId, custom_id
from bot.table.notify import Notify
from bot.table.outbox import Outbox
from bot.table.play import Source, owed
from bot.table.replies import NO_PINGS, reply_private
from bot.table.routing import Router

log = logging.getLogger(__name__)

FORGET = "forget"  # the confirm button's verb


def export_file(data: dict[str, object], user_id: int) -> discord.File:
    text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
    return discord.File(io.BytesIO(text.encode()), filename=f"quetbot-{user_id}.json")


class PrivacyDesk:
    """The two commands and the confirm button, and the deletion itself."""

    def __init__(
        self,
        *,
        storage: Storage,
        games: Games,
        lobby: LobbyLife,
        moves: Moves,
        outbox: Outbox,
        notify: Notify,
        catalog: Catalog,
        router: Router,
    ) -> None:
        self.storage, self.games, self.lobby, self.moves = storage, games, lobby, moves
        self.outbox, self.notify, self.catalog = outbox, notify, catalog
        self.router = router
        router.on_page(FORGET, self.on_confirm)

    async def forget(self, user_id: int) -> int:
        """One transaction takes ``user_id`` out of every live game as /game leave does (out of its
        lobbies; a forfeit in each game being played, with what the move owes the table but their own
        DM panels) and replaces them everywhere by a new placeholder, owing their games' threads a
        new name; answers the placeholder. The games' locks are held, in the order of their ids,
        from the read to the commit."""
        live = sorted(game_id for game_id, _ in await self.storage.live_seats_of(user_id=user_id))
        async with contextlib.AsyncExitStack() as held:
            writes: list[Txn[Written]] = []
            then: list[Callable[[Written], Changed | MoveResult]] = []
            for game_id in live:
                await held.enter_async_context(self.games.lock(game_id))
                game = await self.games.get(game_id)
                try:
                    write, after = self._leaving(game, user_id)
                except GameError:  # already out (a seat that left before stays seated), or it ended
                    continue
                writes.append(write)
                then.append(after)
            placeholder, game_ids, written, renames = await self.storage.forget_user(
                user_id=user_id, leaving=writes, in_threads=Rename()
            )
            for after, done in zip(then, written, strict=True):
                self.outbox.kick(after(done).effects)
        for game_id in {*game_ids, *live}:  # the cached rows still name them
            self.games.cache.evict(game_id)
        self.outbox.kick(renames)  # (once no cached row names them: the new names are read from the rows)
        self.games.cache.forget_links_of(user_id)
        self.notify.reachable(user_id)  # (in memory only: their notify choice went with their settings)
        await self.notify.load()
        return placeholder

    def _leaving(
        self, game: Loaded, user_id: int
    ) -> tuple[Txn[Written], Callable[[Written], Changed | MoveResult]]:
        """How ``user_id`` leaves ``game`` (checked now): the statements, and what follows their commit."""
        if game.row.status == "lobby":
            return self.lobby.leaving(game.row, user_id, [Lobby()]), self.lobby.left
        draft = self.moves.prepare(game, user_id, FORFEIT)
        kind = self.catalog.get(game.row.kind)
        mine = draft.seat  # their own panels: nobody is to read them any more
        owes = [e for e in owed(kind, draft, Source.CLOCK) if not (isinstance(e, ForSeat) and e.seat == mine)]
        return self.moves.writing(draft, owes), functools.partial(self.moves.committed, draft)

    async def export(self, interaction: discord.Interaction) -> None:
        user_id = interaction.user.id
        secret = [kind.name for kind in self.catalog if kind.secret]
        data = await self.storage.export_user(user_id=user_id, secret_kinds=secret)
        lang = reader(interaction)
        await reply_private(
            interaction,
            lang.t(
                "Everything this bot keeps about you: your games, settings and ratings. "
                "Other players' secret moves are left out."
            ),
            file=export_file(data, user_id),
        )

    async def delete(self, interaction: discord.Interaction) -> None:
        lang = reader(interaction)
        confirm = button(
            lang.t("Delete my data"), custom_id(interaction.user.id, FORGET), style=discord.ButtonStyle.danger
        )
        await reply_private(
            interaction,
            lang.t(
                "This forfeits your games in progress, takes you out of lobbies, deletes your settings "
                "and replaces your name everywhere by \u201cDeleted player\u201d. Ratings and past games "
                "stay, anonymous. It cannot be undone."
            ),
            view=self.router.view([confirm]),
        )

    async def on_confirm(self, interaction: discord.Interaction, cid: ComponentId, values: list[str]) -> None:
        if cid.game_id != interaction.user.id:
            raise NotAllowed("This button deletes the data of the person who asked for it, not yours.")
        await interaction.response.defer()
        await self.forget(interaction.user.id)
        lang = reader(interaction)
        await interaction.edit_original_response(
            content=lang.t("Done: your data is deleted, and you are now \u201cDeleted player\u201d here."),
            view=None,
            allowed_mentions=NO_PINGS,
        )
