"""All SQL lives in this package; the rest of the bot talks to `Storage`.

`Storage` is a facade: flat, keyword-only, typed async methods ("not found" raises `NoGameHere`),
each delegating to the repository that owns the table(s):

    games.py     games and seats: reads, and every versioned change to a game (CAS on the version)
    moves.py     the append-only move log
    messages.py  where a game is shown: lobby/board message ids, DM links (closed DMs, DM panels)
    waits.py     deadlines, reminders and their mutes, when the scheduler is next due
    replies.py   typed DM answers waiting for the player to say which game they meant
    outbox.py    what committed changes still owe the world, written with them
    settings.py  per-server and per-player settings
    meta.py      the bot's own key-value bookkeeping
    rows.py      the frozen row types everything above answers with
    schema.py    the numbered SQLite migrations
    driver.py    the driver boundary: a transaction is a generator of statements (see there)
    sqlite.py    the SQLite driver: one connection in one thread, one trip per transaction

Nothing here caches: every method reads the database (a cache, where one pays, belongs to the
service layer, which knows when it may be stale). A PostgreSQL driver can replace the SQLite one
behind `Storage(driver)` without touching any caller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.storage.driver import Driver
from bot.storage.errors import Conflict, StaleVersion, StorageError
from bot.storage.games import Games
from bot.storage.messages import Messages
from bot.storage.meta import Meta
from bot.storage.moves import Moves
from bot.storage.outbox import Outbox
from bot.storage.replies import Replies
from bot.storage.rows import (
    LIVE,
    STATUSES,
    CompleteResult,
    DmLink,
    Effect,
    GameRow,
    MoveRow,
    OutboxItem,
    Wait,
    Written,
)
from bot.storage.schema import MIGRATIONS
from bot.storage.settings import Settings, SettingValue
from bot.storage.sqlite import SqliteDriver
from bot.storage.waits import Waits

__all__ = [
    "LIVE",
    "MIGRATIONS",
    "STATUSES",
    "CompleteResult",
    "Conflict",
    "DmLink",
    "Driver",
    "Effect",
    "GameRow",
    "MoveRow",
    "OutboxItem",
    "StaleVersion",
    "Storage",
    "StorageError",
    "Wait",
    "Written",
]


class Storage:
    """The bot's database: one driver, and the repositories that hold every query it runs."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self._games = Games(driver)
        self._moves = Moves(driver)
        self._messages = Messages(driver)
        self._waits = Waits(driver)
        self._replies = Replies(driver)
        self._outbox = Outbox(driver)
        self._settings = Settings(driver)
        self._meta = Meta(driver)

    @classmethod
    async def open(cls, path: str) -> Storage:
        """Open the SQLite database at ``path`` (created if missing), migrated to the latest schema."""
        return cls(await SqliteDriver.open(path, migrations=MIGRATIONS))

    async def close(self) -> None:
        await self.driver.close()

    async def schema_version(self) -> int:
        return await self.driver.schema_version()

    # ---- games ----------------------------------------------------------------------------------

    async def get_game(self, *, game_id: int) -> GameRow:
        return await self._games.get_game(game_id=game_id)

    async def live_game_in_channel(self, *, channel_id: int) -> GameRow | None:
        return await self._games.live_game_in_channel(channel_id=channel_id)

    async def latest_game_in_channel(self, *, channel_id: int) -> GameRow | None:
        """The live game of the channel, else the one that ended last."""
        return await self._games.latest_game_in_channel(channel_id=channel_id)

    async def live_games_of_user(self, *, user_id: int) -> list[GameRow]:
        return await self._games.live_games_of_user(user_id=user_id)

    async def count_games(self, *, status: str | None = None) -> int:
        return await self._games.count_games(status=status)

    async def expired_lobbies(self, *, created_before: float, limit: int = 50) -> list[int]:
        return await self._games.expired_lobbies(created_before=created_before, limit=limit)

    async def create_lobby(
        self,
        *,
        kind: str,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        options: Mapping[str, Any],
        seed: int,
        timeout_s: int = 86400,
    ) -> GameRow:
        """A new lobby with its host seated; `ChannelBusy` if the channel has a live game."""
        return await self._games.create_lobby(
            kind=kind,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            host_name=host_name,
            options=options,
            seed=seed,
            timeout_s=timeout_s,
        )

    async def update_lobby(
        self,
        *,
        game_id: int,
        expected_version: int,
        seats: Sequence[tuple[int, str]],
        host_id: int,
        effects: Sequence[Effect] = (),
    ) -> Written:
        """Replace the lobby's seats, as (user id, display name) in turn order, and its host."""
        return await self._games.update_lobby(
            game_id=game_id, expected_version=expected_version, seats=seats, host_id=host_id, effects=effects
        )

    async def start_game(
        self,
        *,
        game_id: int,
        expected_version: int,
        state: Mapping[str, Any],
        waiting: Sequence[int] = (),
        effects: Sequence[Effect] = (),
    ) -> Written:
        """Start the game; ``waiting``: the seats that must act first (their deadlines start now)."""
        return await self._games.start_game(
            game_id=game_id, expected_version=expected_version, state=state, waiting=waiting, effects=effects
        )

    async def record_move(
        self,
        *,
        game_id: int,
        expected_version: int,
        seat: int,
        action: Mapping[str, Any],
        state: Mapping[str, Any],
        result: Mapping[str, Any] | None = None,
        waiting: Sequence[int] = (),
        effects: Sequence[Effect] = (),
    ) -> Written:
        """One transaction: log the move, swap in the new state (finished with ``result``), reset the
        deadlines to ``waiting``, queue ``effects``. `StaleVersion` if the game moved meanwhile."""
        return await self._games.record_move(
            game_id=game_id,
            expected_version=expected_version,
            seat=seat,
            action=action,
            state=state,
            result=result,
            waiting=waiting,
            effects=effects,
        )

    async def cancel_game(
        self, *, game_id: int, expected_version: int, effects: Sequence[Effect] = ()
    ) -> Written:
        return await self._games.cancel_game(
            game_id=game_id, expected_version=expected_version, effects=effects
        )

    async def moves(self, *, game_id: int) -> list[MoveRow]:
        return await self._moves.moves(game_id=game_id)

    # ---- where games are shown ------------------------------------------------------------------

    async def set_messages(
        self, *, game_id: int, lobby_message_id: int | None = None, board_message_id: int | None = None
    ) -> None:
        """Remember where the lobby and the latest board are (not a game change: no version bump)."""
        await self._messages.set_messages(
            game_id=game_id, lobby_message_id=lobby_message_id, board_message_id=board_message_id
        )

    async def get_dm_link(self, *, game_id: int, user_id: int) -> DmLink:
        return await self._messages.get_dm_link(game_id=game_id, user_id=user_id)

    async def mark_dm_blocked(self, *, game_id: int, user_id: int) -> bool:
        """Record that the player's DMs are closed; True the first time (when to post the notice)."""
        return await self._messages.mark_dm_blocked(game_id=game_id, user_id=user_id)

    async def set_dm_panel(
        self, *, game_id: int, user_id: int, dm_channel_id: int, panel_message_id: int
    ) -> None:
        await self._messages.set_dm_panel(
            game_id=game_id, user_id=user_id, dm_channel_id=dm_channel_id, panel_message_id=panel_message_id
        )

    # ---- typed DM answers -----------------------------------------------------------------------

    async def add_typed_reply(self, *, user_id: int, text: str) -> int:
        return await self._replies.add_typed_reply(user_id=user_id, text=text)

    async def take_typed_reply(self, *, reply_id: int, user_id: int) -> str | None:
        """The waiting typed answer (removed), or None when it is gone or is not this user's."""
        return await self._replies.take_typed_reply(reply_id=reply_id, user_id=user_id)

    # ---- deadlines ------------------------------------------------------------------------------

    async def waits_of_game(self, *, game_id: int) -> list[Wait]:
        return await self._waits.waits_of_game(game_id=game_id)

    async def due_waits(self, *, now: float, limit: int = 50) -> list[Wait]:
        """Waits past their deadline, oldest first."""
        return await self._waits.due_waits(now=now, limit=limit)

    async def due_reminders(self, *, now: float, limit: int = 50) -> list[Wait]:
        """Waits past their halfway point that have not been reminded yet."""
        return await self._waits.due_reminders(now=now, limit=limit)

    async def mark_reminded(
        self, *, game_id: int, seat: int, effects: Sequence[Effect] = ()
    ) -> list[OutboxItem]:
        return await self._waits.mark_reminded(game_id=game_id, seat=seat, effects=effects)

    async def drop_wait(self, *, game_id: int, seat: int) -> None:
        await self._waits.drop_wait(game_id=game_id, seat=seat)

    async def next_due(self, *, lobby_lifetime: float) -> float | None:
        """When the scheduler next has something to do (a reminder, a deadline, a lobby expiry)."""
        return await self._waits.next_due(lobby_lifetime=lobby_lifetime)

    async def mute_reminders(self, *, game_id: int, user_id: int) -> None:
        await self._waits.mute_reminders(game_id=game_id, user_id=user_id)

    async def reminders_muted(self, *, game_id: int, user_id: int) -> bool:
        return await self._waits.reminders_muted(game_id=game_id, user_id=user_id)

    # ---- the outbox -----------------------------------------------------------------------------

    async def add_effects(self, *, game_id: int, effects: Sequence[Effect]) -> list[OutboxItem]:
        return await self._outbox.add_effects(game_id=game_id, effects=effects)

    async def complete_effect(
        self,
        *,
        item_id: int,
        board_message_id: int | None = None,
        lobby_message_id: int | None = None,
        dm_panel: tuple[int, int, int, int] | None = None,  # (game_id, user_id, dm_channel_id, panel_id)
        dm_blocked: tuple[int, int] | None = None,  # (game_id, user_id)
        then: Sequence[Effect] = (),
    ) -> CompleteResult:
        """Delete the item and record what carrying it out produced, in one transaction (see
        `Outbox.complete_effect`); an item already gone completes nothing."""
        return await self._outbox.complete_effect(
            item_id=item_id,
            board_message_id=board_message_id,
            lobby_message_id=lobby_message_id,
            dm_panel=dm_panel,
            dm_blocked=dm_blocked,
            then=then,
        )

    async def retry_effect(self, *, item_id: int, not_before: float) -> None:
        await self._outbox.retry_effect(item_id=item_id, not_before=not_before)

    async def pending_effects(self, *, now: float, limit: int = 200) -> list[OutboxItem]:
        return await self._outbox.pending_effects(now=now, limit=limit)

    async def effects_of_game(self, *, game_id: int) -> list[OutboxItem]:
        return await self._outbox.effects_of_game(game_id=game_id)

    async def next_effect_due(self) -> float | None:
        return await self._outbox.next_effect_due()

    async def clear_token(self, *, item_id: int) -> None:
        await self._outbox.clear_token(item_id=item_id)

    # ---- settings and bookkeeping ---------------------------------------------------------------

    async def get_guild_settings(self, *, guild_id: int) -> dict[str, Any]:
        return await self._settings.get_guild_settings(guild_id=guild_id)

    async def set_guild_setting(self, *, guild_id: int, key: str, value: SettingValue) -> None:
        await self._settings.set_guild_setting(guild_id=guild_id, key=key, value=value)

    async def get_user_settings(self, *, user_id: int) -> dict[str, Any]:
        return await self._settings.get_user_settings(user_id=user_id)

    async def set_user_setting(self, *, user_id: int, key: str, value: SettingValue) -> None:
        await self._settings.set_user_setting(user_id=user_id, key=key, value=value)

    async def get_meta(self, *, key: str) -> str | None:
        return await self._meta.get_meta(key=key)

    async def set_meta(self, *, key: str, value: str) -> None:
        await self._meta.set_meta(key=key, value=value)
