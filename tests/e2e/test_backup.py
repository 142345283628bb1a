"""``quetbot backup`` end to end: a backup taken while the bot runs a game restores to a bot that
finishes that game (what was played after the backup is lost, as a restore says)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage.backup import backup
from tests.conftest import COMPUTER_PAUSE
from tests.e2e.test_replay import against_computer, play
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.world import Scene


@pytest.mark.both_dbs
async def test_a_backup_taken_mid_game_restores_to_a_bot_that_finishes_the_game(
    emu: DiscordEmulator, scene: Scene, bots: BotHarness, bot_db: str, tmp_path: Path
) -> None:
    alice = scene.alice
    game_id, place = await against_computer(emu, bots, scene.channel, alice, "dots")
    await play(emu, bots, place, alice, game_id, moves=1)
    await emu.wait_idle()
    at_backup = (await bots.bot.services.games.get(game_id)).row
    assert at_backup.live

    target = tmp_path / "backup.sqlite3"
    done = await backup(bot_db, str(target))  # while the bot runs
    assert done.verified.games >= 1
    after = await play(emu, bots, place, alice, game_id, moves=1)  # lost with the restore
    assert after.row.version > at_backup.version
    await bots.stop()

    restored = BotHarness(emu, project_bot_factory(str(target), computer_pause=COMPUTER_PAUSE))
    await restored.start()
    try:
        game = await restored.bot.services.games.get(game_id)
        assert game.row == at_backup  # the game as backed up
        finished = await play(emu, restored, place, alice, game_id)
        assert finished.row.status == "finished" and finished.row.version > at_backup.version
    finally:
        await restored.stop()
