"""Seasons end to end (issue 29), on both databases, with the clock tests can move
(QUETBOT_CLOCK_OFFSET_FILE): /game settings seasons:month announce:#channel (Manage Server) makes the
next calendar month season 1; a game finished in it puts its players on /game leaderboard
period:season; when the month ends, the season's champion and top ten are posted in the announce
channel once (also when the bot is killed right after posting it, after a restart, and with two
processes over one database); the past season stays on the leaderboard (season:1), an unknown one is
refused privately, and /game stats lists the season its champion won."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e import test_shards, test_time_away
from tests.e2e.driver import assert_discord_accepted_all, bot_messages, private_reply, start_game
from tests.e2e.test_threads import command_for
from tests.e2e.test_time_away import Clock, tick
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Perm
from tests.emulator.world import Scene


@pytest.fixture(autouse=True)
def _discord_accepted_all(emu: DiscordEmulator) -> Iterator[None]:
    """After each test: Discord would have accepted every request, each payload fits its schema."""
    yield
    assert_discord_accepted_all(emu)


pytestmark = pytest.mark.both_dbs
timed = test_time_away.timed  # (the fixture: the bot, games where they are opened, a clock the test moves)


async def play_procession(emu: DiscordEmulator, scene: Scene, harness: BotHarness) -> int:
    """Alice and Bob play a short Procession to its end with random legal flips; the winner's id."""
    game_id = await start_game(emu, scene.channel, "procession new", scene.alice, scene.bob, n=3)
    people = {scene.alice.id: scene.alice, scene.bob.id: scene.bob}
    rng = random.Random(7)
    for _ in range(100):
        game = await harness.bot.services.games.get(game_id)
        if not game.row.live:
            break
        (seat,) = game.rules.to_act(game.state)
        name, options = command_for("procession", rng.choice(game.rules.legal_actions(game.state, seat)))
        await (await emu.slash(people[game.row.seats[seat]], scene.channel, name, **options)).response()
        await emu.wait_idle()
    result = (await harness.bot.storage.get_game(game_id=game_id)).result
    assert result is not None
    (winner,) = result["winners"]
    return int(game.row.seats[winner])


async def test_a_season_counts_its_games_posts_its_champion_once_and_stays_on_record(
    emu: DiscordEmulator, scene: Scene, timed: tuple[BotHarness, Clock]
) -> None:
    harness, clock = timed
    alice, dave, news = scene.alice, scene.dave, scene.other_channel
    refused = await private_reply(await emu.slash(dave, scene.channel, "game settings", seasons="month"))
    assert "Manage Server" in refused
    emu.grant(scene.guild, dave, Perm.MANAGE_GUILD)
    chosen = await private_reply(
        await emu.slash(dave, scene.channel, "game settings", seasons="month", announce=news)
    )
    assert "Seasons here are calendar months (UTC). Season 1 begins <t:" in chosen
    assert f"Its champions are posted in <#{news.id}> when it ends." in chosen
    early = await private_reply(
        await emu.slash(alice, scene.channel, "game leaderboard", game="procession", period="season")
    )
    assert early.startswith("Season 1 has not begun: it begins <t:")

    # Into season 1 (the next calendar month): a game there counts in it.
    setting = await harness.bot.storage.season_setting(guild_id=scene.guild.id)
    assert setting is not None and setting.run is not None
    run = setting.run
    clock.forward(run.starts(1) + 3600 - harness.bot.clock())
    winner = await play_procession(emu, scene, harness)
    rec = await emu.slash(alice, scene.channel, "game leaderboard", game="procession", period="season")
    await rec.response()
    (embed,) = rec.messages[-1].embeds
    assert "(season 1)" in embed["title"] and "Season 1: " in embed["description"]
    assert "ends <t:" in embed["description"]

    # Past its end: one post with the champion and the top ten, even when the bot is killed right
    # after Discord made it (before the bot marked it sent), and not repeated after a restart.
    trap = emu.crash_after_next_request(harness, "POST /channels/*/messages")
    clock.forward(run.ends(1) + 3600 - harness.bot.clock())
    await asyncio.wait_for(trap.wait(), 10)
    await harness.start()
    await tick(emu, harness)
    (post,) = bot_messages(emu, news)
    sent = emu.requests_matching(f"POST /channels/{news.id}/messages")
    assert harness.crashes == 1 and len(sent) == 2  # sent again after the kill, with the same nonce
    assert sent[0].json["nonce"] == sent[1].json["nonce"] == f"s{scene.guild.id:x}.1"
    (ended,) = post.embeds
    assert ended["title"] == "🏆 Season 1 is over" and post.pinged == frozenset()
    assert f"**Procession**: champion <@{winner}>" in ended["description"]
    assert [f["name"] for f in ended["fields"]] == ["Procession"]
    assert ended["fields"][0]["value"].startswith(f"1. <@{winner}>: +")
    await harness.restart()
    await tick(emu, harness)
    assert len(bot_messages(emu, news)) == 1

    # The past season on the leaderboard; an unknown one refused; the champion's stats.
    rec = await emu.slash(
        alice, scene.channel, "game leaderboard", game="procession", period="season", season=1
    )
    await rec.response()
    (embed,) = rec.messages[-1].embeds
    assert "(season 1)" in embed["title"] and "(UTC), over." in embed["description"]
    unknown = await private_reply(
        await emu.slash(alice, scene.channel, "game leaderboard", game="procession", season=7)
    )
    assert unknown.startswith("There is no season 7 here. Seasons so far: 1 to 2")
    champion = scene.alice if winner == alice.id else scene.bob
    rec = await emu.slash(champion, scene.channel, "game stats")
    await rec.response()
    (stats,) = rec.messages[-1].embeds
    won = {f["name"]: f["value"] for f in stats["fields"]}["Seasons won"]
    assert won.startswith("🏆 Season 1 (") and won.endswith("): Procession")


# Two processes over one database (shards 0 and 1 of 2), with a movable clock (tests/e2e/test_shards.py).
scenes = test_shards.scenes
two_with_a_clock = test_shards.two_with_a_clock


async def test_two_processes_post_a_seasons_end_once(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], two_with_a_clock: tuple[BotHarness, BotHarness, Path]
) -> None:
    first, _, offset = two_with_a_clock
    zero, one = scenes  # (server Zero plays in its channels)
    storage, clock = first.bot.storage, Clock(offset)
    for scene in scenes:
        setting = await storage.set_seasons(
            guild_id=scene.guild.id, mode="month", channel_id=scene.other_channel.id, now=first.bot.clock()
        )
    assert setting.run is not None
    run = setting.run
    clock.forward(run.starts(1) + 3600 - first.bot.clock())
    await play_procession(emu, zero, first)
    clock.forward(run.ends(1) + 60 - first.bot.clock())  # both processes' passes race for the post
    await emu.wait_until(lambda: bool(bot_messages(emu, zero.other_channel)), what="the season's post")
    await asyncio.sleep(1.5)  # (both processes have made passes since, each second: nothing more came)
    await emu.wait_idle()
    assert len(emu.requests_matching(f"POST /channels/{zero.other_channel.id}/messages")) == 1
    (post,) = bot_messages(emu, zero.other_channel)
    assert post.embeds[0]["title"] == "🏆 Season 1 is over"
    assert bot_messages(emu, one.other_channel) == []  # no game in server One's season: no post
