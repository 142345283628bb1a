"""Rematch: a finished game's final board (and its card) carry a Rematch button. The first player to
click opens a lobby of the same game with the same options, posted in the card's channel, with the
game's computers seated again; each other player joins it with one click; others are refused."""

from __future__ import annotations

import random

import pytest

from bot.registry import RULES
from tests.e2e.driver import bot_messages, is_card, private_reply
from tests.e2e.test_computers import settle
from tests.e2e.test_threads import command_for
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import Channel, MessageRecord, User
from tests.emulator.world import Scene

pytestmark = [pytest.mark.threads, pytest.mark.both_dbs]  # both_dbs: on PostgreSQL too


async def play_out(emu: DiscordEmulator, bots: BotHarness, game_id: int, people: dict[int, User]) -> None:
    """Random legal moves by slash command for the people (seat -> user) until the game ends."""
    rng = random.Random(game_id)
    for _ in range(400):
        await emu.wait_idle()
        game = await bots.bot.services.games.get(game_id)
        if not game.row.live:
            return
        ready = [s for s in game.rules.to_act(game.state) if s in people]
        if not ready:
            await settle(emu, bots, game_id, min(people))
            continue
        seat = ready[0]
        name, options = command_for(game.row.kind, rng.choice(game.rules.legal_actions(game.state, seat)))
        place = emu.channels[game.row.place_id]
        await (await emu.slash(people[seat], place, name, **options)).response()
    raise AssertionError(f"game #{game_id} did not end")


def rematch_button(message: MessageRecord) -> str:
    return str(message.button("Rematch")["custom_id"])


def final_board(emu: DiscordEmulator, place: Channel) -> MessageRecord:
    boards = [m for m in bot_messages(emu, place) if m.attachments and not is_card(m)]
    return boards[-1]


async def test_rematch_with_a_computer_is_played_to_the_end(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob = scene.alice, scene.bob
    await (await emu.slash(alice, scene.channel, "procession new", n=5)).response()
    card = next(m for m in bot_messages(emu, scene.channel) if is_card(m))
    game_id = int(card.custom_ids[0].split(":")[1])
    await (await emu.slash(alice, scene.channel, "game addbot", level="easy")).response()
    await emu.wait_idle()
    await (await emu.click(alice, emu.message(card.id), f"q:{game_id}:-:start")).response()
    await play_out(emu, bots, game_id, {0: alice})
    await emu.wait_idle()
    thread = emu.channels[card.id]
    board = final_board(emu, thread)
    assert "Rematch" in [b.get("label") for b in board.buttons()]
    assert "Rematch" in [b.get("label") for b in emu.message(card.id).buttons()]  # the card too
    # Bob did not play: refused, privately, told what to do instead.
    reply = await private_reply(await emu.click(bob, board, rematch_button(board)))
    assert "Only the players of game" in reply and "/procession new" in reply
    # Alice opens it from the final board in the thread; the new card is posted in the channel.
    reply = await private_reply(await emu.click(alice, board, rematch_button(board)))
    assert f"a rematch of game #{game_id}" in reply
    await emu.wait_idle()
    cards = [m for m in bot_messages(emu, scene.channel) if is_card(m)]
    assert len(cards) == 2
    new_card = cards[-1]
    new_id = int(new_card.custom_ids[0].split(":")[1])
    assert new_id != game_id and "🤖 Computer (easy)" in new_card.content
    new = await bots.bot.services.games.get(new_id)
    assert new.row.status == "lobby" and new.row.options == {"n": 5} and new.row.host_id == alice.id
    # A second click is answered, and changes nothing.
    reply = await private_reply(await emu.click(alice, board, rematch_button(board)))
    assert f"already in the rematch of game #{game_id}" in reply
    # The rematch survives a restart, starts and is played to the end.
    await bots.crash()
    await bots.start()
    await emu.wait_idle()
    await (await emu.click(alice, emu.message(new_card.id), f"q:{new_id}:-:start")).response()
    await play_out(emu, bots, new_id, {0: alice})
    assert (await bots.bot.services.games.get(new_id)).row.status == "finished"
    await emu.wait_idle()
    assert "Rematch" in [b.get("label") for b in final_board(emu, emu.channels[new_card.id]).buttons()]


async def test_each_previous_player_joins_the_rematch_with_one_click(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness
) -> None:
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    kind = "dots"
    await (await emu.slash(alice, scene.channel, f"{kind} new", size=3)).response()
    card = next(m for m in bot_messages(emu, scene.channel) if is_card(m))
    game_id = int(card.custom_ids[0].split(":")[1])
    for user in (bob, carol):
        await (await emu.click(user, emu.message(card.id), f"q:{game_id}:-:join")).response()
    await (await emu.click(alice, emu.message(card.id), f"q:{game_id}:-:start")).response()
    await play_out(emu, bots, game_id, {0: alice, 1: bob, 2: carol})
    await emu.wait_idle()
    board = final_board(emu, emu.channels[card.id])
    # Bob clicks first: he hosts; Carol and Alice join with one click each.
    assert "a rematch of game" in await private_reply(await emu.click(bob, board, rematch_button(board)))
    for user in (carol, alice):
        reply = await private_reply(await emu.click(user, board, rematch_button(board)))
        assert "You joined game" in reply
    await emu.wait_idle()
    new_card = [m for m in bot_messages(emu, scene.channel) if is_card(m)][-1]
    new_id = int(new_card.custom_ids[0].split(":")[1])
    new = await bots.bot.services.games.get(new_id)
    assert new.row.seats == (bob.id, carol.id, alice.id) and new.row.options == {"size": 3}
    assert all(f"<@{u.id}>" in emu.message(new_card.id).content for u in (alice, bob, carol))
    # Once started, the rematch cannot be joined from the old board any more.
    await (await emu.click(bob, emu.message(new_card.id), f"q:{new_id}:-:start")).response()
    reply = await private_reply(await emu.click(alice, board, rematch_button(board)))
    assert "has already started" in reply
    assert RULES[kind].MAX_PLAYERS >= 3
