"""/game notify end to end: how each player is told it is their move (a mention on the board, a
short DM, both, or neither), reminders that follow the same choice, and the choice kept across a
restart."""

from __future__ import annotations

import re

import pytest

from tests.e2e.driver import (
    assert_discord_accepted_all,
    bot_messages,
    dm_changes,
    dm_mark,
    dm_panel,
    latest_board,
    numbers_pick_from_panel,
    panel_messages,
    private_reply,
    start_game,
)
from tests.e2e.test_deadlines import pass_time, tick
from tests.e2e.test_threads import open_and_start
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import MessageRecord
from tests.emulator.world import Scene, User

LINK = re.compile(r"https://discord\.com/channels/(\d+|@me)/(\d+)/(\d+)")


async def choose(emu: DiscordEmulator, scene: Scene, user: User, mode: str) -> str:
    return await private_reply(await emu.slash(user, scene.channel, "game notify", mode=mode))


def your_move_dms(emu: DiscordEmulator, user: User) -> list[MessageRecord]:
    return [m for m in emu.dm_messages(user) if "Your move in" in m.content]


def linked(message: MessageRecord) -> int:
    """The id of the message a "your move" DM links to."""
    found = LINK.search(message.content)
    assert found is not None, message.content
    return int(found.group(3))


async def flip(emu: DiscordEmulator, scene: Scene, user: User, position: int) -> MessageRecord:
    before = len(bot_messages(emu, scene.channel))
    await (await emu.slash(user, scene.channel, "procession flip", position=position)).response()
    await emu.wait_until(lambda: len(bot_messages(emu, scene.channel)) > before, what="the board")
    await emu.wait_idle()
    return latest_board(emu, scene.channel)


async def test_each_mode_in_a_game_without_secrets_and_its_reminders(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    assert "Notifications: **dm**" in await choose(emu, scene, alice, "dm")
    assert "Notifications: **both**" in await choose(emu, scene, bob, "both")
    assert "Notifications: **off**" in await choose(emu, scene, carol, "off")
    assert "a short DM tells you (no ping on the board)" in await choose(emu, scene, alice, "dm")
    await bot_harness.restart()  # the choices are stored
    await start_game(emu, scene.channel, "procession new", alice, bob, carol, n=5, timeout="2h")

    # Alice (dm) moves first: the board names her without a ping; a DM links to it.
    board = latest_board(emu, scene.channel)
    assert f"<@{alice.id}>" in board.content and board.pinged == frozenset()
    (dm,) = your_move_dms(emu, alice)
    assert linked(dm) == board.id and "Procession" in dm.content
    # Bob (both): a ping and a DM.
    board = await flip(emu, scene, alice, 4)
    assert board.pinged == {bob.id}
    assert [linked(m) for m in your_move_dms(emu, bob)] == [board.id]
    # Carol (off): neither.
    board = await flip(emu, scene, bob, 1)
    assert f"<@{carol.id}>" in board.content and board.pinged == frozenset()
    assert emu.dm_messages(carol) == []

    # Reminders follow the same choice. Carol (off): none at all.
    channel_posts = len(bot_messages(emu, scene.channel))
    await pass_time(bot_db, 3601)
    await tick(emu, bot_harness)
    assert len(bot_messages(emu, scene.channel)) == channel_posts and emu.dm_messages(carol) == []
    # Alice (dm): a DM reminder, nothing in the channel.
    await flip(emu, scene, carol, 5)
    channel_posts = len(bot_messages(emu, scene.channel))
    await pass_time(bot_db, 3601)
    await tick(emu, bot_harness)
    assert len(bot_messages(emu, scene.channel)) == channel_posts
    assert "waiting for your move" in emu.dm_messages(alice)[-1].content
    # Bob (both): a reminder in the channel with a ping, and one by DM.
    await flip(emu, scene, alice, 1)
    await pass_time(bot_db, 3601)
    await tick(emu, bot_harness)
    reminder = bot_messages(emu, scene.channel)[-1]
    assert "waiting for your move" in reminder.content and reminder.pinged == {bob.id}
    assert "waiting for your move" in emu.dm_messages(bob)[-1].content

    # The last move: nobody is to move, so nobody is pinged or told.
    marks = [dm_mark(emu, u) for u in (alice, bob, carol)]
    board = await flip(emu, scene, bob, 4)
    assert "wins" in board.content and board.pinged == frozenset()
    assert [dm_changes(emu, u, m) for u, m in zip((alice, bob, carol), marks, strict=True)] == [[], [], []]
    assert_discord_accepted_all(emu)


async def test_dm_mode_in_a_secret_game_adds_a_short_dm_to_the_panel_edit(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    await choose(emu, scene, alice, "dm")
    game_id = await start_game(emu, scene.channel, "numbers new", alice, bob, m=3)
    # The first panel is a new DM, which tells her by itself: no extra DM.
    assert your_move_dms(emu, alice) == []
    board = latest_board(emu, scene.channel)
    assert board.pinged == {bob.id}  # both must pick: only bob wants the mention
    for user, number in ((alice, 5), (bob, 3)):
        await numbers_pick_from_panel(emu, user, game_id, number)
    # Bob's pick revealed both: alice's panel was edited for her next pick (an edit tells nobody),
    # so a short DM, linking to the panel, tells her.
    panel = dm_panel(emu, alice, game_id)
    assert panel_messages(emu, alice, game_id) == 1 and "move 2 of 3" in panel.content
    (dm,) = your_move_dms(emu, alice)
    assert linked(dm) == panel.id and "Numbers" in dm.content
    assert your_move_dms(emu, bob) == []
    assert latest_board(emu, scene.channel).pinged == {bob.id}

    # Back to the default: the next reveal's board pings her too, and no DM comes.
    assert "Notifications: **mention**" in await choose(emu, scene, alice, "mention")
    mark = dm_mark(emu, alice)
    for user, number in ((alice, 2), (bob, 6)):
        await numbers_pick_from_panel(emu, user, game_id, number)
    assert latest_board(emu, scene.channel).pinged == {alice.id, bob.id}
    assert [m.id for m in dm_changes(emu, alice, mark)] == [panel.id]  # her panel, edited
    assert_discord_accepted_all(emu)


async def test_a_closed_dm_falls_back_to_the_mention(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    emu.close_dms(bob)
    await choose(emu, scene, bob, "dm")
    await start_game(emu, scene.channel, "procession new", alice, bob, n=5)
    board = await flip(emu, scene, alice, 4)
    # The "your move" DM was refused: one notice, and from then on the board mentions bob.
    notices = [m for m in bot_messages(emu, scene.channel) if "cannot send you direct messages" in m.content]
    assert len(notices) == 1 and "the board mentions you" in notices[0].content
    board = await flip(emu, scene, bob, 1)
    board = await flip(emu, scene, alice, 5)
    assert board.pinged == {bob.id}
    assert_discord_accepted_all(emu, closed_dms=1)


@pytest.mark.threads
async def test_in_a_thread_the_dm_links_and_the_reminders_go_there(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob = scene.alice, scene.bob
    await choose(emu, scene, alice, "dm")
    _, card = await open_and_start(emu, scene.channel, "procession", alice, bob, n=3, timeout="2h")
    thread = emu.channels[card.id]
    (dm,) = your_move_dms(emu, alice)
    assert linked(dm) == latest_board(emu, thread).id and f"/{thread.id}/" in dm.content
    await (await emu.slash(alice, thread, "procession flip", position=1)).response()
    await emu.wait_idle()
    await pass_time(bot_db, 3601)
    await tick(emu, bot_harness)
    reminder = bot_messages(emu, thread)[-1]
    assert "waiting for your move" in reminder.content and reminder.pinged == {bob.id}
    assert [m.id for m in bot_messages(emu, scene.channel)] == [card.id]
    assert_discord_accepted_all(emu)
