"""Answers to people: private replies, and the one place an error becomes what a person reads.

A `GameError` is a refusal the person can act on: it is answered privately, and nothing changed.
`MoveSaved` says a move counts although something after it failed. Anything else is a bug: logged
with its traceback, and the person gets a short apology, never "This interaction failed".
Every text fits Discord's limits (errors quote at most a short excerpt of what was sent).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import discord
from discord import app_commands
from discord.utils import MISSING

from bot.errors import GameError, MoveSaved, player_number
from bot.i18n import ENGLISH, N_, Lang
from bot.i18n.audience import reader
from bot.inputs import excerpt
from bot.present import mention as mention  # (here too: the table names players through replies)
from bot.present import who as who
from bot.table.options import BadOption, check_options

log = logging.getLogger(__name__)

APOLOGY = N_("Sorry, something went wrong on my side. Nothing was changed; please try again.")
NO_PINGS = discord.AllowedMentions.none()
PING_USERS = discord.AllowedMentions(users=True, roles=False, everyone=False, replied_user=False)
MESSAGE_LIMIT = 2000
ANSWER_WITHIN = 2.0  # seconds: Discord waits 3 s for a first answer; past this, an interaction is deferred

T = TypeVar("T")
# Discord's codes for an interaction it has forgotten: the callback (10062 Unknown interaction) and
# its webhook (10015 Unknown Webhook: follow-ups and the original response).
FORGOTTEN = (10062, 10015)


def join_words(words: list[str], lang: Lang = ENGLISH) -> str:
    return lang.words(words)


def fit(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to Discord's limit (a last resort: texts are built short)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_text(error: GameError, lang: Lang = ENGLISH) -> str:
    """The sentence of a refusal in ``lang``, its players named (never "seat 2")."""
    users = error.seat_users

    def name(seat: int) -> str:
        return who(users[seat], lang) if users and 0 <= seat < len(users) else player_number(seat, lang)

    return fit(error.in_language(lang, name))


async def reply_private(
    interaction: discord.Interaction,
    text: str,
    *,
    view: discord.ui.View = MISSING,
    file: discord.File = MISSING,
    allowed_mentions: discord.AllowedMentions = NO_PINGS,
) -> None:
    """An ephemeral answer, whether or not the interaction was already answered."""
    if interaction.response.is_done():
        await interaction.followup.send(
            fit(text), ephemeral=True, view=view, file=file, allowed_mentions=allowed_mentions
        )
    else:
        await interaction.response.send_message(
            fit(text), ephemeral=True, view=view, file=file, allowed_mentions=allowed_mentions
        )


def answer_webhook(client: discord.Client, token: str) -> discord.Webhook | None:
    """The webhook of the interaction with ``token``: its answer is its "@original" message (for 15
    minutes). None when the bot's application id is not known yet."""
    if client.application_id is None:
        return None
    return discord.Webhook.partial(client.application_id, token, client=client)


async def original_answer(client: discord.Client, token: str) -> discord.WebhookMessage | None:
    """The answer of the interaction with ``token``, found again (after a restart, say) as its
    "@original" message; None when it has none (not answered yet, or Discord forgot it)."""
    webhook = answer_webhook(client, token)
    if webhook is None:
        return None
    try:
        return await webhook.fetch_message("@original")  # type: ignore[arg-type]
    except discord.NotFound:
        return None


async def within_time(
    interaction: discord.Interaction,
    work: Awaitable[T],
    *,
    ephemeral: bool,
    defer: Callable[[], Awaitable[None]] | None = None,
) -> tuple[T, bool]:
    """``work``'s result, and whether ``interaction`` was deferred ("thinking") while it ran: when it
    takes longer than `ANSWER_WITHIN`, so that its answer can still follow (edit the original
    response then). A defer Discord refuses (the interaction came too late) leaves it undeferred.
    ``defer``: how to defer, when not plainly (a read-only answer notes itself as owed first:
    `bot.table.pending`)."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.wait_for(asyncio.shield(task), timeout=ANSWER_WITHIN), False
    except TimeoutError:
        pass
    deferred = False
    if not interaction.response.is_done():
        with contextlib.suppress(discord.HTTPException):
            if defer is None:
                await interaction.response.defer(ephemeral=ephemeral, thinking=True)
            else:
                await defer()
            deferred = True
    return await task, deferred


class Replies:
    """Turns whatever a handler raised into a private answer."""

    async def report(self, interaction: discord.Interaction, error: BaseException) -> None:
        lang = reader(interaction)
        if isinstance(error, discord.NotFound) and error.code in FORGOTTEN:
            # Discord forgot the interaction (it came, or was answered, after its 3 s): nobody can be
            # told anything through it. Not a bug; what was done stands (boards go through the outbox).
            log.warning("Interaction %s expired before it was answered (%s)", interaction.id, error.code)
            interaction.extras["outcome"] = "expired"
            return
        interaction.extras["outcome"] = "refused" if isinstance(error, GameError) else "error"
        if isinstance(error, GameError):
            text = error_text(error, lang)
        elif isinstance(error, MoveSaved):
            log.error(
                "Error after a committed move (interaction %s)", interaction.id, exc_info=error.__cause__
            )
            text = lang.say(error.msg)
        else:
            log.error(
                "Unhandled error in interaction %s (type %s, user %s)",
                interaction.id,
                interaction.type,
                interaction.user.id,
                exc_info=error,
            )
            text = lang.t(APOLOGY)
        try:
            await reply_private(interaction, text)
        except discord.HTTPException:
            log.warning("Could not deliver an error reply for interaction %s", interaction.id)

    async def guarded(self, interaction: discord.Interaction, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await work()
        except Exception as exc:  # the surface's one handler: every error gets an answer
            await self.report(interaction, exc)


class GameTree(app_commands.CommandTree[discord.Client]):
    """The slash command surface: its errors end in `Replies.report`."""

    replies = Replies()

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """Options a command cannot take as sent (a forged or outdated client's) are refused here,
        before discord.py reads them (see bot/table/options.py); the typing of an autocomplete with
        such options gets no suggestions."""
        try:
            check_options(self, interaction)
        except BadOption as refusal:
            if interaction.type is discord.InteractionType.autocomplete:
                with contextlib.suppress(discord.HTTPException):
                    await interaction.response.autocomplete([])
            else:
                await self.replies.report(interaction, refusal)
            return False
        return True

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        original: BaseException = error
        if isinstance(error, app_commands.CommandInvokeError):
            original = error.original
        elif isinstance(error, app_commands.TransformerError):
            original = GameError(
                "I could not read {value} for that option. Pick a value from the list.",
                value=repr(excerpt(str(error.value))),
            )
        elif isinstance(error, app_commands.CommandSignatureMismatch):
            original = GameError(
                "That command arrived without an option it needs (your Discord may show an old "
                "version of it). Type / and pick the command from the list again, with every option."
            )
        elif isinstance(error, app_commands.CommandNotFound):
            original = GameError("That command is out of date. Type / and pick it from the list again.")
        elif isinstance(error, app_commands.CheckFailure):
            said = str(error)
            original = GameError(said) if said else GameError("You cannot use that command here.")
        await self.replies.report(interaction, original)
