"""Takebacks end to end (`/game undo`): asked in the game's place, answered with Accept / Decline by
the other players; accepted, the position before the move returns with a new board and the log keeps
the move, marked; declined or unanswered for an hour, nothing changes; computers answer at once
(easy and normal once a game, hard never); and the refusals, privately."""

from __future__ import annotations

import pytest

from tests.db import change, query
from tests.e2e.driver import (
    bot_messages,
    db_snapshot,
    forge_component,
    latest_board,
    private_reply,
    start_game,
)
from tests.e2e.test_deadlines import tick
from tests.e2e.test_threads import command_for
from tests.emulator import DiscordEmulator, InteractionFailed
from tests.emulator.harness import BotHarness
from tests.emulator.models import Channel, MessageRecord
from tests.emulator.world import Scene, User


def logged(db: str, game_id: int) -> list[tuple[int, int, bool]]:
    """The game's move log: (seq, seat, taken back?)."""
    rows = query(db, "SELECT seq, seat, undone FROM moves WHERE game_id = ? ORDER BY seq", (game_id,))
    return [(int(r[0]), int(r[1]), r[2] is not None) for r in rows]


async def ask(emu: DiscordEmulator, user: User, channel: Channel) -> MessageRecord:
    """``user``'s /game undo, asked publicly: the request's message."""
    rec = await emu.slash(user, channel, "game undo")
    response = await rec.response()
    assert not response.ephemeral, rec.texts()
    await emu.wait_idle()
    return rec.messages[-1]


async def flip(emu: DiscordEmulator, harness: BotHarness, user: User, channel: Channel, game_id: int) -> None:
    """``user`` flips the first position the rules allow them."""
    game = await harness.bot.services.games.get(game_id)
    seat = game.row.seat_of(user.id)
    assert seat is not None
    position = game.rules.legal_actions(game.state, seat)[0]["position"]
    await (await emu.slash(user, channel, "procession flip", position=position)).response()
    await emu.wait_idle()


@pytest.mark.both_dbs
async def test_two_people_take_a_procession_move_back_or_not(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    channel = scene.channel
    game_id = await start_game(emu, channel, "procession new", alice, bob, n=4)
    games = bot_harness.bot.services.games
    start = (await games.get(game_id)).state
    said = await private_reply(await emu.slash(alice, channel, "game undo"))
    assert "no move to take back" in said

    await flip(emu, bot_harness, alice, channel, game_id)
    moved = await games.get(game_id)
    old_board = latest_board(emu, channel)
    old_flip = old_board.custom_ids[0]
    assert "no move to take back" in await private_reply(await emu.slash(bob, channel, "game undo"))

    # Asked: one public message naming alice and her move, mentioning bob, with the two buttons.
    request = await ask(emu, alice, channel)
    assert f"<@{alice.id}> asks to take back" in request.content and "flipped position" in request.content
    assert bob.id in request.pinged and alice.id not in request.pinged
    assert "already asked" in await private_reply(await emu.slash(alice, channel, "game undo"))
    own = await private_reply(await emu.click(alice, request, request.button("Accept")["custom_id"]))
    assert "You asked for this takeback" in own
    other = await private_reply(await emu.click(carol, request, request.button("Accept")["custom_id"]))
    assert "Only the other players" in other
    assert (await games.get(game_id)).row.version == moved.row.version

    # The request survives a restart: its buttons still work. Accepted: the position before the
    # move, a new board (alice to move again), the move marked.
    await bot_harness.restart()
    games = bot_harness.bot.services.games
    boards = len(bot_messages(emu, channel))
    await (await emu.click(bob, request, request.button("Accept")["custom_id"])).response()
    await emu.wait_idle()
    after = await games.get(game_id)
    assert after.state == start and after.row.version == moved.row.version + 1
    assert "Taken back" in emu.message(request.id).content and not emu.message(request.id).custom_ids
    board = latest_board(emu, channel)
    assert len(bot_messages(emu, channel)) > boards and board.id != old_board.id
    assert f"<@{alice.id}>'s last move is taken back" in board.content
    assert f"<@{alice.id}>, your move." in board.content
    assert logged(bot_db, game_id) == [(1, 0, True)]
    assert [w.seat for w in await bot_harness.bot.storage.waits_of_game(game_id=game_id)] == [0]
    assert await bot_harness.bot.services.history.replay(game_id) == after.state
    # The old board's buttons are gone, and refused as stale.
    assert not emu.message(old_board.id).custom_ids
    stale = await private_reply(await forge_component(emu, bob, channel, old_flip))
    assert "out of date" in stale

    # Declined: nothing changes.
    await flip(emu, bot_harness, alice, channel, game_id)
    request = await ask(emu, alice, channel)
    before = db_snapshot(bot_db)
    await (await emu.click(bob, request, request.button("Decline")["custom_id"])).response()
    await emu.wait_idle()
    assert "declined: nothing changes" in emu.message(request.id).content
    assert db_snapshot(bot_db) == before

    # Not answered within an hour (the stored clock moved on): nothing changes, the message says so,
    # and the late answer is refused.
    request = await ask(emu, alice, channel)
    accept = request.button("Accept")["custom_id"]
    await change(bot_db, "UPDATE undo_requests SET expires_at = expires_at - 3601")
    await tick(emu, bot_harness)
    assert "not answered within an hour" in emu.message(request.id).content
    assert db_snapshot(bot_db) == before
    late = await private_reply(await forge_component(emu, bob, channel, accept))
    assert "answered already" in late

    # A request whose message Discord refused (the interaction expired) holds nothing: asked again,
    # it is asked.
    emu.expire_next_interaction(user=alice, command="game undo")
    with pytest.raises(InteractionFailed):
        await (await emu.slash(alice, channel, "game undo")).response()
    await emu.wait_idle()
    assert query(bot_db, "SELECT status FROM undo_requests ORDER BY id DESC LIMIT 1") == [("lapsed",)]
    request = await ask(emu, alice, channel)
    await (await emu.click(bob, request, request.button("Decline")["custom_id"])).response()
    await emu.wait_idle()

    # Once someone moved after it, a move is no longer taken back.
    await flip(emu, bot_harness, bob, channel, game_id)
    later = await private_reply(await emu.slash(alice, channel, "game undo"))
    assert "after your last one" in later
    assert logged(bot_db, game_id) == [(1, 0, True), (2, 0, False), (3, 1, False)]
    # Replays skip the move taken back.
    replay = await emu.slash(alice, channel, "game replay", game_id=game_id)
    await replay.response()
    await emu.wait_idle()
    assert ", 2 moves." in "\n".join(replay.texts())


@pytest.mark.both_dbs
async def test_computers_answer_at_once_and_games_with_secrets_refuse(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness, bot_db: str
) -> None:
    alice, bob = scene.alice, scene.bob
    games = bot_harness.bot.services.games

    async def against(channel: Channel, level: str) -> int:
        await (await emu.slash(alice, channel, "dots new", size=3)).response()
        await (await emu.slash(alice, channel, "game addbot", level=level)).response()
        await (await emu.slash(alice, channel, "game start")).response()
        await emu.wait_idle()
        live = await bot_harness.bot.services.finder.live_at(channel.id)
        return next(g.id for g in live if g.row.status == "active")

    async def draw(channel: Channel, game_id: int) -> None:
        game = await games.get(game_id)
        name, options = command_for("dots", game.rules.legal_actions(game.state, 0)[0])
        await (await emu.slash(alice, channel, name, **options)).response()
        await emu.wait_idle()

    # A normal computer accepts at once (the first line of alice's turn: the turn is hers still).
    channel = scene.channel
    game_id = await against(channel, "normal")
    start = (await games.get(game_id)).state
    await draw(channel, game_id)
    said = await private_reply(await emu.slash(alice, channel, "game undo"))
    assert "is taken back" in said and "Computer (normal)" in said
    await emu.wait_idle()
    assert (await games.get(game_id)).state == start
    assert "last move is taken back" in latest_board(emu, channel).content
    assert logged(bot_db, game_id) == [(1, 0, True)]
    # Once a game.
    await draw(channel, game_id)
    again = await private_reply(await emu.slash(alice, channel, "game undo"))
    assert "a computer accepts one per game" in again
    # After the game ended: refused.
    await (await emu.slash(alice, channel, "game leave")).response()
    await emu.wait_idle()
    over = await private_reply(await emu.slash(alice, channel, "game undo"))
    assert "is over" in over

    # A hard computer never accepts.
    lounge = scene.other_channel
    hard_id = await against(lounge, "hard")
    await draw(lounge, hard_id)
    before = db_snapshot(bot_db)
    never = await private_reply(await emu.slash(alice, lounge, "game undo"))
    assert "never accepts a takeback" in never
    assert db_snapshot(bot_db) == before
    await (await emu.slash(alice, lounge, "game cancel")).response()
    await emu.wait_idle()

    # People and an easy computer: the request asks the people; the computer's agreement is on it
    # and counts as its one takeback of the game.
    await (await emu.slash(alice, lounge, "dots new", size=3)).response()
    await (await emu.slash(bob, lounge, "game join")).response()
    await (await emu.slash(alice, lounge, "game addbot", level="easy")).response()
    await (await emu.slash(alice, lounge, "game start")).response()
    await emu.wait_idle()
    mixed_id = next(g.id for g in await bot_harness.bot.services.finder.live_at(lounge.id) if g.row.live)
    mixed = await games.get(mixed_id)
    assert mixed.row.seats[0] == alice.id and mixed.row.status == "active"
    start = mixed.state
    await draw(lounge, mixed_id)
    request = await ask(emu, alice, lounge)
    assert "Computer (easy)" in request.content and "agreed" in request.content
    assert request.pinged == {bob.id}
    await (await emu.click(bob, request, request.button("Accept")["custom_id"])).response()
    await emu.wait_idle()
    assert (await games.get(mixed_id)).state == start
    await draw(lounge, mixed_id)
    twice = await private_reply(await emu.slash(alice, lounge, "game undo"))
    assert "a computer accepts one per game" in twice
    await (await emu.slash(alice, lounge, "game cancel")).response()
    await emu.wait_idle()

    # A game with secrets: refused.
    await start_game(emu, lounge, "numbers new", alice, bob, m=3)
    secret = await private_reply(await emu.slash(alice, lounge, "game undo"))
    assert "secret choices" in secret
