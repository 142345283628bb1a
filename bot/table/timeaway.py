"""/game away, /game back and /game extend: time away from every game, and more time for one move
(the arithmetic in `bot.away`, the SQL in `bot.storage.away`).

Each answer comes after the change is committed. `/game away` and `/game back` are answered
privately (they concern the caller's games everywhere); more time is said in the game's place, so the
awaited player (and everyone at the table) sees it, without pinging anyone.
"""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot import clock
from bot.away import MAX_DAYS
from bot.errors import BadInput, NotAllowed, NotAPlayer
from bot.i18n import Lang
from bot.i18n.audience import reader
from bot.service import Finder
from bot.storage import Storage
from bot.storage.away import Extension
from bot.table.lobby import channel_of
from bot.table.replies import NO_PINGS, fit, mention, reply_private

HOUR = 3600


@dataclass(frozen=True)
class TimeDesk:
    storage: Storage
    finder: Finder

    async def away(self, interaction: discord.Interaction, days: int) -> None:
        lang = reader(interaction)
        answer = await self.storage.go_away(user_id=interaction.user.id, days=days, now=clock.now())
        if answer.until is None:
            text = lang.n(
                "You can be away at most {most} days in any 30 days: {count} day is left now.",
                "You can be away at most {most} days in any 30 days: {count} days are left now.",
                answer.left,
                most=MAX_DAYS,
            )
            await reply_private(interaction, text)
            return
        await reply_private(
            interaction,
            lang.t(
                "🏖️ You are away until {moment}: your clocks in every game are paused until then "
                "(your deadlines move by the time away). /game back ends it sooner.",
                moment=f"<t:{int(answer.until)}:f>",
            ),
        )

    async def back(self, interaction: discord.Interaction) -> None:
        lang = reader(interaction)
        ended = await self.storage.come_back(user_id=interaction.user.id, now=clock.now())
        if ended is None:
            await reply_private(interaction, lang.t("You are not away: your clocks are running."))
            return
        await reply_private(
            interaction,
            lang.t("Welcome back: your clocks run again (your deadlines moved by the time you were away)."),
        )

    async def extend(self, interaction: discord.Interaction, player: discord.abc.User, hours: int) -> None:
        giver = interaction.user.id
        game = await self.finder.game_here(channel_of(interaction), giver)
        row = game.row
        if player.id == giver:
            raise NotAllowed("You cannot give yourself more time: another player or the host can.")
        if row.seat_of(giver) is None and row.host_id != giver:
            raise NotAPlayer("Only the players of this game and its host can give more time.")
        seat = row.seat_of(player.id)
        if seat is None or row.status != "active":
            raise BadInput(
                "{player} is not awaited in this game: more time is given for a move the game waits for.",
                player=mention(player.id),
            )
        done = await self.storage.extend_wait(
            game_id=row.id, seat=seat, giver_id=giver, seconds=hours * HOUR, now=clock.now()
        )
        if done.refused == "given":
            raise NotAllowed("You already gave {player} more time for this move.", player=mention(player.id))
        if done.deadline is None:
            raise BadInput(
                "{player} is not awaited in this game: more time is given for a move the game waits for.",
                player=mention(player.id),
            )
        lang = reader(interaction)
        text = lang.t(
            "⏳ {giver} gives {player} {duration} more for this move: now due {relative} ({moment}).",
            giver=mention(giver),
            player=mention(player.id),
            duration=lang.duration(hours * HOUR),
            relative=f"<t:{int(done.deadline)}:R>",
            moment=f"<t:{int(done.deadline)}:f>",
        )
        await interaction.response.send_message(fit(text), allowed_mentions=NO_PINGS)


def more_time(extensions: list[Extension], seat: int, lang: Lang) -> str:
    """Who gave the player in ``seat`` more time for their move, and how much ("" for nobody)."""
    given = [f"{mention(e.giver_id)} +{lang.duration(int(e.seconds))}" for e in extensions if e.seat == seat]
    if not given:
        return ""
    return lang.t("more time from {givers}", givers=lang.words(given))
