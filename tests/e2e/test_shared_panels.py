"""DM panels when processes share the database: a process carrying out a game's announcements records
what they produced when it gives the game's lease up, so a panel it has just sent is not in the
database yet while it carries out the game's next items. Those must still edit that panel, not send
the player a second one (found by bench/crash_safety.py --processes)."""

from __future__ import annotations

import pytest

from tests.e2e.driver import game_panels, open_and_start
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
            assert "✅" in " ".join(rec.ephemeral_texts()) or (await rec.response()).ephemeral
        await emu.wait_idle()
        row = await harness.bot.storage.get_game(game_id=game_id)
        assert row.version >= 3  # started, and both picks taken
        for user in (scene.alice, scene.bob):
            panels = game_panels(emu, user, game_id)
            assert len(panels) == 1, [p.content[:80] for p in panels]
            assert "move 2 of 3" in panels[0].content, panels[0].content
    finally:
        await harness.stop()
