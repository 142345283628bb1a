"""A loopback Discord (REST API v10 + gateway) for end-to-end tests of discord.py bots."""

from .models import EmulatorError, InteractionFailed
from .server import DiscordEmulator

__all__ = ["DiscordEmulator", "EmulatorError", "InteractionFailed"]
