"""The floors of bench/load.py: a bare discord.py client that answers every interaction at once, with
no command tree, no database and no rendering.

- the text floor answers with a fixed text (autocomplete with no choices);
- the image floor answers with the same text and a PNG of a typical board's size as an attachment
  (with alt text, as the bot's boards have): what a bot that only sends a ready board costs.

tests/emulator/bare_bot.py answers only its own commands (its command tree refuses the games'
commands), so the benchmark replays the games' interactions here instead: what is left of their
latency and CPU is what discord.py and the emulator cost.
"""

from __future__ import annotations

import io
from typing import Any

import discord

REPLY = "ok"
IMAGE_NAME = "board.png"
IMAGE_ALT = "A board of a game, as the bot would post it."


class FloorBot(discord.Client):
    """Answers every interaction; with ``image`` (PNG bytes) each answer carries that image."""

    def __init__(self, *, ready_line: str = "", image: bytes | None = None, **options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.dm_messages = True
        super().__init__(intents=intents, **options)
        self.ready_line = ready_line
        self.image = image

    async def on_ready(self) -> None:
        if self.ready_line:
            print(self.ready_line, flush=True)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type == discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        elif self.image is None:
            await interaction.response.send_message(REPLY)
        else:
            board = discord.File(io.BytesIO(self.image), filename=IMAGE_NAME, description=IMAGE_ALT)
            await interaction.response.send_message(REPLY, file=board)
