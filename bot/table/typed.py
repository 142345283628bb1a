"""Typed answers in DMs: a player replies to a panel with their move as text.

A typed answer goes to the one game waiting for it. With several waiting, the bot asks which, with
one button per game; the answer waits in the database meanwhile, so a restart loses nothing. With
none waiting, the reply says why (for example "you already picked 5").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import discord
from discord.utils import MISSING

from bot.errors import GameError, MoveSaved, StaleButton
from bot.i18n import Lang
from bot.i18n.audience import Audiences
from bot.service import Games, Loaded
from bot.storage import Storage
from bot.table.catalog import Catalog, SomeKind
from bot.table.components import button
from bot.table.ids import ComponentId, custom_id
from bot.table.play import Plays
from bot.table.replies import APOLOGY, NO_PINGS, error_text, fit
from bot.table.routing import Router

log = logging.getLogger(__name__)

TYPED_LIMIT = 100  # characters of a typed answer that are read; longer answers are refused


@dataclass(frozen=True)
class TypedAnswers:
    games: Games
    storage: Storage
    catalog: Catalog
    router: Router
    audiences: Audiences
    plays: Plays

    async def on_message(self, message: discord.Message) -> None:
        """The client's listener for messages: only DMs from people are read."""
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        lang = await self.audiences.user(message.author.id)  # a DM: theirs as last seen
        try:
            await self._answer(message, lang)
        except GameError as exc:
            await self._reply(message, error_text(exc, lang))
        except MoveSaved as exc:
            log.error("Error after a typed move was committed", exc_info=exc.__cause__)
            await self._reply(message, lang.say(exc.msg))
        except Exception:
            log.exception("Unhandled error while reading a typed DM answer")
            await self._reply(message, lang.t(APOLOGY))

    async def _reply(self, message: discord.Message, text: str, view: discord.ui.View = MISSING) -> None:
        try:
            await message.channel.send(fit(text), allowed_mentions=NO_PINGS, view=view)
        except discord.HTTPException:
            log.warning("Could not answer a typed DM answer")

    def _waiting(self, game: Loaded, kind: SomeKind, seat: int) -> bool:
        assert kind.private is not None
        return game.row.live and game.state is not None and kind.private.awaits_typed(game.view(seat), seat)

    async def _answer(self, message: discord.Message, lang: Lang) -> None:
        text = message.content.strip()
        user_id = message.author.id
        waiting: list[tuple[SomeKind, Loaded, int]] = []
        reasons: list[str] = []
        for row in await self.storage.live_games_of_user(user_id=user_id):
            if row.status != "active" or row.kind not in self.catalog:
                continue
            kind = self.catalog.get(row.kind)
            seat = row.seat_of(user_id)
            if seat is None or kind.private is None:
                continue
            game = self.games.load(row)
            if self._waiting(game, kind, seat):
                waiting.append((kind, game, seat))
            else:
                view = game.view(seat)
                reason = kind.private.not_waiting_reason(view, seat, kind.table(game).speaking(lang))
                if reason is not None:
                    reasons.append(
                        lang.t(
                            "Game #{game_id} ({title}): {reason}",
                            game_id=game.id,
                            title=kind.title,
                            reason=reason,
                        )
                    )
        if not waiting:
            # One answer: why each game of theirs is not waiting (a pick already made...), or, when
            # no game says why, that none is waiting.
            await self._reply(
                message,
                "\n".join(reasons[:10])
                or lang.t(
                    "None of your games is waiting for a typed answer from you right now. Use the buttons "
                    "of my latest message for your game, or /game status in its channel."
                ),
            )
            return
        if len(text) > TYPED_LIMIT:
            raise GameError(
                "That answer is {length} characters long; a move is a few characters. "
                "Type just your move (a number, a card or your letters).",
                length=len(text),
            )
        if len(waiting) == 1:
            kind, game, seat = waiting[0]
            assert kind.private is not None
            action = kind.private.typed_action(game.view(seat), seat, text)
            await self.plays.act_typed(message, game, action)
            return
        reply_id = await self.storage.add_typed_reply(user_id=user_id, text=text)
        buttons = [
            button(
                f"#{game.id} {kind.title}",
                custom_id(game.id, "typed", reply_id),
                style=discord.ButtonStyle.primary,
            )
            for kind, game, _ in waiting[:20]
        ]
        await self._reply(
            message,
            lang.n(
                "{count} of your games is waiting for a typed answer. Which game is that answer for?",
                "{count} of your games are waiting for a typed answer. Which game is that answer for?",
                len(waiting),
            ),
            view=self.router.view(buttons),
        )

    async def on_choose(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        """The player said which game a typed answer was for."""
        user_id = interaction.user.id
        reply_id = int(cid.arg) if cid.arg.isascii() and cid.arg.isdigit() and len(cid.arg) < 19 else None
        text = (
            None
            if reply_id is None
            else await self.storage.take_typed_reply(reply_id=reply_id, user_id=user_id)
        )
        if text is None:
            raise StaleButton("That answer was already used or replaced. Type your answer again.")
        kind = self.catalog.get(game.row.kind)
        seat = self.plays.panels.seat_of(game, user_id)
        if kind.private is None or not self._waiting(game, kind, seat):
            raise GameError(
                "Game #{game_id} is not waiting for a typed answer from you any more.", game_id=game.id
            )
        action = kind.private.typed_action(game.view(seat), seat, text)
        await self.plays.act(interaction, game, action)
