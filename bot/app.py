"""The bot: startup (database, cogs, persistent components), command syncing, component routing."""

from __future__ import annotations

import hashlib
import json
import logging
import pkgutil
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands
from discord.http import Route

from bot.config import Settings
from bot.errors import GameError, NoGameHere
from bot.scheduler import Scheduler
from bot.service import GameService
from bot.storage import Storage
from bot.ui import (
    ComponentId,
    ForeignComponent,
    GameComponent,
    GameTree,
    guarded,
    modal_fields,
    parse_custom_id,
)

if TYPE_CHECKING:
    from bot.gamecog import GameCog

log = logging.getLogger(__name__)


def _extensions() -> tuple[str, ...]:
    """Every module in cogs/ is a cog extension: adding a game means adding its file there."""
    import cogs

    return tuple(f"cogs.{m.name}" for m in sorted(pkgutil.iter_modules(cogs.__path__), key=lambda m: m.name))


EXTENSIONS = _extensions()
LOBBY_VERBS = frozenset({"join", "leave", "start", "cancel"})


class QuetBot(commands.Bot):
    storage: Storage
    service: GameService
    scheduler: Scheduler

    def __init__(self, settings: Settings, **client_options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # channel and thread events
        intents.dm_messages = True  # typed answers in DMs (DM content needs no privileged intent)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=GameTree,
            allowed_mentions=discord.AllowedMentions.none(),
            # Nothing reads discord.py's message cache (every event we use carries its message), and
            # filling it costs time on every message event.
            max_messages=client_options.pop("max_messages", None),
            **client_options,
        )
        self.settings = settings
        self.game_cogs: dict[str, GameCog] = {}

    async def setup_hook(self) -> None:
        self.storage = await Storage.open(self.settings.db_path)
        self.service = GameService(self.storage)
        self.scheduler = Scheduler(self)
        self.service.on_change = self.scheduler.changed
        for ext in EXTENSIONS:
            await self.load_extension(ext)
        self.add_dynamic_items(GameComponent, ForeignComponent)
        await self.sync_commands()
        self.scheduler.start()

    async def close(self) -> None:
        scheduler = getattr(self, "scheduler", None)
        if scheduler is not None:
            await scheduler.stop()
        await super().close()
        storage = getattr(self, "storage", None)
        if storage is not None:
            await storage.close()

    def register_game(self, cog: GameCog) -> None:
        self.game_cogs[cog.name] = cog

    def game_cog(self, kind: str) -> GameCog:
        cog = self.game_cogs.get(kind)
        if cog is None:
            raise NoGameHere(f"This bot does not host {kind!r} games any more.")
        return cog

    # ---- command sync ---------------------------------------------------------------------------

    async def sync_commands(self) -> None:
        """Sync only when the command tree changed since the last sync to the same target.

        With QUETBOT_DEV_GUILD, commands go to that server only (instant); otherwise globally.
        The hash of what was synced is kept in the database, so a plain restart syncs nothing.
        """
        guild = discord.Object(self.settings.dev_guild) if self.settings.dev_guild else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        payload = [cmd.to_dict(self.tree) for cmd in self.tree.get_commands(guild=guild)]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"synced:{guild.id if guild else 'global'}"
        if await self.storage.get_meta(key=key) == digest:
            log.info("Application commands unchanged; not syncing")
            return
        synced = await self.tree.sync(guild=guild)
        await self.storage.set_meta(key=key, value=digest)
        log.info("Synced %d application commands to %s", len(synced), key.split(":", 1)[1])

    # ---- components -----------------------------------------------------------------------------

    async def route_component(
        self, interaction: discord.Interaction, cid: ComponentId, values: list[str]
    ) -> None:
        game = await self.service.get(cid.game_id)
        if interaction.guild_id is not None and game.row.channel_id != interaction.channel_id:
            raise GameError("That control belongs to a game in another channel.")
        if cid.verb in LOBBY_VERBS:
            if interaction.guild_id is None:
                raise GameError("Lobbies are run from their message in the game's channel, not from DMs.")
            lobby = self.get_cog("GameAdmin")
            await lobby.lobby_action(interaction, game, cid.verb)  # type: ignore[union-attr]
            return
        await self.game_cog(game.row.kind).handle_component(interaction, game, cid, values)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Form submissions are routed here by custom_id (components route through `GameComponent`)."""
        if interaction.type != discord.InteractionType.modal_submit:
            return
        data: Any = interaction.data or {}
        raw = str(data.get("custom_id", ""))
        await guarded(
            interaction, lambda: self.route_modal(interaction, parse_custom_id(raw), modal_fields(data))
        )

    async def route_modal(
        self, interaction: discord.Interaction, cid: ComponentId, fields: dict[str, str]
    ) -> None:
        game = await self.service.get(cid.game_id)
        if interaction.guild_id is not None and game.row.channel_id != interaction.channel_id:
            raise GameError("That form belongs to a game in another channel.")
        await self.game_cog(game.row.kind).on_modal(interaction, game, cid, fields)

    async def strip_components(self, channel_id: int, message_id: int) -> None:
        """Remove the controls of an old board or lobby (best effort: the version check guards anyway)."""
        path = "/channels/{channel_id}/messages/{message_id}"
        route = Route("PATCH", path, channel_id=channel_id, message_id=message_id)
        try:
            # The raw request: the edited message that comes back is not needed, so not parsed.
            await self.http.request(route, json={"components": []})
        except discord.HTTPException as exc:
            log.info("Could not strip components of message %s: %s", message_id, exc)


def create_bot(settings: Settings, **client_options: Any) -> QuetBot:
    return QuetBot(settings, **client_options)
