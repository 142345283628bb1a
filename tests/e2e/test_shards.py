"""The bot sharded as Discord requires: servers on two shards, in one process or in two.

The emulator routes like Discord: a server's events (its interactions, messages, threads) go to the
session of shard ``(guild_id >> 22) % 2``, and everything without a server (DMs, clicks on DM panels,
forms opened from them) to shard 0. The "Zero" server is on shard 0 and plays with threads off; the
"One" server is on shard 1 with the default settings (each game in its thread).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.registry import RULES
from bot.storage import GameRow, Storage
from bot.table.notify import FOLLOW_EVERY
from tests.e2e.driver import (
    assert_discord_accepted_all,
    bot_messages,
    dm_changes,
    dm_mark,
    game_place,
    is_card,
    latest_board,
    numbers_pick_from_panel,
    private_reply,
    start_game,
    typed_answer,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.models import Channel, InteractionRecord, User, shard_of
from tests.emulator.world import Scene

ZERO, ONE = (0, 2), (1, 2)
SYNC = "PUT /applications/*/commands"


@pytest.fixture
async def scenes(emu: DiscordEmulator, bot_db: str) -> tuple[Scene, Scene]:
    """A server on shard 0 of 2 (threads off) and one on shard 1 of 2 (threads on, the default)."""
    zero, one = emu.add_scene("Zero", shard=ZERO), emu.add_scene("One", shard=ONE)
    storage = await Storage.open(bot_db)
    try:
        await storage.set_guild_setting(guild_id=zero.guild.id, key="threads", value=0)
    finally:
        await storage.close()
    return zero, one


@pytest.fixture
async def two_processes(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], bot_db: str
) -> AsyncIterator[tuple[BotHarness, BotHarness]]:
    """The bot as two processes over one SQLite file: shard 0 of 2, and shard 1 of 2."""
    first, second = (BotHarness(emu, project_bot_factory(bot_db, shard_count=2, shards=(k,))) for k in (0, 1))
    await first.start()
    try:
        await second.start()
        try:
            yield first, second
        finally:
            await second.stop()
    finally:
        await first.stop()


# ---- helpers ------------------------------------------------------------------------------------------


async def stored(harness: BotHarness, game_id: int) -> tuple[GameRow, Any, Any]:
    """The game as the database has it now (never a process's cached copy): row, rules, state."""
    row = await harness.bot.storage.get_game(game_id=game_id)
    rules = RULES[row.kind]
    return row, rules, None if row.state is None else rules.State.from_dict(row.state)


def assert_routed_like_discord(emu: DiscordEmulator) -> None:
    """Every interaction went to one session: its server's shard, or shard 0 without a server."""
    for rec in emu.interactions.values():
        shard = 0 if rec.guild is None else shard_of(rec.guild.id, 2)
        assert [s.shard for s in rec.sessions] == [(shard, 2)], rec.describe()


def assert_answered_by(rec: InteractionRecord, harness: BotHarness) -> None:
    assert rec.sessions == harness.sessions, f"{rec.describe()} reached another process"


COMMANDS = {"procession": ("procession flip", "position"), "dots": ("dots line", "to")}


async def slash_move(
    emu: DiscordEmulator,
    harness: BotHarness,
    place: Channel,
    game_id: int,
    users: list[User],
    rng: random.Random,
) -> InteractionRecord | None:
    """One random legal move of a procession or dots game by slash command in ``place``; None once
    the game is over."""
    row, rules, state = await stored(harness, game_id)
    if row.status != "active":
        return None
    seat = min(rules.to_act(state))
    action = rng.choice([a for a in rules.legal_actions(state, seat) if a["type"] != "drop"])
    command, option = COMMANDS[row.kind]
    options = {option: action[option]}
    if action.get("from"):
        options["from"] = action["from"]
    rec = await emu.slash(users[seat], place, command, **options)
    response = await rec.response()
    assert not response.ephemeral, rec.ephemeral_texts()
    await emu.wait_idle()
    return rec


async def pick_by_dm(
    emu: DiscordEmulator, harness: BotHarness, game_id: int, users: list[User], how: str
) -> bool:
    """One Numbers pick by DM (``reply``: typed; ``panel``: the panel's Pick button and its form);
    False once the game is over."""
    row, rules, state = await stored(harness, game_id)
    if row.status != "active":
        return False
    seat = min(rules.to_act(state))
    number = rules.legal_actions(state, seat)[0]["number"]
    if how == "reply":
        answer = await typed_answer(emu, users[seat], str(number))
        assert f"**{number}**" in answer, answer
    else:
        await numbers_pick_from_panel(emu, users[seat], game_id, number)
    _, _, after = await stored(harness, game_id)
    assert after != state, f"{users[seat].name}'s pick by {how} changed nothing"
    return True


async def open_game(emu: DiscordEmulator, scene: Scene, command: str, **options: Any) -> tuple[int, Channel]:
    """A two-player game (alice and bob) started in the scene's #games: its id and where it plays."""
    game_id = await start_game(emu, scene.channel, command, scene.alice, scene.bob, **options)
    card = [m for m in bot_messages(emu, scene.channel) if is_card(m)][-1]
    return game_id, game_place(emu, scene.channel, card)


# ---- one process, both shards ---------------------------------------------------------------------------


async def test_one_process_runs_both_shards_and_a_dm_move_reaches_a_game_on_shard_1(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], bot_db: str
) -> None:
    zero, one = scenes
    harness = BotHarness(emu, project_bot_factory(bot_db, shard_count=2))
    await harness.start()
    try:
        bot = harness.bot
        assert sorted(s.shard for s in harness.sessions) == [ZERO, ONE]
        assert [bot.get_guild(s.guild.id).shard_id for s in scenes] == [0, 1]
        assert len(emu.requests_matching(SYNC)) == 1

        procession, at_zero = await open_game(emu, zero, "procession new", n=3)
        numbers, at_one = await open_game(emu, one, "numbers new", m=3)
        assert at_zero is zero.channel and at_one.is_thread and at_one.guild is one.guild
        rng, paths = random.Random(16), ["reply", "panel"]
        flips = picks = 0
        while True:
            rec = await slash_move(emu, harness, at_zero, procession, [zero.alice, zero.bob], rng)
            picked = await pick_by_dm(emu, harness, numbers, [one.alice, one.bob], paths[picks % 2])
            flips, picks = flips + (rec is not None), picks + picked
            if rec is None and not picked:
                break

        for game_id in (procession, numbers):
            row, _, state = await stored(harness, game_id)
            assert row.status == "finished" and await bot.services.history.replay(game_id) == state
        assert picks == 12 and flips >= 1  # Numbers m=3: 2 rounds of 3 moves, 2 picks each
        # Each DM and each click or form from a DM panel reached shard 0; the servers' commands their
        # own shards; and the boards of the game on shard 1 were posted in its thread.
        shard_0, shard_1 = sorted(harness.sessions, key=lambda s: s.shard_key)
        assert shard_0.got("MESSAGE_CREATE") >= 6 and shard_1.got("MESSAGE_CREATE") == 0
        assert shard_0.got("INTERACTION_CREATE") >= 6 and shard_1.got("INTERACTION_CREATE") == 0
        assert shard_1.got("INTERACTION_CREATE", one.guild.id) >= 3
        assert shard_0.got("INTERACTION_CREATE", one.guild.id) == 0
        assert_routed_like_discord(emu)
        assert (
            "wins" in emu.last_message(at_one).content or "draw" in emu.last_message(at_one).content.lower()
        )
        assert len(emu.requests_matching(SYNC)) == 1
        assert_discord_accepted_all(emu)
    finally:
        await harness.stop()


# ---- two processes, one shard each ----------------------------------------------------------------------


async def test_two_processes_each_serve_their_shards_servers(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], two_processes: tuple[BotHarness, BotHarness]
) -> None:
    zero, one = scenes
    first, second = two_processes
    assert [s.shard for s in first.sessions] == [ZERO] and [s.shard for s in second.sessions] == [ONE]
    assert [g.id for g in first.bot.guilds] == [zero.guild.id]
    assert [g.id for g in second.bot.guilds] == [one.guild.id]
    # The commands were synced once, by the process running shard 0; a restart of the other syncs nothing.
    assert len(emu.requests_matching(SYNC)) == 1
    await second.restart()
    assert len(emu.requests_matching(SYNC)) == 1

    procession, at_zero = await open_game(emu, zero, "procession new", n=3)
    dots, at_one = await open_game(emu, one, "dots new", size=3)
    rng = random.Random(2)
    moves = 0
    while True:
        recs = [
            await slash_move(emu, first, at_zero, procession, [zero.alice, zero.bob], rng),
            await slash_move(emu, second, at_one, dots, [one.alice, one.bob], rng),
        ]
        for rec, owner in zip(recs, (first, second), strict=True):
            if rec is not None:
                assert_answered_by(rec, owner)
                moves += 1
        if recs == [None, None]:
            break
    for harness, game_id in ((first, procession), (second, dots)):
        row, _, state = await stored(harness, game_id)
        assert row.status == "finished" and await harness.bot.services.history.replay(game_id) == state
    assert moves >= 6
    # Each server's lobby, joins, starts and moves went to its own process, and nothing had no server.
    for rec in emu.interactions.values():
        assert rec.guild is not None
        assert_answered_by(rec, first if rec.guild is zero.guild else second)
    assert first.sessions[0].got("INTERACTION_CREATE", one.guild.id) == 0
    assert second.sessions[0].got("INTERACTION_CREATE", zero.guild.id) == 0
    assert_discord_accepted_all(emu)


async def test_dm_moves_for_a_game_on_shard_1_reach_the_process_running_shard_0(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], two_processes: tuple[BotHarness, BotHarness]
) -> None:
    _, one = scenes
    first, second = two_processes
    numbers, at_one = await open_game(emu, one, "numbers new", m=3)
    users = [one.alice, one.bob]
    for turn in range(20):  # a pick by DM reply, one from the DM panel, one by slash command in the thread
        row, rules, state = await stored(second, numbers)
        if row.status != "active":
            break
        if turn % 3 == 2:
            seat = min(rules.to_act(state))
            number = rules.legal_actions(state, seat)[0]["number"]
            rec = await emu.slash(users[seat], at_one, "numbers pick", number=number)
            await rec.response()
            await emu.wait_idle()
            assert_answered_by(rec, second)
            assert (await stored(second, numbers))[2] != state, rec.ephemeral_texts()
        elif turn % 3 == 0:
            seat = min(rules.to_act(state))
            number = rules.legal_actions(state, seat)[0]["number"]
            answer = await typed_answer(emu, users[seat], str(number))
            # Shard 0's process answered (it has no gateway cache of a server on shard 1: it asked
            # Discord for the server's name).
            assert f"**{number}**" in answer and f"on {one.guild.name}" in answer, answer
        else:
            assert await pick_by_dm(emu, first, numbers, users, "panel")
    row, _, state = await stored(second, numbers)
    assert row.status == "finished"
    for harness in two_processes:
        assert await harness.bot.services.history.replay(numbers) == state
    assert_routed_like_discord(emu)
    assert_discord_accepted_all(emu)


async def test_a_notify_choice_made_in_a_dm_is_followed_by_the_process_of_the_game(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], two_processes: tuple[BotHarness, BotHarness]
) -> None:
    _, one = scenes
    first, second = two_processes
    alice, bob = one.alice, one.bob
    # Alice chooses a DM instead of a ping, in her DMs with the bot: shard 0's process answers.
    rec = await emu.slash(alice, emu.open_dm(alice), "game notify", mode="dm")
    assert "Notifications: **dm**" in await private_reply(rec)
    assert_answered_by(rec, first)
    # Shard 1's process, where her server's games are played, reads the choices again within seconds.
    await emu.wait_until(
        lambda: second.bot.notify.mode(alice.id) == "dm", timeout=FOLLOW_EVERY + 5, what="the choice followed"
    )
    game_id, place = await open_game(emu, one, "procession new", n=3)
    board = latest_board(emu, place)  # alice moves first: named without a ping, told by a DM
    assert f"<@{alice.id}>" in board.content and board.pinged == frozenset()
    await emu.wait_until(
        lambda: any("Your move in" in m.content for m in emu.dm_messages(alice)), what="alice's DM"
    )
    assert not any("Your move in" in m.content for m in emu.dm_messages(bob))
    rec = await slash_move(emu, second, place, game_id, [alice, bob], random.Random(1))
    assert rec is not None
    assert latest_board(emu, place).pinged == {bob.id}  # bob kept the default: a ping
    assert_discord_accepted_all(emu)


# ---- two processes acting on the same game at once --------------------------------------------------------


@pytest.fixture
async def two_with_a_clock(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], bot_db: str, tmp_path: Path
) -> AsyncIterator[tuple[BotHarness, BotHarness, Path]]:
    """Shards 0 and 1 of 2 as two processes, both reading one clock offset file (as
    QUETBOT_CLOCK_OFFSET_FILE), which the test writes to move their time."""
    offset = tmp_path / "clock-offset"
    harnesses = [
        BotHarness(
            emu, project_bot_factory(bot_db, shard_count=2, shards=(k,), clock_offset_file=str(offset))
        )
        for k in (0, 1)
    ]
    await harnesses[0].start()
    try:
        await harnesses[1].start()
        try:
            yield harnesses[0], harnesses[1], offset
        finally:
            await harnesses[1].stop()
    finally:
        await harnesses[0].stop()


@pytest.mark.both_dbs
async def test_the_same_move_sent_to_both_processes_at_once_counts_once(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], two_processes: tuple[BotHarness, BotHarness]
) -> None:
    _, one = scenes
    second = two_processes[1]
    numbers, at_one = await open_game(emu, one, "numbers new", m=3)
    users = [one.alice, one.bob]
    for _ in range(3):
        _, rules, state = await stored(second, numbers)
        if len(rules.to_act(state)) == 1:
            # The race is run on a move's first pick: the pick completing a move would make the
            # other one a legal pick for the next move.
            last = min(rules.to_act(state))
            number = rules.legal_actions(state, last)[0]["number"]
            await (await emu.slash(users[last], at_one, "numbers pick", number=number)).response()
            await emu.wait_idle()
            _, rules, state = await stored(second, numbers)
        assert len(rules.to_act(state)) == 2
        seat = min(rules.to_act(state))
        user = users[seat]
        a, b = (x["number"] for x in rules.legal_actions(state, seat)[:2])
        logged = len(await second.bot.storage.moves(game_id=numbers))
        mark = dm_mark(emu, user)
        # Typed in the DM (to shard 0's process) and by command in the game's thread (to shard 1's),
        # in the same instant: both processes act on the game at once.
        await emu.send_dm(user, str(a))
        rec = await emu.slash(user, at_one, "numbers pick", number=b)
        answer = await rec.response()
        await emu.wait_until(
            lambda u=user, m=mark: dm_changes(emu, u, m), what="the answer to the typed pick"
        )
        await emu.wait_idle()
        assert answer.ephemeral  # (a secret pick is answered privately, taken or not)
        moves = await second.bot.storage.moves(game_id=numbers)
        assert len(moves) == logged + 1, "one of the two picks counts, not both"
        taken = moves[-1].action["number"]
        assert taken in (a, b)
        # The loser was told privately, in its own place, that the move had been made already.
        slash_texts = " ".join(rec.ephemeral_texts())
        dm_texts = " ".join(m.content for m in dm_changes(emu, user, mark))
        loser_text = dm_texts if taken == b else slash_texts
        # (Which refusal depends on whether the loser read the game before or after the winner's
        # commit: a lost compare-and-swap, or the pick already made.)
        refusals = ("The game changed while you were acting", "You already picked")
        assert any(r in loser_text for r in refusals), (slash_texts, dm_texts)
        for harness in two_processes:
            assert await harness.bot.services.history.replay(numbers) == (await stored(second, numbers))[2]
    assert_routed_like_discord(emu)
    assert_discord_accepted_all(emu)


@pytest.mark.both_dbs
async def test_a_deadline_falling_due_with_both_processes_running_is_acted_on_once(
    emu: DiscordEmulator, scenes: tuple[Scene, Scene], two_with_a_clock: tuple[BotHarness, BotHarness, Path]
) -> None:
    zero, one = scenes
    first, second, offset = two_with_a_clock
    # One game on each shard, each waiting for alice, with a one-hour deadline.
    games = [
        await start_game(
            emu, scene.channel, "procession new", scene.alice, scene.bob, scene.carol, n=4, timeout="1h"
        )
        for scene in (zero, one)
    ]
    places = [
        game_place(emu, s.channel, [m for m in bot_messages(emu, s.channel) if is_card(m)][-1])
        for s in scenes
    ]
    # Both processes' clocks jump past the deadline (and past the halfway reminder) at once.
    offset.write_text("3700")
    for game_id in games:
        for _ in range(150):
            if await _timeouts(first, game_id):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"no process acted on the deadline of game {game_id}")
    await asyncio.sleep(2.5)  # (both processes have made passes since: nothing more may come)
    await emu.wait_idle()
    for game_id, place, scene in zip(games, places, scenes, strict=True):
        assert await _timeouts(first, game_id) == 1
        texts = [m.content for m in bot_messages(emu, place)]
        assert sum(f"<@{scene.alice.id}> ran out of time" in t for t in texts) == 1, texts
        assert sum("waiting for your move" in t for t in texts) <= 1, texts  # the reminder, at most once
        row, _, state = await stored(second, game_id)
        assert row.status == "active" and await second.bot.services.history.replay(game_id) == state
    assert_discord_accepted_all(emu)


async def _timeouts(harness: BotHarness, game_id: int) -> int:
    """How many forfeits at a deadline the game's move log holds."""
    log = await harness.bot.storage.moves(game_id=game_id)
    return sum(m.action == {"type": "forfeit", "reason": "timeout"} for m in log)
