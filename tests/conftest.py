"""Shared fixtures: the loopback Discord emulator, a ready-made world, and the project's bot on it.

    async def test_something(emulator, scene, bot_harness):
        rec = await emulator.slash(scene.alice, scene.channel, "game status")
        assert (await rec.response()).type == 4

See tests/emulator/__init__.py for the emulator's API.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    # discord.player imports the stdlib's audioop, deprecated since 3.11 (warnings are errors here).
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import discord  # noqa: F401

from bot.storage import Storage
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.world import Scene


@pytest.fixture
async def emulator() -> AsyncIterator[DiscordEmulator]:
    """A started emulator; discord.py in this process points at it until the test ends."""
    emu = DiscordEmulator()
    await emu.start()
    try:
        with emu.patch_discord():
            yield emu
    finally:
        await emu.stop()
    assert emu.internal_errors == [], "the emulator failed:\n" + "\n".join(emu.internal_errors)


@pytest.fixture
def scene(emulator: DiscordEmulator) -> Scene:
    """One guild with #games, #lounge, a thread in #games, alice, bob, carol, dave and mod."""
    return emulator.add_scene()


@pytest.fixture
def bot_db(tmp_path: Path) -> Path:
    return tmp_path / "quetbot.sqlite3"


@pytest.fixture
async def bot_harness(
    request: pytest.FixtureRequest, emulator: DiscordEmulator, scene: Scene, bot_db: Path
) -> AsyncIterator[BotHarness]:
    """The project's bot, started on the emulator (after `scene` exists) and ready.

    Games are played where they are opened (the scene's server has threads off, as
    `/game settings threads:off` sets), except in tests marked ``threads``: there each game gets its
    own thread, as on a server with the default settings.
    """
    if request.node.get_closest_marker("threads") is None:
        storage = await Storage.open(str(bot_db))
        try:
            await storage.set_guild_setting(guild_id=scene.guild.id, key="threads", value=0)
        finally:
            await storage.close()
    harness = BotHarness(emulator, project_bot_factory(str(bot_db)))
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()
