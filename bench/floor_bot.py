"""The latency floor of bench/load.py: a bare discord.py client that answers every interaction with a
fixed text (autocomplete with no choices), with no command tree, no database and no rendering.

tests/emulator/bare_bot.py answers only its own commands (its command tree refuses the games'
commands), so the benchmark replays the games' interactions here instead: what is left of their
latency is what discord.py and the emulator cost.
"""

from __future__ import annotations

from typing import Any

import discord

REPLY = "ok"


class FloorBot(discord.Client):
    def __init__(self, *, ready_line: str = "", **options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.dm_messages = True
        super().__init__(intents=intents, **options)
        self.ready_line = ready_line

    async def on_ready(self) -> None:
        if self.ready_line:
            print(self.ready_line, flush=True)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type == discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            await interaction.response.send_message(REPLY)
