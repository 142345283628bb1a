"""/game mine end to end: a player with games in two servers gets every one of them, waiting on
them first (soonest deadline first), then waiting on others, then their lobbies, each with its
server, a link to where it is played and its deadline; in a server channel and in a DM; long lists
page, and only the asker may turn the pages. And the daily digest (`/game notify mode:digest`)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.table.agenda import AGENDA
from tests.db import change, query
from tests.e2e import test_shards
from tests.e2e.driver import forge_component, latest_board, lobby_message, private_reply, start_game
from tests.e2e.test_deadlines import pass_time, tick
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Member
from tests.emulator.world import Scene

# Two processes over one database, with a movable clock (the fixtures of tests/e2e/test_shards.py).
scenes = test_shards.scenes
two_with_a_clock = test_shards.two_with_a_clock


def due(deadline: float) -> str:
    return f"<t:{int(deadline)}:R>"


@pytest.mark.both_dbs
async def test_mine_lists_a_players_games_in_two_servers_in_order_and_pages(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    second = emu.add_guild("Second Server")  # threads on (the default): its games get threads
    hall = emu.add_text_channel(second, "hall")
    for user in (alice, bob):
        second.members[user.id] = Member(user, [])
    await emu.wait_idle()
    storage = bot_harness.bot.storage

    assert "Nothing waits on you" in await private_reply(await emu.slash(alice, scene.channel, "game mine"))
    here = await start_game(emu, scene.channel, "procession new", alice, bob, n=5, timeout="2h")
    theirs = await start_game(emu, hall, "procession new", bob, alice, n=5, timeout="1h")
    picks = await start_game(emu, hall, "numbers new", bob, alice, m=3)
    await (await emu.slash(carol, scene.other_channel, "procession new", n=5)).response()
    card = lobby_message(emu, scene.other_channel)
    await (await emu.click(alice, card, card.button("Join")["custom_id"])).response()
    lobby = int(card.custom_ids[0].split(":")[1])
    await emu.wait_idle()

    rows = {g: await storage.get_game(game_id=g) for g in (here, theirs, picks, lobby)}
    assert rows[theirs].thread_id is not None and rows[picks].thread_id is not None
    waits = {g: await storage.waits_of_game(game_id=g) for g in (here, theirs, picks)}
    alice_picks = next(w for w in waits[picks] if w.seat == 1)
    first = f"https://discord.com/channels/{scene.guild.id}"
    other = f"https://discord.com/channels/{second.id}"
    expected = [
        "**Waiting on you**",
        f"**Procession** game #{here} · Quet Test Server · {first}/{scene.channel.id} · your move · "
        f"due {due(waits[here][0].deadline)}",
        f"**Numbers To Number** game #{picks} · Second Server · {other}/{rows[picks].place_id} · your pick · "
        f"due {due(alice_picks.deadline)}",
        "**Waiting on others**",
        f"**Procession** game #{theirs} · Second Server · {other}/{rows[theirs].place_id} · "
        f"waiting for <@{bob.id}> · due {due(waits[theirs][0].deadline)}",
        "**Your lobbies**",
        f"**Procession** game #{lobby} · Quet Test Server · {first}/{scene.other_channel.id} · "
        f"waiting for <@{carol.id}> to start it · closes {due(rows[lobby].created_at + 86400)}",
    ]
    # In a server channel, and in a DM with the bot: the same list, privately.
    assert (await private_reply(await emu.slash(alice, scene.channel, "game mine"))).split("\n") == expected
    dm = emu.open_dm(alice)
    assert (await private_reply(await emu.slash(alice, dm, "game mine"))).split("\n") == expected

    # Its name in Spanish is its own, not /numbers mine's ("mis-números").
    game = next(c for c in emu.commands_of(None) if c["name"] == "game")
    mine = next(o for o in game["options"] if o["name"] == "mine")
    assert mine["name_localizations"]["es-ES"] == "mis-partidas"

    # A long list pages (three lines a page here): Previous / Next, for Alice only.
    bot_harness.bot.get_cog("GameAdmin").agenda.per_page = 3  # type: ignore[union-attr]
    rec = await emu.slash(alice, scene.channel, "game mine")
    page_one = await private_reply(rec)
    assert page_one.split("\n") == [*expected[:5], "Page 1 of 2 · 4 games and lobbies"]
    (message,) = rec.messages
    assert message.button("Previous")["disabled"] is True
    nxt = message.button("Next")["custom_id"]
    assert nxt == f"q:{alice.id}:-:{AGENDA}:1"
    await bot_harness.restart()  # (the buttons outlive the process that drew them)
    bot_harness.bot.get_cog("GameAdmin").agenda.per_page = 3  # type: ignore[union-attr]
    await (await emu.click(alice, message, nxt)).response()
    await emu.wait_idle()
    turned = emu.message(message.id)
    assert turned.content.split("\n") == [*expected[5:], "Page 2 of 2 · 4 games and lobbies"]
    assert turned.button("Next").get("disabled") is True
    # Bob clicks a copy of Alice's page button (on a message he can see): refused privately.
    forged = await forge_component(emu, bob, scene.channel, nxt)
    assert "someone else's list" in await private_reply(forged)
    # Bob's own list: the game waiting on him in the second server first.
    bobs = await private_reply(await emu.slash(bob, hall, "game mine"))
    assert bobs.split("\n")[:2] == [
        "**Waiting on you**",
        f"**Procession** game #{theirs} · Second Server · {other}/{rows[theirs].place_id} · your move · "
        f"due {due(waits[theirs][0].deadline)}",
    ]


@pytest.mark.both_dbs
async def test_a_digest_player_gets_no_pings_and_one_dm_a_day_at_their_hour(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob = scene.alice, scene.bob
    found = await emu.autocomplete(
        alice, scene.channel, "game notify", {"mode": "digest"}, focused="timezone", timezone="paris"
    )
    assert [c["value"] for c in found] == ["Europe/Paris"]
    refused = await emu.slash(alice, scene.channel, "game notify", mode="digest", timezone="Mars/Base")
    assert "There is no time zone 'Mars/Base'" in await private_reply(refused)
    refused = await emu.slash(alice, scene.channel, "game notify", mode="dm", hour=7)
    assert "go with mode:digest only" in await private_reply(refused)
    chosen = await emu.slash(
        alice, scene.channel, "game notify", mode="digest", hour=7, timezone="Europe/Paris"
    )
    answer = await private_reply(chosen)
    assert "Notifications: **digest**" in answer and "07:00, Europe/Paris time" in answer

    game_id = await start_game(emu, scene.channel, "procession new", alice, bob, n=5, timeout="2h")
    board = latest_board(emu, scene.channel)  # her move: named, not pinged, and no DM
    assert f"<@{alice.id}>" in board.content and board.pinged == frozenset()
    assert emu.dm_messages(alice) == []

    # Her hour comes (the stored due time is moved back a day, as the clock moving on would).
    await change(bot_db, "UPDATE digests SET due = due - 86400")
    await tick(emu, bot_harness)
    (digest,) = emu.dm_messages(alice)
    assert "Your daily digest" in digest.content
    assert (
        f"**Procession** game #{game_id} · Quet Test Server" in digest.content
        and "your move" in digest.content
    )
    # Once: neither another pass nor a restart sends it again; the next is due at 07:00 in Paris.
    await tick(emu, bot_harness)
    await bot_harness.restart()
    await tick(emu, bot_harness)
    assert len(emu.dm_messages(alice)) == 1
    ((due,),) = query(bot_db, "SELECT due FROM digests WHERE user_id = ?", (alice.id,))
    local = datetime.fromtimestamp(float(due), ZoneInfo("Europe/Paris"))
    assert (local.hour, local.minute) == (7, 0) and 0 < float(due) - bot_harness.bot.clock() <= 86400

    # The reminder before the forfeit still comes, by DM.
    await pass_time(bot_db, 3601)
    await tick(emu, bot_harness)
    assert "waiting for your move" in emu.dm_messages(alice)[-1].content
    # She moves: nothing waits on her any more, so her next digest is not sent (and is done).
    await (await emu.slash(alice, scene.channel, "procession flip", position=1)).response()
    await emu.wait_idle()
    sent = len(emu.dm_messages(alice))
    await change(bot_db, "UPDATE digests SET due = due - 86400")
    await tick(emu, bot_harness)
    assert len(emu.dm_messages(alice)) == sent
    ((later,),) = query(bot_db, "SELECT due FROM digests WHERE user_id = ?", (alice.id,))
    assert float(later) > bot_harness.bot.clock()


@pytest.mark.both_dbs
async def test_a_digest_falling_due_with_two_processes_running_is_sent_once(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], two_with_a_clock: tuple[BotHarness, BotHarness, Path]
) -> None:
    _, one = scenes
    first, _, offset = two_with_a_clock
    alice, bob = one.alice, one.bob
    hour = (datetime.now(UTC).hour + 2) % 24  # due in one to two hours
    chosen = await emu.slash(alice, one.channel, "game notify", mode="digest", hour=hour)
    assert f"{hour:02d}:00, UTC time" in await private_reply(chosen)
    game_id = await start_game(emu, one.channel, "procession new", alice, bob, n=4, timeout="1d")
    assert emu.dm_messages(alice) == []
    offset.write_text("7300")  # both processes' clocks pass her hour at once
    for _ in range(150):
        if emu.dm_messages(alice):
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("no process sent the digest")
    await asyncio.sleep(2.5)  # (both processes have made passes since: nothing more may come)
    await emu.wait_idle()
    (digest,) = emu.dm_messages(alice)
    assert f"game #{game_id} · One" in digest.content and "your move" in digest.content
    ((due,),) = query(first.bot.settings.db_path, "SELECT due FROM digests WHERE user_id = ?", (alice.id,))
    assert float(due) > first.bot.clock()
