"""Deadlines end to end: the timeout option, reminders with a mute button, forfeits at the deadline,
lobbies that expire, all driven by the database clock and surviving restarts.

Time passes by moving the stored clock back (waits and lobby ages), then poking the scheduler: the
bot itself is unmodified.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.db import change
from tests.e2e.driver import bot_messages, latest_board, private_reply, start_game
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Channel, Scene, User


async def pass_time(db: str, seconds: float) -> None:
    """Everything the database remembers happened ``seconds`` earlier. (`change`: in a thread, as the
    bot's own transactions need the event loop to finish.)"""
    await change(db, "UPDATE waits SET since = since - ?, deadline = deadline - ?", (seconds, seconds))
    await change(db, "UPDATE games SET created_at = created_at - ?", (seconds,))


async def open_procession(
    emu: DiscordEmulator, channel: Channel, host: User, others: list[User], deadline: str
) -> int:
    return await start_game(emu, channel, "procession new", host, *others, n=4, timeout=deadline)


async def tick(emu: DiscordEmulator, harness: BotHarness) -> None:
    """Let the scheduler make a pass over what is due now, and wait for its messages."""
    scheduler = harness.bot.scheduler
    scheduler.poke()
    await asyncio.wait_for(scheduler.idle.wait(), 5)
    await emu.wait_idle()


@pytest.mark.both_dbs
async def test_reminder_mute_and_forfeit_at_the_deadline(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    game_id = await open_procession(emu, scene.channel, alice, [bob, carol], "2h")
    assert "2 hours per move" in latest_board(emu, scene.channel).content
    status = await private_reply(await emu.slash(bob, scene.channel, "game status"))
    assert f"<@{alice.id}>: move due <t:" in status

    # Halfway: alice is reminded as she is told of her move (by default, a mention in the channel;
    # no DM), with a mute button.
    await pass_time(bot_db, 3601)
    await tick(emu, bot_harness)
    reminder = bot_messages(emu, scene.channel)[-1]
    assert f"<@{alice.id}>" in reminder.content and "waiting for your move" in reminder.content
    assert reminder.pinged == {alice.id}
    assert reminder.button("Mute reminders")
    assert emu.dm_messages(alice) == []
    # Only once.
    count = len(bot_messages(emu, scene.channel))
    await tick(emu, bot_harness)
    assert len(bot_messages(emu, scene.channel)) == count
    # Somebody else cannot mute alice's reminders; alice can.
    muted = await private_reply(
        await emu.click(scene.mod, reminder, reminder.button("Mute reminders")["custom_id"])
    )
    assert "not playing" in muted
    muted = await private_reply(
        await emu.click(alice, reminder, reminder.button("Mute reminders")["custom_id"])
    )
    assert "Reminders for game" in muted

    # Past the deadline: alice forfeits, the game goes on with bob to move (and a fresh deadline).
    await pass_time(bot_db, 3600)
    await tick(emu, bot_harness)
    board = latest_board(emu, scene.channel)
    assert f"<@{alice.id}> ran out of time and forfeits." in board.content
    assert f"<@{bob.id}>, your move." in board.content
    game = await bot_harness.bot.services.games.get(game_id)
    assert game.row.status == "active" and 0 in game.state.forfeited

    # The deadline survives a restart: bob's passes while the bot is down, and is acted on at startup.
    await pass_time(bot_db, 7201)
    await bot_harness.restart()
    await emu.wait_until(
        lambda: (
            "ran out of time" in latest_board(emu, scene.channel).content
            and f"<@{bob.id}> ran out" in latest_board(emu, scene.channel).content
        ),
        what="bob's timeout after the restart",
    )
    await emu.wait_idle()
    final = latest_board(emu, scene.channel)
    assert f"<@{carol.id}> wins" in final.content
    game = await bot_harness.bot.services.games.get(game_id)
    assert game.row.status == "finished" and game.row.result is not None
    assert await bot_harness.bot.storage.waits_of_game(game_id=game_id) == []


async def test_a_move_restarts_the_clock_and_mutes_hold(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await open_procession(emu, scene.channel, alice, [bob], "30m")
    await pass_time(bot_db, 1000)  # alice is past halfway, not past the deadline
    rec = await emu.slash(alice, scene.channel, "procession flip", position=1)
    await rec.response()
    await tick(emu, bot_harness)
    assert not any("waiting for your move" in m.content for m in bot_messages(emu, scene.channel))
    waits = await bot_harness.bot.storage.waits_of_game(game_id=game_id)
    assert [w.seat for w in waits] == [1] and waits[0].deadline - waits[0].since == 1800


async def test_bad_timeouts_and_lobby_expiry(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    for bad, words in (
        ("5m", "10 minutes to 7 days"),
        ("8d", "10 minutes to 7 days"),
        ("soon", "could not read"),
    ):
        rec = await emu.slash(scene.alice, scene.channel, "procession new", timeout=bad)
        assert words in await private_reply(rec)
    assert await bot_harness.bot.storage.count_games() == 0
    choices = await emu.autocomplete(
        scene.alice, scene.channel, "procession new", {"timeout": "3h"}, focused="timeout"
    )
    assert any(c["name"] == "3 hours" for c in choices)

    rec = await emu.slash(scene.alice, scene.channel, "updown new")
    await rec.response()
    await pass_time(bot_db, 23 * 3600)
    await tick(emu, bot_harness)
    assert (await bot_harness.bot.storage.count_games(status="lobby")) == 1
    await pass_time(bot_db, 3600)
    await tick(emu, bot_harness)
    assert (await bot_harness.bot.storage.count_games(status="cancelled")) == 1
    assert "did not start within a day" in bot_messages(emu, scene.channel)[-1].content
    assert any("This lobby was closed" in m.content for m in bot_messages(emu, scene.channel))
    # The channel is free again.
    rec = await emu.slash(scene.bob, scene.channel, "procession new")
    assert (await rec.response()).ephemeral is False
