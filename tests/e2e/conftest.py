"""Fixtures of the end-to-end tests, besides those of tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.world import Scene

COMPUTER_PAUSE = 0.02  # seconds the `bots` fixture's computers wait before a move


@pytest.fixture
def emu(emulator: DiscordEmulator) -> DiscordEmulator:
    """The started emulator (`emulator`), by the short name the tests act through."""
    return emulator


@pytest.fixture
async def bots(emulator: DiscordEmulator, scene: Scene, bot_db: str) -> AsyncIterator[BotHarness]:
    """The bot, with computers that wait only `COMPUTER_PAUSE` seconds before their moves."""
    harness = BotHarness(emulator, project_bot_factory(bot_db, computer_pause=COMPUTER_PAUSE))
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()
