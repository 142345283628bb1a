"""Races and faults: every move applied exactly once, whatever arrives at the same moment and
whatever Discord answers (429, 500, a dropped gateway)."""

from __future__ import annotations

import asyncio
import random

import pytest

from cogs.procession import rules as procession
from cogs.updown import rules as updown
from tests.e2e.driver import latest_board, move_count, start_game
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Channel, Scene, User


async def start(
    emu: DiscordEmulator, channel: Channel, command: str, host: User, *others: User, **opts: int
) -> int:
    return await start_game(emu, channel, command, host, *others, **opts)


@pytest.mark.both_dbs
async def test_the_same_button_pressed_twice_at_once(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    game_id = await start(emu, scene.channel, "procession new", scene.alice, scene.bob, n=5)
    board = latest_board(emu, scene.channel)
    cid = board.button("1")["custom_id"]
    first, second = await asyncio.gather(
        emu.click(scene.alice, board, cid), emu.click(scene.alice, board, cid)
    )
    answers = await asyncio.gather(first.response(), second.response())
    await emu.wait_idle()
    assert move_count(bot_db, game_id) == 1
    assert sorted(a.ephemeral for a in answers) == [False, True]
    stale = first if answers[0].ephemeral else second
    assert "out of date" in stale.ephemeral_texts()[-1]


@pytest.mark.both_dbs
async def test_two_players_at_once_and_a_dm_reply_racing_a_command(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await start(emu, scene.channel, "updown new", alice, bob)
    await emu.wait_until(lambda: emu.dm_messages(alice) and emu.dm_messages(bob), what="the hands")
    # Both predict at the same moment: both predictions are in, each once.
    one, two = await asyncio.gather(
        emu.slash(alice, scene.channel, "updown predict", letters="U"),
        emu.slash(bob, scene.channel, "updown predict", letters="D"),
    )
    await asyncio.gather(one.response(), two.response())
    await emu.wait_idle()
    state = (await bot_harness.bot.services.games.get(game_id)).state
    assert state.predictions == ("U", "D") and state.phase == "place"
    assert move_count(bot_db, game_id) == 2
    # Alice's card by a typed DM and by a command at once: one card is placed, the other is refused.
    rank = updown.rank_label(updown.card_rank(state.hands[0][0]))
    dms_before = len(emu.dm_messages(alice))
    _, rec = await asyncio.gather(
        emu.send_dm(alice, rank), emu.slash(alice, scene.channel, "updown play", card=rank)
    )
    await rec.response()

    def answers() -> list[str]:
        return [m.content for m in emu.dm_messages(alice)[dms_before:]] + rec.ephemeral_texts()

    await emu.wait_until(lambda: len(answers()) >= 2, what="both answers")
    await emu.wait_idle()
    state = (await bot_harness.bot.services.games.get(game_id)).state
    assert len(state.row) == 1 and move_count(bot_db, game_id) == 3
    assert sum("You placed" in a for a in answers()) == 1, answers()
    assert any("turn" in a or "None of your games is waiting" in a for a in answers()), answers()


async def test_faults_and_a_dropped_gateway_lose_and_duplicate_nothing(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    users = [scene.alice, scene.bob, scene.carol]
    game_id = await start(emu, scene.channel, "procession new", *users, n=10)
    rng = random.Random(7)
    faults = 0
    acknowledged = 0
    for turn in range(200):
        game = await bot_harness.bot.services.games.get(game_id)
        if not game.row.live:
            break
        state = game.state
        seat = next(iter(procession.to_act(state)))
        position = rng.choice(procession.legal_positions(state))
        if turn % 4 == 1:
            emu.fail_next("POST /interactions/*", status=429)
            faults += 1
        elif turn % 4 == 2:
            emu.fail_next("POST /channels/*/messages", status=500)
            emu.fail_next("PATCH /channels/*/messages/*", status=429)
            faults += 2
        elif turn % 4 == 3:
            await emu.drop_gateway()
            faults += 1
        if turn % 2:
            rec = await emu.slash(users[seat], scene.channel, "procession flip", position=position)
        else:
            board = latest_board(emu, scene.channel)
            rec = await emu.click(users[seat], board, board.button(str(position))["custom_id"])
        response = await rec.response(timeout=10)
        assert not response.ephemeral, rec.ephemeral_texts()
        acknowledged += 1
        await emu.wait_idle()
        assert move_count(bot_db, game_id) == acknowledged
    game = await bot_harness.bot.services.games.get(game_id)
    assert game.row.status == "finished"
    assert await bot_harness.bot.services.history.replay(game_id) == game.state
    assert faults >= 4
    failed = [r for r in emu.requests if r.status in (429, 500)]
    assert len(failed) >= 3  # discord.py met them and retried
    assert "wins" in latest_board(emu, scene.channel).content


async def test_a_move_saved_before_a_failure_is_reported_as_saved(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob = scene.alice, scene.bob
    game_id = await start(emu, scene.channel, "updown new", alice, bob)
    # The bot loses every permission in the server: the board cannot be edited to say "has predicted".
    emu.set_bot_permissions(scene.guild, 0)
    rec = await emu.slash(alice, scene.channel, "updown predict", letters="UD")
    await rec.response()
    await emu.wait_until(lambda: any("is saved" in t for t in rec.ephemeral_texts()), what="the saved notice")
    assert not any("Nothing was changed" in t for t in rec.ephemeral_texts())
    assert (await bot_harness.bot.services.games.get(game_id)).state.predictions[0] == "UD"
    assert move_count(bot_db, game_id) == 1
