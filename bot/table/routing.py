"""Routing: every click, selection and form submission reaches its handler by its custom_id.

Components survive restarts because none is tied to an in-memory View: the custom_id is parsed once,
in `DynamicItem.from_custom_id`, and the router looks the handler up by the game's kind and the verb.
Handlers are registered by whoever owns the verb (a game's commands, the lobby, the panels), so the
router calls no one by name. Forms are routed the same way from the client's `on_interaction`.

Presentation builds plain `discord.ui.Button` / `Select` items; `Router.view` wraps them in this
router's routed item class for sending (discord.py then keeps no per-message state for them).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping

import discord

from bot.errors import BadInput, GameError, StaleButton
from bot.jsontypes import JSON
from bot.service import Games, Loaded
from bot.table.components import Control
from bot.table.ids import ComponentId, parse_custom_id, unrecognised
from bot.table.replies import Replies

ClickHandler = Callable[[discord.Interaction, Loaded, ComponentId, list[str]], Awaitable[None]]
FormHandler = Callable[[discord.Interaction, Loaded, ComponentId, dict[str, str]], Awaitable[None]]
PageHandler = Callable[[discord.Interaction, ComponentId, list[str]], Awaitable[None]]
ANY_GAME = "*"


class Router:
    def __init__(self, games: Games, replies: Replies) -> None:
        self.games = games
        self.replies = replies
        self._clicks: dict[tuple[str, str], ClickHandler] = {}
        self._forms: dict[tuple[str, str], FormHandler] = {}
        self._dm_ok: set[str] = set()
        self._pages: dict[str, PageHandler] = {}
        self.item_class, self.foreign_class = _item_classes(self)

    # ---- registration ---------------------------------------------------------------------------

    def on_click(self, kind: str, verb: str, handler: ClickHandler, *, in_dms: bool = True) -> None:
        """``kind`` is a game's name, or `ANY_GAME`. ``in_dms``: the control may be used in a DM."""
        self._clicks[(kind, verb)] = handler
        if in_dms:
            self._dm_ok.add(verb)

    def on_form(self, kind: str, verb: str, handler: FormHandler) -> None:
        self._forms[(kind, verb)] = handler

    def on_page(self, verb: str, handler: PageHandler) -> None:
        """A control about no one game (the pages of a player's history): its id's game field
        carries what its handler says, no game is loaded for it, and the handler does its own checks."""
        self._pages[verb] = handler

    # ---- dispatch -------------------------------------------------------------------------------

    async def _game(self, interaction: discord.Interaction, cid: ComponentId, form: bool) -> Loaded:
        game = await self.games.get(cid.game_id)
        if interaction.guild_id is None:
            if cid.verb not in self._dm_ok:
                if form:
                    raise GameError("That form is used in the game's channel, not in DMs.")
                raise GameError("That control is used in the game's channel, not in DMs.")
        elif interaction.channel_id not in (game.row.channel_id, game.row.place_id):
            if form:
                raise GameError("That form belongs to a game in another channel.")
            raise GameError("That control belongs to a game in another channel.")
        return game

    async def click(self, interaction: discord.Interaction, cid: ComponentId, values: list[str]) -> None:
        page = self._pages.get(cid.verb)
        if page is not None:
            await page(interaction, cid, values)
            return
        if cid.verb not in self._verbs(self._clicks):
            raise unrecognised()
        game = await self._game(interaction, cid, form=False)
        handler = self._clicks.get((game.row.kind, cid.verb)) or self._clicks.get((ANY_GAME, cid.verb))
        if handler is None:
            raise StaleButton(
                "That control does nothing in this game. Use /game status for the current board."
            )
        await handler(interaction, game, cid, values)

    async def form(self, interaction: discord.Interaction) -> None:
        data: JSON = interaction.data or {}
        cid = parse_custom_id(str(data.get("custom_id", "")))
        if cid.verb not in self._verbs(self._forms):
            raise unrecognised()
        game = await self._game(interaction, cid, form=True)
        handler = self._forms.get((game.row.kind, cid.verb)) or self._forms.get((ANY_GAME, cid.verb))
        if handler is None:
            raise StaleButton("That form does nothing in this game. Use /game status for the current board.")
        await handler(interaction, game, cid, modal_fields(data))

    @staticmethod
    def _verbs(handlers: Mapping[tuple[str, str], object]) -> set[str]:
        return {verb for _, verb in handlers}

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """The client's listener: form submissions (components arrive through the routed items)."""
        if interaction.type == discord.InteractionType.modal_submit:
            await self.replies.guarded(interaction, lambda: self.form(interaction))

    # ---- sending --------------------------------------------------------------------------------

    def view(self, items: Iterable[Control]) -> discord.ui.View:
        """A View carrying ``items`` wrapped for routing (only a carrier for sending)."""
        view = discord.ui.View(timeout=None)
        for item in items:
            view.add_item(self.item_class(item, row=item.row))
        return view


def _item_classes(
    router: Router,
) -> tuple[type[discord.ui.DynamicItem[Control]], type[discord.ui.DynamicItem[Control]]]:
    """The two routed item classes of one router: ours (``q:...``), and anything else (foreign)."""

    class GameComponent(discord.ui.DynamicItem[Control], template=r"(?s)q:.*"):
        def __init__(self, item: Control, *, row: int | None = None) -> None:
            super().__init__(item, row=row)
            self.cid: ComponentId | None = None
            self.values: list[str] = []
            self.error: GameError | None = None

        @classmethod
        async def from_custom_id(
            cls, interaction: discord.Interaction, item: Control, match: re.Match[str], /
        ) -> GameComponent:
            routed = cls(item)
            try:  # parsed once, here; a refusal is answered by the callback
                routed.cid = parse_custom_id(match.string)
                routed.values = chosen_values(
                    interaction.data, menu=item.type is not discord.ComponentType.button
                )
            except GameError as exc:
                routed.error = exc
                if isinstance(interaction.data, dict) and "values" in interaction.data:
                    # discord.py reads the values into the item next: give it a list it can read.
                    interaction.data["values"] = []  # type: ignore[typeddict-unknown-key]
            return routed

        async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
            async def work() -> None:
                if self.error is not None or self.cid is None:
                    raise self.error or StaleButton("That control is not one I recognise.")
                await router.click(interaction, self.cid, self.values)

            await router.replies.guarded(interaction, work)

    class ForeignComponent(discord.ui.DynamicItem[Control], template=r"(?s)(?!q:).*"):
        """A component whose custom_id we never made (forged, or from another bot version)."""

        def __init__(self, item: Control) -> None:
            super().__init__(item)

        @classmethod
        async def from_custom_id(
            cls, interaction: discord.Interaction, item: Control, match: re.Match[str], /
        ) -> ForeignComponent:
            return cls(item)

        async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
            async def refuse() -> None:
                raise StaleButton(
                    "That control is not one I recognise (it may be from an old version). Use /game status."
                )

            await router.replies.guarded(interaction, refuse)

    return GameComponent, ForeignComponent


def chosen_values(data: JSON, *, menu: bool) -> list[str]:
    """What a click carries: a menu's chosen values (one to 25 texts), a button's none. Anything else
    (values that are not a list of texts, a button click carrying some) comes from no Discord client."""
    values = (data or {}).get("values") if isinstance(data, dict) else None
    if not menu and values in (None, []):
        return []
    if (
        menu
        and isinstance(values, list)
        and 1 <= len(values) <= 25
        and all(isinstance(v, str) for v in values)
    ):
        return values
    raise BadInput(
        "That control arrived malformed (your Discord may show an old version of it). Use the controls "
        "of the latest board, or /game status."
    )


def modal_fields(data: JSON) -> dict[str, str]:
    """The text inputs of a form submission, by custom_id (in action rows, or in labels)."""
    fields: dict[str, str] = {}

    def walk(component: JSON) -> None:
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
