"""What one process may not take from its own memory when others write the same database (found by
bench/crash_safety.py --processes):

- a process carrying out a game's announcements records what they produced when it gives the game's
  lease up, so a DM panel it has just sent is not in the database yet while it carries out the game's
  next items: those must still edit that panel, not send the player a second one;
- a game this process still holds as live may have been finished by another one (its last move
  typed in a DM, which reaches shard 0): it is no game of that place any more.
"""

from __future__ import annotations

import pytest

from tests.e2e.driver import game_panels, open_and_start, start_game, typed_answer
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.world import Scene


@pytest.mark.both_dbs
async def test_moves_made_while_the_first_panels_go_out_edit_them(
    emu: DiscordEmulator, scene: Scene, bot_db: str
) -> None:
    # One process running both shards of two: it shares the database, so the outbox leases each game.
    harness = BotHarness(emu, project_bot_factory(bot_db, shard_count=2))
    await harness.start()
    try:
        game_id, _ = await open_and_start(emu, scene.channel, "numbers new", scene.alice, scene.bob, m=3)
        # Both pick at once, while the start's board and first panels are still being carried out:
        # the reveal asks both for their next pick (their panels, edited).
        first = await emu.slash(scene.alice, scene.channel, "numbers pick", number=1)
        second = await emu.slash(scene.bob, scene.channel, "numbers pick", number=2)
        for rec in (first, second):
            assert (await rec.response()).ephemeral
        await emu.wait_idle()
        row = await harness.bot.storage.get_game(game_id=game_id)
        assert row.version >= 3  # started, and both picks taken
        for user in (scene.alice, scene.bob):
            panels = game_panels(emu, user, game_id)
            assert len(panels) == 1, [p.content[:80] for p in panels]
            assert "move 2 of 3" in panels[0].content, panels[0].content
    finally:
        await harness.stop()


async def test_a_game_finished_by_another_process_is_no_game_of_its_place(
    emu: DiscordEmulator, bot_db: str
) -> None:
    one = emu.add_scene("One", shard=(1, 2))
    first, second = (BotHarness(emu, project_bot_factory(bot_db, shard_count=2, shards=(k,))) for k in (0, 1))
    await first.start()
    await second.start()
    try:
        # A Numbers game in a thread of the server on shard 1 (its lobby and start reach that
        # process), every pick typed in DMs (they reach shard 0's process), to its end.
        thread, users = one.thread, [one.alice, one.bob]
        old = await start_game(emu, thread, "numbers new", *users, m=3)
        for _ in range(20):
            row = await second.bot.storage.get_game(game_id=old)
            if row.status != "active":
                break
            game = second.bot.services.games.load(row)
            assert game.state is not None
            seat = min(game.rules.to_act(game.state))
            number = game.rules.legal_actions(game.state, seat)[0]["number"]
            assert f"**{number}**" in await typed_answer(emu, users[seat], str(number))
        assert (await second.bot.storage.get_game(game_id=old)).status == "finished"
        # The next game in the same thread: its moves by command in the thread reach shard 1's
        # process, which saw the old game live last.
        new = await start_game(emu, thread, "numbers new", *users, m=3)
        rec = await emu.slash(one.alice, thread, "numbers pick", number=1)
        answer = " ".join(rec.ephemeral_texts()) if (await rec.response()).ephemeral else ""
        assert "✅" in answer, answer
        assert [m.seat for m in await second.bot.storage.moves(game_id=new)] == [0]
    finally:
        await second.stop()
        await first.stop()
