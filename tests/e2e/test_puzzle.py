"""The daily puzzle end to end (issue 28), on both databases, with the clock tests can move
(QUETBOT_CLOCK_OFFSET_FILE): /game puzzle answers privately with the position and one button per
legal flip (no button tells the answer); a right answer starts a streak, a wrong one ends it, a second
click is refused, /game puzzle again shows the result and the solution; the next day's puzzle extends
the streak and a missed day breaks it; /game settings puzzles:#channel puzzle_hour: (Manage Server)
posts the puzzle there at the hour, once, with the server's streaks, and its buttons work after a
restart."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.table.puzzles import DAY, PUZZLE, day_of
from tests.e2e import test_shards
from tests.e2e.driver import bot_messages, private_reply
from tests.e2e.test_time_away import Clock, tick
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.models import MessageRecord, Perm
from tests.emulator.world import Scene, User

pytestmark = pytest.mark.both_dbs


@pytest.fixture
async def timed(
    emu: DiscordEmulator, scene: Scene, bot_db: str, tmp_path: Path
) -> AsyncIterator[tuple[BotHarness, Clock]]:
    offset = tmp_path / "clock-offset"
    harness = BotHarness(emu, project_bot_factory(bot_db, clock_offset_file=str(offset)))
    await harness.start()
    try:
        yield harness, Clock(offset)
    finally:
        await harness.stop()


def puzzle_buttons(message: MessageRecord) -> dict[int, str]:
    """The answer buttons: the flip each chooses, and its custom_id."""
    found = {}
    for row in message.components:
        for item in row.get("components", []):
            cid = item.get("custom_id", "")
            if f":{PUZZLE}:" in cid:
                found[int(item["label"])] = cid
    return found


async def todays(
    emu: DiscordEmulator, scene: Scene, harness: BotHarness, user: User | None = None
) -> tuple[MessageRecord, int, int]:
    """Someone's (Alice's) /game puzzle: its message, the day, and the stored answer."""
    rec = await emu.slash(user or scene.alice, scene.channel, "game puzzle")
    await emu.wait_idle()  # (the first of a day may be deferred while the puzzle is chosen)
    text = await private_reply(rec)
    assert "Find the only winning move" in text and "```" in text
    (message,) = [m for m in rec.messages if m.ephemeral]
    day = day_of(harness.bot.clock())
    stored = await harness.bot.storage.puzzle_of(day=day)
    assert stored is not None
    return message, day, stored.answer


async def test_puzzle_answers_streaks_days_and_the_daily_post(
    emu: DiscordEmulator, scene: Scene, timed: tuple[BotHarness, Clock]
) -> None:
    harness, clock = timed
    alice, bob, carol, dave = scene.alice, scene.bob, scene.carol, scene.dave
    message, day, answer = await todays(emu, scene, harness)
    buttons = puzzle_buttons(message)
    assert len(buttons) >= 3 and answer in buttons
    assert buttons == {p: f"q:{day}:-:{PUZZLE}:{p}" for p in buttons}  # the flip chosen, never the answer
    wrong = min(p for p in buttons if p != answer)

    right = await private_reply(await emu.click(alice, message, buttons[answer]))
    assert right.startswith("✅ Right") and "Your streak: 1 day." in right
    bobs, _, _ = await todays(emu, scene, harness, bob)
    assert puzzle_buttons(bobs) == buttons  # the same puzzle for everyone
    missed = await private_reply(await emu.click(bob, bobs, buttons[wrong]))
    assert missed.startswith("❌ Not that one") and f"was position {answer}" in missed
    assert "Your streak: 0 days." in missed
    again = await private_reply(await emu.click(alice, message, buttons[wrong]))
    assert again.startswith("You answered today already") and "✅ Right" in again  # the first stands
    rec = await emu.slash(alice, scene.channel, "game puzzle")
    shown = await private_reply(rec)
    assert "✅ Right" in shown and "```" in shown and all(not puzzle_buttons(m) for m in rec.messages)

    # The next day: a new puzzle; yesterday's buttons are refused; a right answer makes it 2 days.
    clock.forward(DAY)
    stale = await private_reply(await emu.click(alice, message, buttons[answer]))
    assert "earlier day" in stale
    message, day2, answer2 = await todays(emu, scene, harness)
    assert day2 == day + 1
    second = await private_reply(await emu.click(alice, message, puzzle_buttons(message)[answer2]))
    assert "Your streak: 2 days." in second

    # The daily post: Manage Server only; at the hour in the chosen channel, once, with the streaks.
    refused = await private_reply(
        await emu.slash(dave, scene.channel, "game settings", puzzles=scene.other_channel)
    )
    assert "Manage Server" in refused
    emu.grant(scene.guild, dave, Perm.MANAGE_GUILD)
    seconds = (harness.bot.clock() - day2 * DAY) % DAY
    hour = (int(seconds // 3600) + 2) % 24
    chosen = await private_reply(
        await emu.slash(dave, scene.channel, "game settings", puzzles=scene.other_channel, puzzle_hour=hour)
    )
    assert f"posted in <#{scene.other_channel.id}> every day at {hour:02d}:00 UTC" in chosen
    await tick(emu, harness)
    assert bot_messages(emu, scene.other_channel) == []  # not yet
    clock.forward((hour * 3600 + 60 - seconds) % DAY)  # its hour, today or (after midnight) tomorrow
    await tick(emu, harness)
    (post,) = bot_messages(emu, scene.other_channel)
    assert "Find the only winning move" in post.content and "Streaks here" in post.content
    assert re.search(rf"1\. <@{alice.id}>: [12] days?", post.content)  # alice's, from this server
    assert post.pinged == frozenset()
    await harness.restart()  # neither lost nor repeated, and its buttons still work
    await tick(emu, harness)
    assert len(bot_messages(emu, scene.other_channel)) == 1
    posted = puzzle_buttons(post)
    day3 = day_of(harness.bot.clock())
    stored = await harness.bot.storage.puzzle_of(day=day3)
    assert stored is not None and set(posted) and stored.answer in posted
    told = await private_reply(await emu.click(carol, post, posted[stored.answer]))
    assert told.startswith("✅ Right") and "Your streak: 1 day." in told

    # Two days on without an answer: the streak was broken; a right answer starts again at 1.
    clock.forward(2 * DAY)
    message, _, answer4 = await todays(emu, scene, harness)
    fresh = await private_reply(await emu.click(alice, message, puzzle_buttons(message)[answer4]))
    assert "Your streak: 1 day." in fresh
    off = await private_reply(await emu.slash(dave, scene.channel, "game settings", puzzles_off=True))
    assert "The daily puzzle is not posted here" in off


# Two processes over one database (shards 0 and 1 of 2), with a movable clock (tests/e2e/test_shards.py).
scenes = test_shards.scenes
two_with_a_clock = test_shards.two_with_a_clock


async def test_two_processes_post_each_servers_puzzle_once_and_the_same_puzzle(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], two_with_a_clock: tuple[BotHarness, BotHarness, Path]
) -> None:
    first = two_with_a_clock[0]
    for scene in scenes:  # due at once (hour 0): both processes' passes, every second, race for it
        await first.bot.storage.set_puzzle_channel(
            guild_id=scene.guild.id, channel_id=scene.other_channel.id, hour=0
        )
    for _ in range(150):
        if all(bot_messages(emu, s.other_channel) for s in scenes):
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the puzzles were not posted")
    await asyncio.sleep(2.5)  # (both processes have made passes since: nothing more may come)
    await emu.wait_idle()
    posts = [bot_messages(emu, s.other_channel) for s in scenes]
    assert [len(p) for p in posts] == [1, 1]
    assert puzzle_buttons(posts[0][0]) == puzzle_buttons(posts[1][0])  # one puzzle for everyone
    assert posts[0][0].content == posts[1][0].content
