"""A bare discord.py bot: answers every slash command and component with a fixed text.

It exercises each surface the emulator offers (options, subcommands and groups, autocomplete,
persistent buttons and selects through a `DynamicItem`, modals, ephemeral replies, deferring,
files, DMs) with as little logic as possible: the emulator's self-tests run against it, and a
benchmark can use it as the latency floor of "discord.py + emulator" without any game logic.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

REPLY = "ok"


class BareButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"bare:button:(?P<n>\d+)"):
    """A persistent button: clicking it answers the fixed text, or edits the message with `edit`."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Button {n}", custom_id=f"bare:button:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BareButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        if self.n == 0:
            await interaction.response.edit_message(content=f"{REPLY}: edited by {interaction.user.name}")
        elif self.n == 9:
            await interaction.response.send_modal(BareModal())
        else:
            await interaction.response.send_message(f"{REPLY}: button {self.n}", ephemeral=self.n == 2)


class BareSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"bare:select"):
    def __init__(self) -> None:
        options = [discord.SelectOption(label=f"Option {c}", value=c) for c in "abc"]
        super().__init__(discord.ui.Select(custom_id="bare:select", options=options, max_values=2))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BareSelect:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        data = cast(dict[str, Any], interaction.data or {})
        values = ",".join(data.get("values", []))
        await interaction.response.send_message(f"{REPLY}: selected {values}")


class BareModal(discord.ui.Modal, title="Bare form"):
    answer: discord.ui.TextInput[BareModal] = discord.ui.TextInput(
        label="Answer", custom_id="bare:answer", max_length=20
    )
    note: discord.ui.TextInput[BareModal] = discord.ui.TextInput(
        label="Note", custom_id="bare:note", required=False, style=discord.TextStyle.paragraph
    )

    def __init__(self) -> None:
        super().__init__(custom_id="bare:modal", timeout=None)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"{REPLY}: answer={self.answer.value} note={self.note.value}")


def panel_view() -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for n in (0, 1, 2, 9):
        view.add_item(BareButton(n))
    view.add_item(BareSelect())
    return view


class BareBot(commands.Bot):
    """`/ping` answers the fixed text; the other commands each use one more surface."""

    def __init__(self, **options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.dm_messages = True
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents, help_command=None, **options
        )
        self.dm_log: list[str] = []
        self.late_errors: list[int] = []
        self.background: set[asyncio.Task[None]] = set()  # tasks left running by /background
        self._add_commands()

    async def setup_hook(self) -> None:
        self.add_dynamic_items(BareButton, BareSelect)
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot or message.guild is not None:
            return
        self.dm_log.append(message.content)
        await message.channel.send(f"{REPLY}: you said {message.content}")

    def _add_commands(self) -> None:
        tree = self.tree

        @tree.command(description="Answer the fixed text")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(REPLY)

        @tree.command(description="Echo options back")
        @app_commands.describe(text="What to say", times="How many times")
        async def echo(
            interaction: discord.Interaction,
            text: str,
            times: app_commands.Range[int, 1, 5] = 1,
            who: discord.User | None = None,
            where: discord.TextChannel | None = None,
        ) -> None:
            extra = f" to {who.name}" if who else ""
            extra += f" in {where.name}" if where else ""
            await interaction.response.send_message(" ".join([text] * times) + extra)

        @tree.command(description="A private answer")
        async def secret(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"{REPLY}: only you", ephemeral=True)

        @tree.command(description="Defer, then follow up")
        async def slow(interaction: discord.Interaction, private: bool = False) -> None:
            await interaction.response.defer(ephemeral=private, thinking=True)
            await interaction.followup.send(f"{REPLY}: after thinking")
            await interaction.followup.send(f"{REPLY}: second follow-up", ephemeral=True)

        @tree.command(description="Post the component panel")
        async def panel(interaction: discord.Interaction, private: bool = False) -> None:
            await interaction.response.send_message("panel", view=panel_view(), ephemeral=private)

        @tree.command(description="Answer after a delay")
        async def sleepy(interaction: discord.Interaction, seconds: float) -> None:
            await asyncio.sleep(seconds)
            try:
                await interaction.response.send_message(f"{REPLY}: slept")
            except discord.HTTPException as exc:
                self.late_errors.append(exc.code)

        @tree.command(description="Open a form")
        async def form(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(BareModal())

        @tree.command(description="Send a file")
        async def file(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(
                REPLY, file=discord.File(_bytes_io(b"bare bytes"), "bare.txt")
            )
            await interaction.edit_original_response(content=f"{REPLY}: no file", attachments=[])

        @tree.command(description="DM me")
        async def dm(interaction: discord.Interaction) -> None:
            try:
                await interaction.user.send(f"{REPLY}: a DM")
            except discord.Forbidden as exc:
                await interaction.response.send_message(f"{REPLY}: DMs closed ({exc.code})", ephemeral=True)
            else:
                await interaction.response.send_message(f"{REPLY}: sent", ephemeral=True)

        @tree.command(description="Post in the channel through the REST API")
        async def post(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.defer(ephemeral=True)
            assert interaction.channel is not None
            await interaction.channel.send(text)  # type: ignore[union-attr]
            await interaction.followup.send(f"{REPLY}: posted", ephemeral=True)

        @tree.command(description="Answer, work a while without any request, then post")
        async def later(interaction: discord.Interaction, seconds: float) -> None:
            await interaction.response.send_message(f"{REPLY}: working", ephemeral=True)
            await asyncio.sleep(seconds)  # e.g. drawing a board in a thread: nothing in flight
            assert interaction.channel is not None
            await interaction.channel.send(f"{REPLY}: done")  # type: ignore[union-attr]

        @tree.command(description="Answer, and leave a task behind that posts later")
        async def background(interaction: discord.Interaction, seconds: float) -> None:
            await interaction.response.send_message(f"{REPLY}: later", ephemeral=True)
            channel: Any = interaction.channel

            async def post_later() -> None:
                await asyncio.sleep(seconds)
                await channel.send(f"{REPLY}: from the background")

            task = asyncio.create_task(post_later())
            self.background.add(task)
            task.add_done_callback(self.background.discard)

        @tree.command(description="Try to send an over-long message")
        async def toolong(interaction: discord.Interaction) -> None:
            try:
                await interaction.response.send_message("x" * 2001)
            except discord.HTTPException as exc:
                await interaction.response.send_message(f"{REPLY}: rejected {exc.code}", ephemeral=True)

        @tree.command(description="Pick with autocomplete")
        async def pick(interaction: discord.Interaction, fruit: str) -> None:
            await interaction.response.send_message(f"{REPLY}: {fruit}")

        @pick.autocomplete("fruit")
        async def pick_fruit(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            fruits = ["apple", "apricot", "banana", "cherry"]
            return [app_commands.Choice(name=f, value=f) for f in fruits if f.startswith(current)]

        @tree.command(description="Post a card, start a thread from it, add me and post there")
        async def threaded(interaction: discord.Interaction, name: str) -> None:
            await interaction.response.send_message(f"{REPLY}: card {name}")
            card = await interaction.original_response()
            try:
                thread = await card.create_thread(name=name, auto_archive_duration=60)
            except discord.HTTPException as exc:
                await interaction.followup.send(f"{REPLY}: no thread ({exc.code})", ephemeral=True)
                return
            await thread.add_user(interaction.user)
            await thread.send(f"{REPLY}: in {thread.name}")

        @tree.command(description="Post in a thread (by id), or archive, rename or unarchive it first")
        async def tpost(
            interaction: discord.Interaction,
            thread_id: str,
            text: str,
            archived: bool | None = None,
            rename: str | None = None,
        ) -> None:
            await interaction.response.defer(ephemeral=True)
            thread = interaction.guild.get_thread(int(thread_id)) if interaction.guild else None
            try:
                if thread is None:
                    thread = cast(discord.Thread, await self.fetch_channel(int(thread_id)))
                if archived is not None or rename is not None:
                    thread = await thread.edit(archived=bool(archived), name=rename or thread.name)
                await thread.send(text)
            except discord.HTTPException as exc:
                await interaction.followup.send(f"{REPLY}: refused {exc.code}", ephemeral=True)
            else:
                await interaction.followup.send(f"{REPLY}: posted", ephemeral=True)

        game = app_commands.Group(name="game", description="Subcommands")

        @game.command(name="status", description="A subcommand")
        async def game_status(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"{REPLY}: game status")

        config = app_commands.Group(name="config", description="A subcommand group", parent=game)

        @config.command(name="set", description="A subcommand in a group")
        async def config_set(interaction: discord.Interaction, key: str, value: int) -> None:
            await interaction.response.send_message(f"{REPLY}: {key}={value}")

        tree.add_command(game)


def _bytes_io(data: bytes) -> Any:
    import io

    return io.BytesIO(data)


class ShardedBareBot(BareBot, commands.AutoShardedBot):
    """`BareBot` running the gateway shards it is given (``shard_count=``, ``shard_ids=``), one
    connection each, as discord.py's AutoShardedBot does."""
