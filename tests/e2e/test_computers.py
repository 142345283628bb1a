"""Computer players: added in the lobby, moving when the rules wait for them, through a restart.

Each whole game is one person (alice, who plays random legal moves by slash command in the game's
thread) against one or two computers; the bot is restarted in the middle while a computer's move is
pending, and that move happens after the restart, once.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from typing import Any

import pytest

from bot.players.seats import is_computer
from bot.registry import RULES
from tests.conftest import COMPUTER_PAUSE
from tests.e2e.driver import bot_messages, forge_component, lobby_message, private_reply, wait_dm_control
from tests.e2e.test_threads import command_for
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Channel, MessageRecord, User
from tests.emulator.world import Scene

pytestmark = pytest.mark.threads

PAUSE = COMPUTER_PAUSE
SMALL = {"procession": {"n": 5}, "dots": {"size": 3}, "updown": {}, "numbers": {"m": 3}, "divisors": {"m": 4}}


async def add_computer(emu: DiscordEmulator, host: User, card: MessageRecord, level: str) -> str:
    """The host's Add computer button, then the level from the private menu; the private answer."""
    rec = await emu.click(host, card, card.button("Add computer")["custom_id"])
    await rec.response()
    menu_message = rec.messages[-1]
    menu = next(c for row in menu_message.components for c in row["components"] if c["type"] == 3)
    chosen = await emu.select(host, menu_message, menu["custom_id"], [level])
    await chosen.response()
    await emu.wait_idle()
    return str(emu.message(menu_message.id).content)


async def computer_moves(harness: BotHarness, game_id: int) -> list[int]:
    game = await harness.bot.services.games.get(game_id)
    return [
        m.seat
        for m in await harness.bot.storage.moves(game_id=game_id)
        if is_computer(game.row.seats[m.seat])
    ]


async def settle(emu: DiscordEmulator, harness: BotHarness, game_id: int, person: int) -> Any:
    """Wait until the game is over or waits for the person (the computers have moved)."""
    for _ in range(400):
        await emu.wait_idle()
        game = await harness.bot.services.games.get(game_id)
        if not game.row.live or person in game.rules.to_act(game.state):
            return game
        await asyncio.sleep(PAUSE)
    raise AssertionError(f"the computers of game #{game_id} did not move")


@pytest.mark.both_dbs
@pytest.mark.parametrize("kind", sorted(RULES))
async def test_a_person_plays_a_whole_game_against_computers_with_a_restart(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, kind: str
) -> None:
    alice = scene.alice
    rules = RULES[kind]
    await (await emu.slash(alice, scene.channel, f"{kind} new", **SMALL[kind])).response()
    card = lobby_message(emu, scene.channel)
    game_id = int(card.custom_ids[0].split(":")[1])
    levels = ["hard"] if rules.MAX_PLAYERS == 2 else ["hard", "easy"]
    for level in levels:
        assert "joined" in await add_computer(emu, alice, emu.message(card.id), level)
    card = emu.message(card.id)
    assert "🤖 Computer (hard)" in card.content
    if len(levels) > 1:
        assert "🤖 Computer 2 (easy)" in card.content
    await (await emu.click(alice, card, card.button("Start")["custom_id"])).response()
    await emu.wait_idle()
    thread: Channel = emu.channels[card.id]
    assert alice.id in {m.id for m in emu.thread_members(thread)}
    rng = random.Random(kind)
    restarted = False
    for _ in range(300):
        game = await settle(emu, bots, game_id, 0)
        if not game.row.live:
            break
        actions = [a for a in rules.legal_actions(game.state, 0) if a["type"] != "drop"]
        name, options = command_for(kind, rng.choice(actions))
        rec = await emu.slash(alice, thread, name, **options)
        await rec.response()
        after = await bots.bot.services.games.get(game_id)
        awaited = after.rules.to_act(after.state) if after.row.live else frozenset()
        waits_for_computer = any(is_computer(after.row.seats[s]) for s in awaited)
        if not restarted and waits_for_computer and await bots.bot.storage.moves(game_id=game_id):
            # The bot dies with a computer's move pending; it is made after the restart, once.
            await bots.crash()
            await bots.start()
            restarted = True
    else:
        raise AssertionError("the game did not end")
    assert restarted, "no computer move was pending at any point"
    game = await bots.bot.services.games.get(game_id)
    assert game.row.status == "finished"
    assert await bots.bot.services.history.replay(game_id) == game.state  # the log replays: nothing twice
    assert await computer_moves(bots, game_id), "the computers never moved"
    # No computer got a DM, a ping or a thread membership; people were named, computers too.
    text = " ".join(m.content for m in emu.channel_messages(thread))
    assert "🤖 Computer (hard)" in text and "<@-" not in text
    assert all(m.id > 0 for m in emu.thread_members(thread))
    assert [m.id for m in bot_messages(emu, scene.channel)] == [card.id]


async def test_the_host_adds_and_removes_computers_and_only_the_host(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    await (await emu.slash(alice, scene.channel, "numbers new")).response()
    card = lobby_message(emu, scene.channel)
    game_id = int(card.custom_ids[0].split(":")[1])
    reply = await private_reply(await emu.click(bob, card, card.button("Add computer")["custom_id"]))
    assert "Only the host" in reply
    reply = await private_reply(await emu.slash(bob, scene.channel, "game addbot", level="easy"))
    assert "Only the host" in reply or "not" in reply
    reply = await private_reply(await emu.slash(alice, scene.channel, "game addbot", level="normal"))
    assert "🤖 Computer (normal) joined" in reply
    await emu.wait_idle()
    card = emu.message(card.id)
    assert "🤖 Computer (normal)" in card.content and "Add computer" not in str(card.components)  # full
    reply = await private_reply(await emu.slash(alice, scene.channel, "game addbot", level="hard"))
    assert "full" in reply
    await (await emu.click(alice, card, card.button("Remove computer")["custom_id"])).response()
    card = emu.message(card.id)
    assert "Computer" not in card.content and "Add computer" in str(card.components)
    # A lobby of computers alone is no game: the host leaving closes it.
    await (await emu.slash(alice, scene.channel, "game addbot", level="easy")).response()
    await (await emu.slash(alice, scene.channel, "game leave")).response()
    await emu.wait_idle()
    assert (await bots.bot.services.games.get(game_id)).row.status == "cancelled"


def _token(letters: str) -> re.Pattern[str]:
    """The prediction as a word of its own (not a piece of a longer run of letters)."""
    return re.compile(rf"(?<![A-Za-z]){letters}(?![A-Za-z])")


async def test_a_computers_prediction_stays_secret_until_the_reveal(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    """Up-Down-Stay: the computer predicts at once, like a person; its letters show nowhere (channel,
    thread, the person's DMs, custom ids, every request and log line) until every card is placed, and
    then they do. Before the first card nothing public holds U/D/S words at all; once cards are placed
    the row's changes are public (and may contain the same letters), so from then on the check looks
    for the prediction as the bot writes predictions (`UDUD`)."""
    caplog.set_level(logging.DEBUG)
    alice = scene.alice
    await (await emu.slash(alice, scene.channel, "updown new")).response()
    card = lobby_message(emu, scene.channel)
    game_id = int(card.custom_ids[0].split(":")[1])
    await add_computer(emu, alice, emu.message(card.id), "hard")
    await (await emu.click(alice, emu.message(card.id), f"q:{game_id}:-:start")).response()

    secret = ""
    for _ in range(400):
        await emu.wait_idle()
        game = await bots.bot.services.games.get(game_id)
        if game.state.predictions[1] is not None:
            secret = game.state.predictions[1]
            break
        await asyncio.sleep(PAUSE)
    assert secret, "the computer did not predict"
    word = _token(secret)

    def everything_seen() -> list[str]:
        public = [repr(p.body) for p in emu.all_public_payloads()]
        dms = [repr(v) for m in emu.dm_messages(alice, include_deleted=True) for v in m.versions]
        return public + dms + [r.getMessage() for r in caplog.records]

    assert not any(word.search(blob) for blob in everything_seen()), f"{secret!r} leaked"
    # Alice predicts and plays out the deal; the prediction stays hidden until the last card.
    panel, predict = await wait_dm_control(emu, alice, game_id, "predict")
    rec = await emu.click(alice, panel, predict)
    await rec.response()
    await (await emu.submit_modal(alice, rec, values={"letters": "SSSS"})).response()
    for _ in range(300):
        game = await settle(emu, bots, game_id, 0)
        if game.state.phase != "place" or game.state.deal != 0:
            break
        assert not any(f"`{secret}`" in blob for blob in everything_seen()), f"{secret!r} leaked"
        card_rank = game.rules.legal_actions(game.state, 0)[0]
        name, options = command_for("updown", card_rank)
        await (await emu.slash(alice, emu.channels[card.id], name, **options)).response()
    await emu.wait_idle()
    revealed = [p for p in emu.all_public_payloads() if f"`{secret}`" in repr(p.body)]
    assert revealed, "the computer's prediction was not revealed at the end of the deal"


async def test_forged_levels_and_computers_removed_by_others_change_nothing(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    await (await emu.slash(alice, scene.channel, "divisors new")).response()
    card = lobby_message(emu, scene.channel)
    game_id = int(card.custom_ids[0].split(":")[1])
    await (await emu.click(bob, card, card.button("Join")["custom_id"])).response()
    assert "joined" in await add_computer(emu, alice, emu.message(card.id), "easy")
    before = (await bots.bot.services.games.get(game_id)).row
    # A level the menu never offered, by a forged select and by a forged slash option.
    forged = await forge_component(emu, alice, scene.channel, f"q:{game_id}:-:addbot", values=["godlike"])
    reply = await private_reply(forged)
    assert "easy, normal or hard" in reply
    forged_slash = await emu.forged_slash(alice, scene.channel, "game addbot", level="godlike")
    assert "easy, normal or hard" in await private_reply(forged_slash)
    # Bob (not the host) removes the computer: refused, privately, naming who may.
    remove = emu.message(card.id).button("Remove computer")["custom_id"]
    reply = await private_reply(await emu.click(bob, emu.message(card.id), remove))
    assert "Only the host" in reply
    await emu.wait_idle()
    after = (await bots.bot.services.games.get(game_id)).row
    assert after.seats == before.seats and after.version == before.version
