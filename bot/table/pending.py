"""Deferred answers owed ("thinking..."), and what a restart does with those a crash left.

A slow read-only command (/game analyse, /game replay, /game hint, /game puzzle, /game mine) that
cannot answer within Discord's 3 s defers, and Discord shows "thinking..." until the answer comes,
for up to 15 minutes. `PendingAnswers.defer` notes the interaction in the database first
(`bot.storage.pending`); the entry is deleted once the interaction's handlers are done (`done`, which
the bot calls for every interaction: by then its answer, or its refusal, went out). A process killed
in between leaves the entry. At its next start (`start`, before it takes any new interaction) the
process reads what it left, and for each entry whose token still works and whose response still
shows "thinking" it edits that response to a short sentence in the asker's language
(`ASK_AGAIN`); every entry read is then deleted. A response answered before the process died (the
entry outlived it by a moment) is left as it is: the response is read before anything is edited.

Several processes sharing a database each take back their own entries only (``holder``, a process's
name in claims, the same after its restart: `bot.app`), never those of another process, which may
still be answering them; entries nobody comes back for are dropped by retention once their token has expired
(`Privacy.drop_stale_tokens`). The analysis is not made again after a restart: the person asks again
and, once the analysis was stored before the crash, is answered at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine

import discord

from bot import clock
from bot.i18n import N_, language
from bot.i18n.audience import reader
from bot.storage import PendingAnswer, Storage
from bot.table.boards import TOKEN_LIFETIME
from bot.table.replies import NO_PINGS

log = logging.getLogger(__name__)

ASK_AGAIN = N_("I restarted before I could finish answering this. Please ask again.")
ENTRY = "pending_answer"  # the key of an interaction's entry in its ``extras``


class PendingAnswers:
    """The book of deferred answers owed by this process (``holder``: None when it has the database
    alone, and then every entry is its own)."""

    def __init__(self, storage: Storage, client: discord.Client, *, holder: str | None) -> None:
        self.storage, self.client, self.holder = storage, client, holder
        self._tasks: set[asyncio.Task[None]] = set()

    async def defer(self, interaction: discord.Interaction, *, asked: str, ephemeral: bool) -> None:
        """Defer the command ``interaction`` ("thinking...", private when ``ephemeral``), noted first
        as an answer owed. ``asked``: what was asked, as the command said it ("/game replay 12")."""
        assert interaction.application_id is not None
        interaction.extras[ENTRY] = await self.storage.note_pending_answer(
            application_id=interaction.application_id,
            token=interaction.token,
            user_id=interaction.user.id,
            locale=reader(interaction).code,
            asked=asked,
            holder=self.holder,
            now=clock.now(),
        )
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)

    def done(self, interaction: discord.Interaction) -> None:
        """The handlers of ``interaction`` are done (its answer, or its refusal, went out): what was
        noted for it goes."""
        entry = interaction.extras.pop(ENTRY, None)
        if isinstance(entry, int):
            self._background(self._drop(entry), "quetbot-pending-done")

    async def start(self) -> None:
        """What an earlier run of this process left, read now (before any new interaction is
        noted) and answered in the background."""
        left = await self.storage.pending_answers(holder=self.holder)
        if left:
            log.info("%d deferred answers were left unanswered by the last run", len(left))
            self._background(self._recover(left), "quetbot-pending-recover")

    async def stop(self) -> None:
        """Wait for the deletions under way (the database closes next); a recovery left unfinished
        is taken up again at the next start."""
        for task in list(self._tasks):
            if task.get_name() == "quetbot-pending-recover":
                task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _recover(self, left: list[PendingAnswer]) -> None:
        for entry in left:
            try:
                if await self.tell(entry):
                    log.info("Told the asker of %s to ask again (entry %d)", entry.asked, entry.id)
            except discord.HTTPException as exc:  # (Discord refused: nothing more can be done)
                log.warning("Could not tell the asker of %s to ask again (%s)", entry.asked, exc.status)
            await self._drop(entry.id)

    async def tell(self, entry: PendingAnswer) -> bool:
        """``entry``'s response edited to `ASK_AGAIN` if it still shows "thinking" (True); False when
        its token has expired, or it has no response (the process died before the defer, or Discord
        forgot the interaction) or one that was answered."""
        if clock.now() - entry.created_at >= TOKEN_LIFETIME:
            return False
        webhook = discord.Webhook.partial(entry.application_id, entry.token, client=self.client)
        try:
            response = await webhook.fetch_message("@original")  # type: ignore[arg-type]
        except discord.NotFound:
            return False
        if not response.flags.loading:
            return False
        text = language(entry.locale).t(ASK_AGAIN)
        await webhook.edit_message(response.id, content=text, allowed_mentions=NO_PINGS)
        return True

    async def _drop(self, entry: int) -> None:
        try:
            await self.storage.drop_pending_answer(entry_id=entry)
        except Exception:  # (the entry stays: the next start finds its response answered)
            log.warning("Could not delete the deferred answer %d", entry, exc_info=True)

    def _background(self, work: Coroutine[object, object, None], name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
