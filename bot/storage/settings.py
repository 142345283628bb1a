"""Settings per server (``guild_settings``) and per player (``user_settings``).

A setting is a column; a missing row or a NULL column means "the default", which the caller knows
(`get_*` answers only the settings that were set). Setting one to None clears it.
"""

from __future__ import annotations

from bot.storage.driver import Repository

GUILD_SETTINGS = ("threads", "language", "guild_locale")
USER_SETTINGS = ("notify", "locale")
SettingValue = int | str | None  # a column's value; None: the default


class Settings(Repository):
    async def get_guild_settings(self, *, guild_id: int) -> dict[str, SettingValue]:
        return await self._get_settings("guild_settings", "guild_id", GUILD_SETTINGS, guild_id)

    async def set_guild_setting(self, *, guild_id: int, key: str, value: SettingValue) -> None:
        await self._set_setting("guild_settings", "guild_id", GUILD_SETTINGS, guild_id, key, value)

    async def get_user_settings(self, *, user_id: int) -> dict[str, SettingValue]:
        return await self._get_settings("user_settings", "user_id", USER_SETTINGS, user_id)

    async def set_user_setting(self, *, user_id: int, key: str, value: SettingValue) -> None:
        await self._set_setting("user_settings", "user_id", USER_SETTINGS, user_id, key, value)

    async def notify_choices(self) -> dict[int, str]:
        """Everyone's ``notify`` setting, for the people who set one (the others have the default):
        read once at startup, so that no move reads it."""
        rows = await self._read("SELECT user_id, notify FROM user_settings WHERE notify IS NOT NULL")
        return {int(user_id): str(notify) for user_id, notify in rows}

    async def _get_settings(
        self, table: str, id_column: str, keys: tuple[str, ...], owner: int
    ) -> dict[str, SettingValue]:
        rows = await self._read(f"SELECT {', '.join(keys)} FROM {table} WHERE {id_column} = ?", (owner,))
        if not rows:
            return {}
        return {key: value for key, value in zip(keys, rows[0], strict=True) if value is not None}

    async def _set_setting(
        self, table: str, id_column: str, keys: tuple[str, ...], owner: int, key: str, value: SettingValue
    ) -> None:
        if key not in keys:  # the key becomes a column name in the statement: only known ones
            raise ValueError(f"Unknown setting {key!r}; known: {', '.join(keys)}.")
        await self._write(
            f"INSERT INTO {table} ({id_column}, {key}) VALUES (?, ?) "
            f"ON CONFLICT ({id_column}) DO UPDATE SET {key} = excluded.{key}",
            (owner, value),
        )
