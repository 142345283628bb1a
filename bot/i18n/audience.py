"""Who reads which language.

- A private (ephemeral) answer, or any reply to an interaction a person made, speaks that person's
  client language: `reader(interaction)` (``interaction.locale``).
- A DM speaks its recipient's language: the locale of their last interaction with the bot, kept in
  the database (DMs are sent later, from the outbox): `Audiences.user`.
- A public post in a game's channel or thread speaks the server's language: the admins' choice
  (``/game settings language:``) if they made one, else the server's own Discord locale as last
  seen on an interaction there (``interaction.guild_locale``), else English: `Audiences.server`.
- An image (and its alt text) speaks the language of the message that carries it.

Every interaction is seen (`Audiences.seen`): the person's and the server's locales are written
only when they changed. One bot process keeps them in memory; processes sharing a database read
them from it each time, as another process may have seen a newer one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Protocol

from bot.i18n.lang import ENGLISH, LANGUAGES, Lang, from_discord, language

log = logging.getLogger(__name__)

AUTO = "auto"  # the server setting that follows the server's own Discord locale


class Asker(Protocol):
    """Who made an interaction (a ``discord.User`` or ``discord.Member`` is one)."""

    @property
    def id(self) -> int: ...


class Asked(Protocol):
    """What this module reads of an interaction (a ``discord.Interaction`` is one): i18n imports no
    discord."""

    @property
    def id(self) -> int: ...

    @property
    def locale(self) -> object: ...  # a discord.Locale (or its code)

    @property
    def guild_locale(self) -> object: ...

    @property
    def guild_id(self) -> int | None: ...

    @property
    def user(self) -> Asker: ...


class Settings(Protocol):
    """Where the locales are kept (`bot.storage.Storage` is it): the settings of people and servers."""

    async def get_user_settings(self, *, user_id: int) -> Mapping[str, object]: ...

    async def set_user_setting(self, *, user_id: int, key: str, value: str | None) -> None: ...

    async def get_guild_settings(self, *, guild_id: int) -> Mapping[str, object]: ...

    async def set_guild_setting(self, *, guild_id: int, key: str, value: str | None) -> None: ...


def reader(interaction: Asked) -> Lang:
    """The language of the person who made ``interaction``: for every answer to it that only they see
    (and any reply to what they did)."""
    return from_discord(interaction.locale)


def server_of_interaction(interaction: Asked) -> Lang:
    """The server's own Discord language as the interaction tells it (no admin choice considered)."""
    return from_discord(interaction.guild_locale) if interaction.guild_id is not None else ENGLISH


class Audiences:
    """The languages of people (for DMs) and of servers (for public posts)."""

    def __init__(self, storage: Settings, *, shared: bool = False) -> None:
        self.storage = storage
        self.shared = shared  # other processes write the same rows: read them every time
        self._users: dict[int, str] = {}  # user id -> their last seen Discord locale
        self._guild_locales: dict[int, str] = {}  # guild id -> its last seen Discord locale
        self._choices: dict[int, str | None] = {}  # guild id -> the admins' choice (None: auto)
        self._written: dict[tuple[str, int], str] = {}  # what this process stored last, per owner
        # Locales this process saw and has not stored yet: newer than the database's until stored.
        self._unstored: set[tuple[str, int]] = set()

    # ---- seeing interactions ----------------------------------------------------------------------

    def note(self, interaction: Asked) -> tuple[bool, bool]:
        """Remember the person's and the server's locales in memory, at once (the client calls this
        as the interaction arrives, before any handler runs, so that what answers it already knows
        them); whether each one changed."""
        user_locale = _value(interaction.locale)
        guild_locale = _value(interaction.guild_locale) if interaction.guild_id is not None else None
        user_changed = bool(user_locale) and self._users.get(interaction.user.id) != user_locale
        if user_changed and user_locale:
            self._users[interaction.user.id] = user_locale
            self._unstored.add(("user", interaction.user.id))
        guild_changed = False
        if guild_locale and interaction.guild_id is not None:
            guild_changed = self._guild_locales.get(interaction.guild_id) != guild_locale
            self._guild_locales[interaction.guild_id] = guild_locale
            if guild_changed:
                self._unstored.add(("guild", interaction.guild_id))
        return user_changed, guild_changed

    async def seen(self, interaction: Asked) -> None:
        """Remember the person's and the server's locales (a listener of every interaction): in
        memory (`note`, unless the client did already), and in the database when they changed
        (DMs are sent later, maybe by another process)."""
        self.note(interaction)
        written = self._written
        user_locale = self._users.get(interaction.user.id)
        guild_locale = self._guild_locales.get(interaction.guild_id or 0)
        try:
            if user_locale and written.get(("user", interaction.user.id)) != user_locale:
                written[("user", interaction.user.id)] = user_locale
                await self.storage.set_user_setting(
                    user_id=interaction.user.id, key="locale", value=user_locale
                )
            if guild_locale and interaction.guild_id is not None:
                if written.get(("guild", interaction.guild_id)) != guild_locale:
                    written[("guild", interaction.guild_id)] = guild_locale
                    await self.storage.set_guild_setting(
                        guild_id=interaction.guild_id, key="guild_locale", value=guild_locale
                    )
        except Exception:  # a language not remembered must not fail the interaction
            log.exception("Could not remember the locales of interaction %s", interaction.id)
        finally:
            self._stored(("user", interaction.user.id), self._users.get(interaction.user.id))
            if interaction.guild_id is not None:
                key = ("guild", interaction.guild_id)
                self._stored(key, self._guild_locales.get(interaction.guild_id))

    def _stored(self, key: tuple[str, int], current: str | None) -> None:
        """The database has what this process saw last for ``key`` (or it failed to say so: the
        database's may be read again)."""
        if current is None or self._written.get(key) == current:
            self._unstored.discard(key)

    # ---- people ------------------------------------------------------------------------------------

    async def user(self, user_id: int) -> Lang:
        """The language of ``user_id``'s DMs: their client's, as last seen (English before that)."""
        if user_id < 0:  # a computer player reads nothing
            return ENGLISH
        locale = self._users.get(user_id)
        # Another process may have seen a newer one; not newer than one seen here and not stored yet.
        if locale is None or (self.shared and ("user", user_id) not in self._unstored):
            stored = (await self.storage.get_user_settings(user_id=user_id)).get("locale")
            if stored is not None and ("user", user_id) not in self._unstored:
                locale = self._users[user_id] = str(stored)
        return from_discord(locale)

    # ---- servers -----------------------------------------------------------------------------------

    async def server(self, guild_id: int | None) -> Lang:
        """The language of public posts in ``guild_id``'s channels and threads."""
        if guild_id is None:
            return ENGLISH
        choice, locale = await self._server(guild_id)
        if choice is not None:
            return language(choice)
        return from_discord(locale)

    async def choice(self, guild_id: int) -> str | None:
        """The admins' choice of language for ``guild_id`` (a code of `LANGUAGES`), None for auto."""
        return (await self._server(guild_id))[0]

    async def choose(self, guild_id: int, code: str | None) -> None:
        """Set the server's language (a code of `LANGUAGES`), or None (or ``"auto"``): follow the
        server's Discord locale."""
        if code == AUTO:
            code = None
        if code is not None and code not in LANGUAGES:
            raise ValueError(f"Unknown language {code!r}")
        await self.storage.set_guild_setting(guild_id=guild_id, key="language", value=code)
        self._choices[guild_id] = code

    async def _server(self, guild_id: int) -> tuple[str | None, str | None]:
        """The admins' choice and the server's last seen locale. One process: read once, then kept
        (`choose` and `note` keep them up to date); processes sharing a database: read each time,
        but a locale seen here and not stored yet is newer than the database's, and stands."""
        if self.shared or guild_id not in self._choices:
            settings = await self.storage.get_guild_settings(guild_id=guild_id)
            choice = settings.get("language")
            self._choices[guild_id] = str(choice) if choice in LANGUAGES else None
            stored = settings.get("guild_locale")
            fresher_here = ("guild", guild_id) in self._unstored  # seen here, not stored yet
            if (
                stored is not None
                and not fresher_here
                and (self.shared or guild_id not in self._guild_locales)
            ):
                self._guild_locales[guild_id] = str(stored)
        return self._choices[guild_id], self._guild_locales.get(guild_id)


def _value(locale: object) -> str | None:
    value = getattr(locale, "value", locale)
    return str(value) if value else None
