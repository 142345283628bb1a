"""Deferred answers across a crash (bot/table/pending.py): a slow command that answered "thinking..."
is noted in the database before the defer; killed before its answer, the restarted bot edits the
response to "ask again" in the asker's language, never leaving it thinking until Discord gives up.
An answer that went out before the kill is left as it is; a normal answer leaves nothing noted.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import ENGLISH, language
from bot.table import replies
from bot.table.pending import ASK_AGAIN
from tests.db import query
from tests.e2e.driver import start_game
from tests.e2e.test_analyse import answer, play_out
from tests.emulator import DiscordEmulator, interaction_filter
from tests.emulator.harness import BotHarness
from tests.emulator.models import InteractionRecord
from tests.emulator.world import Scene

SETTLE = 10.0


def owed(db: str) -> list[tuple[Any, ...]]:
    return query(db, "SELECT user_id, locale, asked, holder FROM pending_answers ORDER BY id")


async def thinking(emu: DiscordEmulator, rec: InteractionRecord) -> None:
    """The command was deferred: its response shows "thinking..."."""
    response = await rec.response()
    assert response.type.value == 5 and rec.original is not None and rec.original.loading


@pytest.mark.both_dbs
async def test_a_replay_killed_while_thinking_is_told_to_ask_again_after_the_restart(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, bot_db: str
) -> None:
    dora = emu.add_user("dora", locale="de")
    game_id = await start_game(emu, scene.channel, "procession new", dora, scene.bob, n=5)

    trap = emu.crash_after_next_answer(bots, user=dora, command="game replay")
    rec = await emu.slash(dora, scene.channel, "game replay", game_id=game_id)
    await thinking(emu, rec)  # (a game in progress replays privately)
    assert trap.done and bots.bot is None, "killed right after the defer, before the replay"

    await bots.start()
    assert rec.original is not None
    await emu.wait_until(lambda: not rec.original.loading, SETTLE, "the thinking response, edited")
    told = language("de").t(ASK_AGAIN)
    assert told != ENGLISH.t(ASK_AGAIN)
    assert rec.original.ephemeral and rec.original.content == told
    await emu.wait_until(lambda: owed(bot_db) == [], SETTLE, "the entry, deleted")
    await emu.wait_idle()

    # Asked again, the replay comes; nothing stays noted.
    again = await emu.slash(dora, scene.channel, "game replay", game_id=game_id)
    await emu.wait_until(lambda: again.original is not None and not again.original.loading, SETTLE, "replay")
    assert again.original is not None and again.original.attachments
    await emu.wait_until(lambda: owed(bot_db) == [], SETTLE, "the entry, deleted")


@pytest.mark.both_dbs
async def test_a_deferred_answer_is_noted_before_the_defer_and_forgotten_once_answered(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, bot_db: str
) -> None:
    alice = scene.alice
    game_id = await start_game(emu, scene.channel, "procession new", alice, scene.bob, n=5)
    seen: list[list[tuple[Any, ...]]] = []

    async def look() -> None:  # (the defer is applied; the bot has not heard back yet)
        seen.append(owed(bot_db))

    emu.after_answer(interaction_filter(user=alice, command="game replay"), look)
    rec = await emu.slash(alice, scene.channel, "game replay", game_id=game_id)
    await thinking(emu, rec)
    # (under this process's name when the database may be shared, as the outbox's leases are)
    assert seen == [[(alice.id, "en", f"/game replay {game_id}", bots.bot.outbox.holder)]]
    await emu.wait_until(lambda: not rec.original.loading, SETTLE, "the replay")
    assert rec.original.attachments  # the replay itself
    await emu.wait_until(lambda: owed(bot_db) == [], SETTLE, "the entry, deleted")


async def test_an_answer_sent_just_before_the_kill_is_left_as_it_is(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, bot_db: str
) -> None:
    alice = scene.alice
    game_id = await start_game(emu, scene.channel, "procession new", alice, scene.bob, n=5)
    # Killed right after the replay went out, before the bot could delete its entry.
    trap = emu.crash_after_next_request(
        bots, "POST /webhooks/*", after=interaction_filter(user=alice, command="game replay")
    )
    rec = await emu.slash(alice, scene.channel, "game replay", game_id=game_id)
    await trap.wait()
    assert bots.bot is None and rec.original is not None and not rec.original.loading
    replay = rec.original.content
    assert len(owed(bot_db)) == 1, "the kill came before the entry was deleted"

    await bots.start()
    await emu.wait_until(lambda: owed(bot_db) == [], SETTLE, "the entry, deleted")
    await emu.wait_idle()
    assert rec.original.content == replay and rec.original.attachments, "the answer stays"


async def test_an_analysis_killed_while_thinking_is_told_to_ask_again(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, bot_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    game_id = await start_game(emu, scene.channel, "procession new", alice, bob, n=5)
    row = await bots.bot.storage.get_game(game_id=game_id)
    place = emu.channels.get(row.place_id) or scene.channel  # (the game's thread)
    await play_out(emu, bots, place, [alice, bob], game_id)
    monkeypatch.setattr(replies, "ANSWER_WITHIN", 0.0)  # every analysis is deferred, as a slow one is

    trap = emu.crash_after_next_answer(bots, user=carol, command="game analyse")
    rec = await emu.slash(carol, scene.channel, "game analyse", game_id=game_id, public=True)
    await thinking(emu, rec)
    assert trap.done and bots.bot is None

    await bots.start()
    assert rec.original is not None
    await emu.wait_until(lambda: not rec.original.loading, SETTLE, "the thinking response, edited")
    assert rec.original.content == ENGLISH.t(ASK_AGAIN) and not rec.original.attachments
    await emu.wait_until(lambda: owed(bot_db) == [], SETTLE, "the entry, deleted")

    again = await answer(emu, await emu.slash(carol, scene.channel, "game analyse", game_id=game_id))
    assert f"game #{game_id}" in again.content and again.attachments
    await emu.wait_until(lambda: owed(bot_db) == [], SETTLE, "the entry, deleted")
