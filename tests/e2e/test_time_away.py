"""Time away and more time end to end (issue 27), on both databases, with the clock tests can move
(QUETBOT_CLOCK_OFFSET_FILE): a player away does not forfeit at their old deadline but does at the
time away plus the timeout; /game back takes the unused rest off again; the 14-days-in-30 cap says
how many days are left; more time moves a deadline once per giver, and /game status says who gave
how much; the refusals are private."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.away import DAY
from bot.registry import SCORE_RANKED
from bot.storage import Storage
from tests.e2e.driver import bot_messages, latest_board, private_reply, start_game
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.world import Scene

pytestmark = pytest.mark.both_dbs
HOUR = 3600


class Clock:
    """The bot's clock, moved by writing its offset file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0.0

    def forward(self, seconds: float) -> None:
        self.offset += seconds
        self.path.write_text(str(self.offset))


@pytest.fixture
async def timed(
    emu: DiscordEmulator, scene: Scene, bot_db: str, tmp_path: Path
) -> AsyncIterator[tuple[BotHarness, Clock]]:
    """The bot (games played where they are opened) with a clock the test moves."""
    storage = await Storage.open(bot_db, score_ranked=SCORE_RANKED)
    try:
        await storage.set_guild_setting(guild_id=scene.guild.id, key="threads", value=0)
    finally:
        await storage.close()
    offset = tmp_path / "clock-offset"
    harness = BotHarness(emu, project_bot_factory(bot_db, clock_offset_file=str(offset)))
    await harness.start()
    try:
        yield harness, Clock(offset)
    finally:
        await harness.stop()


async def tick(emu: DiscordEmulator, harness: BotHarness) -> None:
    """Let the scheduler make a pass over what is due now, and wait for its messages."""
    scheduler = harness.bot.scheduler
    scheduler.poke()
    await asyncio.wait_for(scheduler.idle.wait(), 5)
    await emu.wait_idle()


async def deadline_of(harness: BotHarness, game_id: int, seat: int) -> float:
    waits = {w.seat: w for w in await harness.bot.storage.waits_of_game(game_id=game_id)}
    return waits[seat].deadline


def forfeits(emu: DiscordEmulator, scene: Scene) -> int:
    return sum("ran out of time" in m.content for m in bot_messages(emu, scene.channel))


async def test_away_pauses_the_clock_back_ends_it_and_the_cap_holds(
    emu: DiscordEmulator, scene: Scene, timed: tuple[BotHarness, Clock]
) -> None:
    harness, clock = timed
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    game_id = await start_game(emu, scene.channel, "procession new", alice, bob, carol, n=4, timeout="1h")
    first = await deadline_of(harness, game_id, 0)

    # Alice goes away for two days (answered privately): her deadline moves by them.
    said = await private_reply(await emu.slash(alice, scene.channel, "game away", days=2))
    assert "You are away until <t:" in said
    assert await deadline_of(harness, game_id, 0) == pytest.approx(first + 2 * DAY, abs=5)
    status = await private_reply(await emu.slash(bob, scene.channel, "game status"))
    assert f"💤 <@{alice.id}> is away until <t:" in status

    # Past her old deadline (and its halfway reminder): nothing happens.
    clock.forward(HOUR + 100)
    await tick(emu, harness)
    assert forfeits(emu, scene) == 0
    assert not any("waiting for your move" in m.content for m in bot_messages(emu, scene.channel))
    # Past the time away plus the timeout: she forfeits.
    clock.forward(2 * DAY)
    await tick(emu, harness)
    assert f"<@{alice.id}> ran out of time and forfeits." in latest_board(emu, scene.channel).content
    assert forfeits(emu, scene) == 1

    # Bob is awaited now. Away for a day, back at once: his deadline is back where it was.
    bobs = await deadline_of(harness, game_id, 1)
    await private_reply(await emu.slash(bob, scene.channel, "game away", days=1))
    assert await deadline_of(harness, game_id, 1) == pytest.approx(bobs + DAY, abs=5)
    assert "Welcome back" in await private_reply(await emu.slash(bob, scene.channel, "game back"))
    assert await deadline_of(harness, game_id, 1) == pytest.approx(bobs, abs=5)
    assert "not away" in await private_reply(await emu.slash(bob, scene.channel, "game back"))

    # Alice's two days count: 14 more are refused, saying how many are left.
    refused = await private_reply(await emu.slash(alice, scene.channel, "game away", days=14))
    assert "at most 14 days in any 30 days: 12 days are left now" in refused


async def test_more_time_once_per_giver_named_in_status_and_refusals(
    emu: DiscordEmulator, scene: Scene, timed: tuple[BotHarness, Clock]
) -> None:
    harness, clock = timed
    alice, bob, carol, dave = scene.alice, scene.bob, scene.carol, scene.dave
    game_id = await start_game(emu, scene.channel, "procession new", alice, bob, carol, n=4, timeout="1h")
    first = await deadline_of(harness, game_id, 0)

    rec = await emu.slash(bob, scene.channel, "game extend", player=alice, hours=3)
    given = await rec.response()
    assert not given.ephemeral
    assert f"<@{bob.id}> gives <@{alice.id}> 3 hours more" in bot_messages(emu, scene.channel)[-1].content
    assert await deadline_of(harness, game_id, 0) == pytest.approx(first + 3 * HOUR, abs=1)
    again = await private_reply(await emu.slash(bob, scene.channel, "game extend", player=alice, hours=5))
    assert "already gave" in again
    await (await emu.slash(carol, scene.channel, "game extend", player=alice, hours=2)).response()
    assert await deadline_of(harness, game_id, 0) == pytest.approx(first + 5 * HOUR, abs=1)
    status = await private_reply(await emu.slash(dave, scene.channel, "game status"))
    assert f"more time from <@{bob.id}> +3 hours and <@{carol.id}> +2 hours" in status

    for who, whom, words in (
        (alice, alice, "cannot give yourself"),
        (dave, alice, "Only the players of this game and its host"),
        (alice, bob, "is not awaited in this game"),
    ):
        text = await private_reply(await emu.slash(who, scene.channel, "game extend", player=whom, hours=1))
        assert words in text, text
    assert await deadline_of(harness, game_id, 0) == pytest.approx(first + 5 * HOUR, abs=1)

    # Not forfeited at the old deadline; forfeited at the new one.
    clock.forward(HOUR + 100)
    await tick(emu, harness)
    assert forfeits(emu, scene) == 0
    clock.forward(5 * HOUR)  # (the deadline: the hour, and 5 more)
    await tick(emu, harness)
    assert forfeits(emu, scene) == 1


def utc_clock(moment: float) -> str:
    """HH:MM of ``moment`` in UTC."""
    return time.strftime("%H:%M", time.gmtime(moment))


async def test_quiet_hours_hold_pings_and_reminders_and_move_a_deadline_to_their_end(
    emu: DiscordEmulator, scene: Scene, timed: tuple[BotHarness, Clock]
) -> None:
    harness, clock = timed
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    game_id = await start_game(emu, scene.channel, "procession new", alice, bob, carol, n=4, timeout="4h")
    start = time.time()
    bad = await private_reply(
        await emu.slash(bob, scene.channel, "game quiet", **{"from": "25:00", "to": "07:00"})
    )
    assert "could not read" in bad
    # Bob's quiet hours: from an hour ago to three hours from now (UTC, the default).
    said = await private_reply(
        await emu.slash(
            bob,
            scene.channel,
            "game quiet",
            **{"from": utc_clock(start - HOUR), "to": utc_clock(start + 3 * HOUR)},
        )
    )
    assert "Quiet hours" in said
    quiet_end = (start + 3 * HOUR) // 60 * 60
    # Alice moves: the board names bob without pinging him.
    await (await emu.slash(alice, scene.channel, "procession flip", position=1)).response()
    await emu.wait_idle()
    board = latest_board(emu, scene.channel)
    assert f"<@{bob.id}>, your move." in board.content and bob.id not in board.pinged
    reminders = lambda: [m for m in bot_messages(emu, scene.channel) if "waiting for your move" in m.content]  # noqa: E731
    # His halfway reminder falls inside the quiet hours: held.
    clock.forward(2 * HOUR + 60)
    await tick(emu, harness)
    assert reminders() == []
    # Once they end, what was held comes: the reminder, with a ping.
    clock.forward(quiet_end - start - 2 * HOUR - 60 + 30)
    await tick(emu, harness)
    (held,) = reminders()
    assert f"<@{bob.id}>" in held.content and held.pinged == {bob.id}

    # New quiet hours that hold his deadline (in 4 hours from the start): it moves to their end.
    first = await deadline_of(harness, game_id, 1)
    now = start + clock.offset
    await private_reply(
        await emu.slash(
            bob,
            scene.channel,
            "game quiet",
            **{"from": utc_clock(now + 1800), "to": utc_clock(now + 2 * HOUR)},
        )
    )
    moved = await deadline_of(harness, game_id, 1)
    assert moved > first and moved == pytest.approx(now + 2 * HOUR, abs=120)
    clock.forward(first - now + 60)  # past the old deadline: nothing
    await tick(emu, harness)
    assert forfeits(emu, scene) == 0
    clock.forward(moved - first + 60)  # past the new one
    await tick(emu, harness)
    assert forfeits(emu, scene) == 1
    off = await private_reply(await emu.slash(bob, scene.channel, "game quiet", **{"from": "off"}))
    assert "Quiet hours are off" in off


async def test_in_a_round_of_secret_choices_the_others_see_who_is_away(
    emu: DiscordEmulator, scene: Scene, timed: tuple[BotHarness, Clock]
) -> None:
    harness, _ = timed
    alice, bob = scene.alice, scene.bob
    game_id = await start_game(emu, scene.channel, "numbers new", alice, bob, m=3)
    await private_reply(await emu.slash(alice, scene.channel, "game away", days=1))
    # Bob picks (a secret: the board's text is edited to say who has chosen, and who is away).
    await (await emu.slash(bob, scene.channel, "numbers pick", number=1)).response()
    await emu.wait_idle()
    board = latest_board(emu, scene.channel)
    assert f"💤 <@{alice.id}> is away until <t:" in board.content
    assert f"<@{bob.id}> is away" not in board.content
    waits = await harness.bot.storage.waits_of_game(game_id=game_id)
    assert [w.seat for w in waits] == [0] and waits[0].paused > 0  # (alice's clock waits for her)
