"""Procession end to end: the real bot, the real discord.py, the loopback emulator."""

from __future__ import annotations

import pytest

from tests.e2e.driver import (
    assert_clean,
    assert_png,
    bot_messages,
    click_label,
    db_snapshot,
    is_card,
    latest_board,
    lobby_message,
    private_reply,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import CallbackType
from tests.emulator.world import Scene


async def open_game(emu: DiscordEmulator, scene: Scene, players: int, n: int, *, by_buttons: bool) -> None:
    host, *others = scene.players[:players]
    rec = await emu.slash(host, scene.channel, "procession new", n=n)
    assert not (await rec.response()).ephemeral
    lobby = lobby_message(emu, scene.channel)
    assert "game #" in lobby.content and host.mention in lobby.content
    for user in others:
        if by_buttons:
            rec = await click_label(emu, user, lobby, "Join")
            await rec.response()
        else:
            rec = await emu.slash(user, scene.channel, "game join")
            assert "You joined" in await private_reply(rec)
        await emu.wait_idle()
    for user in scene.players[:players]:
        assert user.mention in lobby.content
    if by_buttons:
        rec = await click_label(emu, host, lobby, "Start")
    else:
        rec = await emu.slash(host, scene.channel, "game start")
    await rec.response()
    await emu.wait_idle()
    assert [c.split(":")[3] for c in lobby.custom_ids] == ["rules"]  # the lobby lost its buttons but Rules
    assert "has started" in lobby.content


SEED_GAME = [
    (4, "00010", "{3,1,1}"),
    (1, "10010", "{2,1,1,1}"),
    (5, "10011", "{2,2,1}"),
    (1, "00011", "{3,2}"),
    (4, "00001", "{4,1}"),
]


async def test_seed_sample_game_by_slash_commands(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    await play_the_seed_game(emulator, scene)


@pytest.mark.drawn_in_worker
async def test_the_seed_game_with_boards_drawn_in_a_worker_process(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    """As the bot runs by default: boards drawn by a worker process (bot/table/drawing.py)."""
    drawing = bot_harness.bot.drawing
    assert await drawing.ready()
    await play_the_seed_game(emulator, scene)
    assert drawing.in_workers >= 1 + len(SEED_GAME)  # every board: the first one, one per move


async def play_the_seed_game(emulator: DiscordEmulator, scene: Scene) -> None:
    await open_game(emulator, scene, 2, 5, by_buttons=False)
    first = latest_board(emulator, scene.channel)
    assert scene.alice.mention in first.content and "your move" in first.content
    assert_png(first)
    players = [scene.alice, scene.bob]
    for i, (position, row, multiset) in enumerate(SEED_GAME):
        if i == 3:  # the seed's aside: 10111 would repeat {3,1,1}
            rec = await emulator.slash(players[i % 2], scene.channel, "procession flip", position=3)
            assert "already occurred" in await private_reply(rec)
        rec = await emulator.slash(players[i % 2], scene.channel, "procession flip", position=position)
        response = await rec.response()
        assert not response.ephemeral
        await emulator.wait_idle()
        board = latest_board(emulator, scene.channel)
        assert f"`{row}` {multiset}" in board.content
        assert_png(board)
    final = latest_board(emulator, scene.channel)
    assert "🏆" in final.content and scene.alice.mention in final.content and "wins" in final.content
    assert [b["label"] for b in final.buttons()] == ["Rematch"]  # a finished game's only control
    # every earlier board lost its buttons
    earlier = [m for m in bot_messages(emulator, scene.channel) if not is_card(m) and m.id != final.id]
    assert all(m.custom_ids == [] for m in earlier)
    assert_clean(emulator)


@pytest.mark.both_dbs
async def test_three_players_by_buttons(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    await open_game(emulator, scene, 3, 4, by_buttons=True)
    players = [scene.alice, scene.bob, scene.carol]
    turn = 0
    for _ in range(20):
        board = latest_board(emulator, scene.channel)
        if all(c.endswith(":rematch") for c in board.custom_ids):  # over: a Rematch at most
            break
        enabled = [b for b in board.buttons() if not b.get("disabled")]
        assert enabled
        assert players[turn].mention in board.content.splitlines()[-1]
        rec = await emulator.click(players[turn], board, enabled[0]["custom_id"])
        assert not (await rec.response()).ephemeral
        await emulator.wait_idle()
        turn = (turn + 1) % 3
    final = latest_board(emulator, scene.channel)
    assert "wins" in final.content and [b["label"] for b in final.buttons()] == ["Rematch"]
    # The move log replays to the stored state.
    service = bot_harness.bot.services
    row = await service.games.storage.latest_game_at(place_id=scene.channel.id)
    assert row is not None and row.status == "finished"
    assert (await service.history.replay(row.id)).to_dict() == row.state
    assert_clean(emulator)


async def test_restart_mid_game_keeps_the_game_and_its_buttons(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    await open_game(emulator, scene, 2, 6, by_buttons=True)
    board = latest_board(emulator, scene.channel)
    rec = await click_label(emulator, scene.alice, board, "2")
    await rec.response()
    await emulator.wait_idle()
    board = latest_board(emulator, scene.channel)
    await bot_harness.restart()
    rec = await click_label(emulator, scene.bob, board, "5")  # a button posted before the restart
    response = await rec.response()
    # A click on the board is answered at once by taking that board's buttons off (before the new
    # board is drawn); the new board follows in the channel.
    assert response.type is CallbackType.UPDATE_MESSAGE and not response.ephemeral
    assert board.custom_ids == []
    await emulator.wait_idle()
    after = latest_board(emulator, scene.channel)
    assert after.id != board.id and "`010010`" in after.content
    assert scene.alice.mention in after.content.splitlines()[-1]
    assert_clean(emulator)


async def test_bad_input_is_answered_privately_and_changes_nothing(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "procession flip", position=1)
    assert "no Procession game" in await private_reply(rec)
    await open_game(emulator, scene, 2, 5, by_buttons=True)
    board = latest_board(emulator, scene.channel)
    before = db_snapshot(bot_db)
    count = len(bot_messages(emulator, scene.channel))
    cases = [
        (scene.alice, "procession flip", {"position": 6}, "does not exist"),
        (scene.bob, "procession flip", {"position": 1}, "turn"),
        (scene.carol, "procession flip", {"position": 1}, "not playing"),
        (scene.carol, "game leave", {}, "not playing"),
        (scene.bob, "game cancel", {}, "Only the host"),
        (scene.bob, "game start", {}, "already started"),
    ]
    for user, command, options, expected in cases:
        rec = await emulator.slash(user, scene.channel, command, **options)
        assert expected in await private_reply(rec), command
    for user, label, expected in [(scene.bob, "1", "turn"), (scene.carol, "2", "not playing")]:
        rec = await click_label(emulator, user, board, label)
        assert expected in await private_reply(rec)
    await emulator.wait_idle()
    assert db_snapshot(bot_db) == before
    assert len(bot_messages(emulator, scene.channel)) == count
    assert_clean(emulator)


async def test_a_double_click_applies_once_and_the_second_is_told_the_board_is_old(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    await open_game(emulator, scene, 2, 5, by_buttons=True)
    board = latest_board(emulator, scene.channel)
    first = await click_label(emulator, scene.alice, board, "3")
    second = await click_label(emulator, scene.alice, board, "3")
    assert not (await first.response()).ephemeral
    assert "out of date" in await private_reply(second)
    await emulator.wait_idle()
    _games, moves = db_snapshot(bot_db)
    assert moves == (1,)


async def test_forfeit_cancel_status_rules_and_threads(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    await open_game(emulator, scene, 3, 5, by_buttons=False)
    # A second game may open in the same channel (its own card), and in a thread; Dave closes the
    # first from its card.
    rec = await emulator.slash(scene.dave, scene.channel, "procession new", n=4)
    card = (await rec.response()).message
    assert card is not None and not card.flags & 64
    await (await emulator.click(scene.dave, card, card.button("Cancel")["custom_id"])).response()
    card = emulator.message(card.id)
    assert "closed" in card.content and card.custom_ids == []
    rec = await emulator.slash(scene.dave, scene.thread, "procession new", n=4)
    assert not (await rec.response()).ephemeral
    # /game status: the board again, privately, with whose move it is.
    rec = await emulator.slash(scene.carol, scene.channel, "game status")
    response = await rec.response()
    assert response.ephemeral and scene.alice.mention in rec.ephemeral_texts()[-1]
    assert response.message is not None and response.message.attachments
    rec = await emulator.slash(scene.carol, scene.channel, "game rules", game="procession")
    assert "00001" in await private_reply(rec)
    # Alice (to move) forfeits: the game goes on with Bob to move.
    rec = await emulator.slash(scene.alice, scene.channel, "game leave")
    assert not (await rec.response()).ephemeral
    await emulator.wait_idle()
    board = latest_board(emulator, scene.channel)
    assert "forfeit" in board.content and scene.bob.mention in board.content.splitlines()[-1]
    rec = await emulator.slash(scene.alice, scene.channel, "procession flip", position=1)
    assert "turn" in await private_reply(rec)
    # A moderator (Manage Messages) may cancel; the board loses its buttons.
    rec = await emulator.slash(scene.mod, scene.channel, "game cancel")
    assert "cancelled" in (await rec.response()).data.get("content", "")
    await emulator.wait_idle()
    assert board.custom_ids == []
    rec = await emulator.slash(scene.bob, scene.channel, "procession flip", position=1)
    assert "no Procession game" in await private_reply(rec)
    assert_clean(emulator)


async def test_last_player_standing_wins_after_forfeits(
    emulator: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    await open_game(emulator, scene, 2, 5, by_buttons=True)
    rec = await emulator.slash(scene.bob, scene.channel, "game leave")
    await rec.response()
    await emulator.wait_idle()
    final = latest_board(emulator, scene.channel)
    assert scene.alice.mention in final.content and "wins" in final.content
    assert [b["label"] for b in final.buttons()] == ["Rematch"]
    assert_clean(emulator)
