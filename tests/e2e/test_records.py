"""The server's memory end to end: games of every kind finished against computers (one left by a
forfeit, one with two computers of a level), then /game leaderboard, /game stats and /game history
(paged with its buttons, before and after a restart), and the bad inputs: nobody's games, another
server's, a forged page."""

from __future__ import annotations

import asyncio
import io
import random
from typing import Any

import pytest
from PIL import Image

from bot.memory.ratings import recompute, shown
from bot.players.seats import computer_id, is_computer
from bot.table.ids import custom_id
from tests.conftest import COMPUTER_PAUSE
from tests.e2e.driver import lobby_message, private_reply
from tests.e2e.test_threads import command_for
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Channel, MessageRecord, User
from tests.emulator.world import Scene

pytestmark = [pytest.mark.threads, pytest.mark.both_dbs]  # both_dbs: on PostgreSQL too

PAUSE = COMPUTER_PAUSE


async def finish_game(
    emu: DiscordEmulator,
    bots: BotHarness,
    scene: Scene,
    kind: str,
    people: list[User],
    levels: list[str],
    *,
    seed: int,
    leaver: User | None = None,
    **options: Any,
) -> int:
    """A game of ``kind`` opened by the first of ``people``, the others joining, computers at
    ``levels`` added, played to its end with random legal moves by slash command in its thread;
    ``leaver`` forfeits with /game leave after their first move. Returns the game id."""
    host = people[0]
    await (await emu.slash(host, scene.channel, f"{kind} new", **options)).response()
    card = lobby_message(emu, scene.channel)
    game_id = int(card.custom_ids[0].split(":")[1])
    for user in people[1:]:
        await (await emu.click(user, card, card.button("Join")["custom_id"])).response()
    for level in levels:
        await (await emu.slash(host, scene.channel, "game addbot", level=level)).response()
    await emu.wait_idle()
    card = emu.message(card.id)
    await (await emu.click(host, card, card.button("Start")["custom_id"])).response()
    await emu.wait_idle()
    thread: Channel = emu.channels[card.id]
    by_id = {u.id: u for u in people}
    rng = random.Random(seed)
    moved: set[int] = set()
    for _ in range(600):
        await emu.wait_idle()
        game = await bots.bot.services.games.get(game_id)
        if not game.row.live:
            return game_id
        awaited = [s for s in sorted(game.rules.to_act(game.state)) if not is_computer(game.row.seats[s])]
        if not awaited:
            await asyncio.sleep(PAUSE)
            continue
        seat = awaited[0]
        user = by_id[game.row.seats[seat]]
        if leaver is not None and user is leaver and user.id in moved:
            await (await emu.slash(user, thread, "game leave")).response()
            leaver = None
            continue
        actions = [a for a in game.rules.legal_actions(game.state, seat) if a["type"] != "drop"]
        name, opts = command_for(kind, rng.choice(actions))
        await (await emu.slash(user, thread, name, **opts)).response()
        moved.add(user.id)
    raise AssertionError(f"game #{game_id} did not end")


def embed_of(message: MessageRecord) -> dict[str, Any]:
    assert message.ephemeral and len(message.embeds) == 1, message
    return message.embeds[0]


async def answer(rec: Any) -> MessageRecord:
    response = await rec.response()
    assert response.ephemeral, response.data
    return rec.messages[-1]


async def test_finished_games_make_a_leaderboard_stats_and_a_paged_history_that_survive_a_restart(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    games = [
        await finish_game(emu, bots, scene, "procession", [alice, bob], ["hard"], seed=1, n=4),
        await finish_game(emu, bots, scene, "dots", [alice, bob], ["hard"], seed=2, leaver=bob, size=3),
        await finish_game(emu, bots, scene, "updown", [alice], ["easy"], seed=3),
        await finish_game(emu, bots, scene, "numbers", [alice], ["hard"], seed=4, m=3),
        await finish_game(emu, bots, scene, "divisors", [alice], ["normal"], seed=5, m=3),
        await finish_game(emu, bots, scene, "dots", [alice], ["hard", "hard"], seed=6, size=3),
    ]
    storage = bots.bot.storage
    assert [(await storage.get_game(game_id=g)).status for g in games] == ["finished"] * 6
    # The ratings kept game by game are the ratings recomputed from the stored places.
    kept = await storage.rating_table()
    assert kept == {
        k: (s.rating.mu, s.rating.sigma, s.games, s.wins)
        for k, s in recompute(await storage.recorded_games()).items()
    }
    guild = scene.guild.id
    hard = computer_id("hard", 1)
    assert kept[(guild, "dots", hard)][2] == 2  # two Dots games: the one with two hard seats counts once
    assert kept[(guild, "dots", alice.id)][2] == 2 and kept[(guild, "dots", bob.id)][2] == 1
    # Bob left the first Dots game: he placed last, below the computer and Alice.
    left = (await storage.history(guild_id=guild, player_id=bob.id, kind="dots")).games[0]
    places = {s.user_id: (s.place, s.forfeited) for s in left.seats}
    assert places[bob.id] == (3, True) and places[alice.id][0] < 3 and places[hard][0] < 3

    # /game leaderboard: an image with alt text, the caller's rank, every player of the board named.
    board = await answer(await emu.slash(alice, scene.channel, "game leaderboard", game="dots"))
    embed = embed_of(board)
    assert (
        "Lines By The Dots" in embed["title"] and embed["image"]["url"] == "attachment://leaderboard-dots.png"
    )
    (image,) = board.attachments
    png = Image.open(io.BytesIO(image.data))
    assert png.width >= 400 and png.height >= 140
    alt = image.description or ""
    assert alt.startswith("Lines By The Dots leaderboard, all time") and "Computer (hard)" in alt
    assert "Alice" in alt and "Bob" in alt and "Computer 2" not in alt
    rating = shown(kept[(guild, "dots", alice.id)][0] - 3 * kept[(guild, "dots", alice.id)][1])
    assert f"{rating}, 2 games" in alt
    assert "You are #" in embed["description"] and f"{rating:,}" in embed["description"]
    weekly = await answer(
        await emu.slash(bob, scene.channel, "game leaderboard", game="procession", period="week")
    )
    alt = weekly.attachments[0].description or ""
    assert "this week, ranked by rating gained" in alt and "Bob" in alt

    # /game stats: per game, rating and trend, wins and share, time to move, favourite opponents.
    stats = embed_of(await answer(await emu.slash(alice, scene.channel, "game stats")))
    fields = {f["name"]: f["value"] for f in stats["fields"]}
    assert set(fields) == {
        "Procession",
        "Lines By The Dots",
        "Up-Down-Stay",
        "Numbers To Number",
        "The Numerical Card Game",
        "Favourite opponents",
    }
    assert (
        f"Rating **{rating:,}**" in fields["Lines By The Dots"]
        and "over the last 2 games" in fields["Lines By The Dots"]
    )
    assert "2 games · " in fields["Lines By The Dots"] and "per move" in fields["Numbers To Number"]
    assert fields["Favourite opponents"].startswith("🤖 Computer (hard): 4 games")
    assert f"<@{bob.id}>: 2 games" in fields["Favourite opponents"]
    bob_stats = embed_of(await answer(await emu.slash(alice, scene.channel, "game stats", player=bob)))
    assert {f["name"] for f in bob_stats["fields"]} == {
        "Procession",
        "Lines By The Dots",
        "Favourite opponents",
    }

    # /game history: five games a page, newest first, each with its link; Next and Prev.
    history = await answer(await emu.slash(alice, scene.channel, "game history"))
    text = embed_of(history)["description"]
    assert text.count("[final board](https://discord.com/channels/") == 5
    assert f"#{games[-1]}:" in text and f"#{games[0]}:" not in text
    assert embed_of(history)["footer"]["text"] == "Page 1 of 2 · 6 games"
    assert history.button("Prev").get("disabled") and not history.button("Next").get("disabled")
    await (await emu.click(alice, history, history.button("Next")["custom_id"])).response()
    history = emu.message(history.id)
    assert f"#{games[0]}:" in embed_of(history)["description"]
    assert embed_of(history)["footer"]["text"] == "Page 2 of 2 · 6 games"
    assert history.button("Next").get("disabled")
    # A link points at the game's final board, in its thread.
    first = await storage.get_game(game_id=games[0])
    assert f"/{guild}/{first.place_id}/{first.board_message_id})" in embed_of(history)["description"]
    only = embed_of(
        await answer(await emu.slash(alice, scene.channel, "game history", player=bob, game="dots"))
    )
    assert only["footer"]["text"] == "Page 1 of 1 · 1 game" and "(left)" in only["description"]

    # A restart: the ratings are read back, and the old history message still pages.
    await bots.restart()
    await emu.wait_idle()
    again = await answer(await emu.slash(alice, scene.channel, "game leaderboard", game="dots"))
    assert again.attachments[0].description == board.attachments[0].description
    await (await emu.click(alice, history, history.button("Prev")["custom_id"])).response()
    assert embed_of(emu.message(history.id))["footer"]["text"] == "Page 1 of 2 · 6 games"


async def test_bad_input_gets_a_clear_private_answer_and_no_other_servers_games(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    await finish_game(emu, bots, scene, "procession", [alice], ["easy"], seed=7, n=3)
    other = emu.add_scene("Another Server")
    carol = other.alice
    # Nobody has played in the other server: its boards are empty, whatever was played here.
    reply = await private_reply(await emu.slash(carol, other.channel, "game leaderboard", game="procession"))
    assert "No Procession game has finished in this server yet" in reply
    reply = await private_reply(await emu.slash(carol, other.channel, "game stats"))
    assert reply.startswith("You have no finished game in this server yet")
    reply = await private_reply(await emu.slash(carol, other.channel, "game history", game="dots"))
    assert "no finished game of Lines By The Dots" in reply
    # Here: someone without games, and a period without games.
    reply = await private_reply(await emu.slash(alice, scene.channel, "game stats", player=bob))
    assert reply == f"<@{bob.id}> has no finished game in this server yet."
    reply = await private_reply(await emu.slash(alice, scene.channel, "game leaderboard", game="numbers"))
    assert "No Numbers To Number game has finished" in reply
    # A history button naming Alice, clicked in the other server, shows nothing of this one.
    forged = custom_id(alice.id, "history", "all.0.999999")
    button = {"type": 2, "style": 2, "label": "Next", "custom_id": forged}
    old = emu.create_message(
        other.channel, emu.bot_user, {"content": "", "components": [{"type": 1, "components": [button]}]}
    )
    reply = await private_reply(await emu.click(carol, old, forged))
    assert "empty" in reply
    # A malformed one is refused, politely.
    for bad in (custom_id(alice.id, "history", "chess.0.1"), custom_id(alice.id, "history", "x")):
        button = {"type": 2, "style": 2, "label": "Next", "custom_id": bad}
        old = emu.create_message(
            scene.channel, emu.bot_user, {"content": "", "components": [{"type": 1, "components": [button]}]}
        )
        assert "not one I recognise" in await private_reply(await emu.click(alice, old, bad))
    # The same button in this server pages Alice's games.
    button = {"type": 2, "style": 2, "label": "Next", "custom_id": forged}
    old = emu.create_message(
        scene.channel, emu.bot_user, {"content": "", "components": [{"type": 1, "components": [button]}]}
    )
    rec = await emu.click(bob, old, forged)
    await rec.response()
    assert "Procession" in emu.message(old.id).embeds[0]["description"]
