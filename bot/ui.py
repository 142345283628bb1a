"""Discord plumbing every game shares: error replies, persistent component routing, lobby messages.

Components survive restarts because none is tied to an in-memory View: each custom_id carries the
game id (and, for moves, the state version it was drawn for), and two `DynamicItem` classes, registered
once at startup, route every click and selection to the game's cog. Custom ids never hold a secret.

    q:<game id>:<version or ->:<verb>[:<arg>]     e.g. q:12:7:flip:3, q:12:-:join

One handler per surface turns a `GameError` into a private reply; anything else is logged with its
traceback and the user gets a short apology, never "This interaction failed".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.errors import GameError, MoveSaved, StaleButton

if TYPE_CHECKING:
    from bot.app import QuetBot

log = logging.getLogger(__name__)

APOLOGY = "Sorry, something went wrong on my side. Nothing was changed; please try again."
NO_PINGS = discord.AllowedMentions.none()
PING_USERS = discord.AllowedMentions(users=True, roles=False, everyone=False, replied_user=False)


async def reply_private(interaction: discord.Interaction, text: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was already answered."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(text, ephemeral=True, **kwargs)


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """The one place an error becomes what the user reads."""
    if isinstance(error, GameError):
        text = error.message
    elif isinstance(error, MoveSaved):
        log.error("Error after a committed move (interaction %s)", interaction.id, exc_info=error.__cause__)
        text = str(error)
    else:
        log.error(
            "Unhandled error in interaction %s (type %s, user %s)",
            interaction.id,
            interaction.type,
            interaction.user.id,
            exc_info=error,
        )
        text = APOLOGY
    try:
        await reply_private(interaction, text)
    except discord.HTTPException:
        log.warning("Could not deliver an error reply for interaction %s", interaction.id)


async def guarded(interaction: discord.Interaction, work: Callable[[], Awaitable[None]]) -> None:
    try:
        await work()
    except Exception as exc:  # the surface's one handler: every error gets an answer
        await report_error(interaction, exc)


class GameTree(app_commands.CommandTree["QuetBot"]):
    """The slash command surface: its errors end in `report_error`."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        original: BaseException = error
        if isinstance(error, app_commands.CommandInvokeError):
            original = error.original
        elif isinstance(error, app_commands.TransformerError):
            original = GameError(
                f"I could not read {str(error.value)[:50]!r} for that option. Pick a value from the list."
            )
        elif isinstance(error, app_commands.CommandNotFound):
            original = GameError("That command is out of date. Type / and pick it from the list again.")
        elif isinstance(error, app_commands.CheckFailure):
            original = GameError(str(error) or "You cannot use that command here.")
        await report_error(interaction, original)


# ---- components -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ComponentId:
    game_id: int
    version: int | None
    verb: str
    arg: str = ""

    def render(self) -> str:
        version = "-" if self.version is None else str(self.version)
        tail = f":{self.arg}" if self.arg else ""
        return f"q:{self.game_id}:{version}:{self.verb}{tail}"


_ID = re.compile(
    r"q:(?P<game>\d{1,19}):(?P<version>\d{1,9}|-):(?P<verb>[a-z_]{1,20})(?::(?P<arg>[\w.-]{0,40}))?"
)


def custom_id(game_id: int, verb: str, arg: object = "", *, version: int | None = None) -> str:
    return ComponentId(game_id, version, verb, str(arg)).render()


def parse_custom_id(raw: str) -> ComponentId:
    m = _ID.fullmatch(raw)
    if m is None:
        raise StaleButton(
            "That control is not one I recognise (it may be from an old version). Use /game status."
        )
    version = m["version"]
    return ComponentId(
        game_id=int(m["game"]),
        version=None if version == "-" else int(version),
        verb=m["verb"],
        arg=m["arg"] or "",
    )


class GameComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"(?s)q:.*"):
    """Every button and select the bot draws: routed by custom_id, so it works after restarts."""

    def __init__(self, item: discord.ui.Item[Any], *, row: int | None = None) -> None:
        super().__init__(item, row=row)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GameComponent:
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        bot: QuetBot = interaction.client  # type: ignore[assignment]
        data: Any = interaction.data or {}
        raw = str(data.get("custom_id", ""))
        values = [str(v) for v in data.get("values", [])]
        await guarded(interaction, lambda: bot.route_component(interaction, parse_custom_id(raw), values))


class ForeignComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"(?s)(?!q:).*"):
    """A component whose custom_id we never made (forged, or from another bot version)."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ForeignComponent:
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        data: Any = interaction.data or {}
        raw = str(data.get("custom_id", ""))
        await guarded(interaction, lambda: _refuse(raw))


async def _refuse(raw: str) -> None:
    parse_custom_id(raw)  # always raises for a foreign id


def button(
    label: str,
    cid: str,
    *,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    disabled: bool = False,
    row: int | None = None,
    emoji: str | None = None,
) -> GameComponent:
    """A button routed through `GameComponent` (so discord.py keeps no per-message state for it)."""
    inner: discord.ui.Button[Any] = discord.ui.Button(
        label=label, custom_id=cid, style=style, disabled=disabled, emoji=emoji
    )
    return GameComponent(inner, row=row)


def select(
    cid: str,
    options: list[discord.SelectOption],
    *,
    placeholder: str,
    row: int | None = None,
) -> GameComponent:
    inner: discord.ui.Select[Any] = discord.ui.Select(custom_id=cid, options=options, placeholder=placeholder)
    return GameComponent(inner, row=row)


async def send_modal(
    interaction: discord.Interaction, title: str, cid: str, *inputs: discord.ui.TextInput[Any]
) -> None:
    """Open a form. Its submission is routed by custom_id (`QuetBot.on_interaction`), like every
    component, so a form opened before a restart still works after it."""
    modal: discord.ui.Modal = discord.ui.Modal(title=title[:45], custom_id=cid, timeout=None)
    for item in inputs:
        modal.add_item(item)
    await interaction.response.send_modal(modal)
    modal.stop()  # discord.py forgets it: the submission takes our route, not an in-memory one


def modal_fields(data: Any) -> dict[str, str]:
    """The text inputs of a modal submission, by custom_id (in action rows, or in labels)."""
    fields: dict[str, str] = {}

    def walk(component: Any) -> None:
        if not isinstance(component, dict):
            return
        if "custom_id" in component and "value" in component:
            fields[str(component["custom_id"])] = str(component.get("value") or "")
        for child in component.get("components") or []:
            walk(child)
        if "component" in component:
            walk(component["component"])

    for row in (data or {}).get("components") or []:
        walk(row)
    return fields


def components(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A View holding ``items``: only a carrier for sending; clicks arrive through `GameComponent`."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view
