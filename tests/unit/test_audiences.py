"""Who reads which language (bot/i18n/audience.py), on both databases: a person's last seen locale
for their DMs, a server's choice or last seen locale for its public posts, kept across restarts and
read by a second process sharing the database."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bot.i18n import ENGLISH, language
from bot.i18n.audience import Audiences
from bot.storage import Storage


def interaction(
    user_id: int, locale: str, guild_id: int | None = None, guild_locale: str | None = None
) -> Any:
    """What `Audiences` reads of an interaction (discord.py's carries the same attributes)."""
    return SimpleNamespace(
        id=1, user=SimpleNamespace(id=user_id), locale=locale, guild_id=guild_id, guild_locale=guild_locale
    )


async def test_a_persons_dms_speak_their_last_seen_locale(storage: Storage) -> None:
    audiences = Audiences(storage)
    assert await audiences.user(5) is ENGLISH  # never seen
    await audiences.seen(interaction(5, "pt-BR", 1, "fr"))
    assert await audiences.user(5) is language("pt_BR")
    await audiences.seen(interaction(5, "ja", 1, "fr"))  # a language the bot does not speak
    assert await audiences.user(5) is ENGLISH
    await audiences.seen(interaction(5, "es-419"))  # in a DM: no server
    assert (await storage.get_user_settings(user_id=5))["locale"] == "es-419"
    later = Audiences(storage)  # after a restart, or in another process
    assert await later.user(5) is language("es")
    assert await later.user(-3) is ENGLISH  # a computer seat


async def test_a_servers_posts_speak_its_choice_else_its_locale_else_english(storage: Storage) -> None:
    audiences = Audiences(storage)
    assert await audiences.server(1) is ENGLISH and await audiences.server(None) is ENGLISH
    audiences.note(interaction(5, "de", 1, "ru"))  # known at once, before it is stored
    assert await audiences.server(1) is language("ru")
    await audiences.seen(interaction(5, "de", 1, "ru"))
    await audiences.choose(1, "fr")
    assert await audiences.server(1) is language("fr") and await audiences.choice(1) == "fr"
    shared = Audiences(storage, shared=True)  # another process sharing the database
    assert await shared.server(1) is language("fr")
    await audiences.choose(1, "auto")
    assert await audiences.choice(1) is None and await audiences.server(1) is language("ru")
    assert await shared.server(1) is language("ru")  # read again: the choice was cleared
    with pytest.raises(ValueError):
        await audiences.choose(1, "xx")
    assert await Audiences(storage).server(1) is language("ru")  # after a restart


async def test_a_locale_seen_here_and_not_stored_yet_beats_the_databases_older_one(
    storage: Storage,
) -> None:
    here, there = Audiences(storage, shared=True), Audiences(storage, shared=True)  # two processes
    await here.seen(interaction(5, "de", 1, "ru"))
    assert await there.server(1) is language("ru") and await there.user(5) is language("de")
    # The server and the person switch to French: an interaction arrives here, noted at once; until
    # its listener has stored the locales, the database still says Russian and German.
    here.note(interaction(5, "fr", 1, "fr"))
    assert await here.server(1) is language("fr") and await here.user(5) is language("fr")
    assert await there.server(1) is language("ru")  # the other process has not seen it
    await here.seen(interaction(5, "fr", 1, "fr"))
    assert await there.server(1) is language("fr") and await there.user(5) is language("fr")
    # Once stored, this process follows the database again: another process saw Spanish later.
    await there.seen(interaction(5, "es-ES", 1, "es-ES"))
    assert await here.server(1) is language("es") and await here.user(5) is language("es")
