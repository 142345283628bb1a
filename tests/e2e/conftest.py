"""Fixtures of the end-to-end tests, besides those of tests/conftest.py."""

from __future__ import annotations

import pytest

from tests.emulator import DiscordEmulator


@pytest.fixture
def emu(emulator: DiscordEmulator) -> DiscordEmulator:
    """The started emulator (`emulator`), by the short name the tests act through."""
    return emulator
