"""/game away, /game back, /game extend and /game quiet: time away from every game, more time for
one move, and quiet hours (the arithmetic in `bot.away` and `bot.quiet`, the SQL in
`bot.storage.away` and `bot.storage.quiet`).

Each answer comes after the change is committed. `/game away` and `/game back` are answered
privately (they concern the caller's games everywhere); more time is said in the game's place, so the
awaited player (and everyone at the table) sees it, without pinging anyone.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from zoneinfo import available_timezones

import discord

from bot import clock
from bot.away import MAX_DAYS
from bot.errors import BadInput, NotAllowed, NotAPlayer
from bot.i18n import Lang
from bot.i18n.audience import reader
from bot.quiet import clock_text, next_end, parse_clock, period_at, zone
from bot.service import Finder
from bot.storage import Storage
from bot.storage.away import Extension
from bot.table.lobby import channel_of
from bot.table.notify import Notify
from bot.table.replies import NO_PINGS, fit, mention, reply_private, who

HOUR = 3600


@cache
def available_zones() -> frozenset[str]:
    return frozenset(available_timezones())


@dataclass(frozen=True)
class TimeDesk:
    storage: Storage
    finder: Finder
    notify: Notify

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

    async def quiet(
        self, interaction: discord.Interaction, start: str | None, end: str | None, timezone: str | None
    ) -> None:
        """Set quiet hours (``start`` and ``end``), turn them off (``start`` "off"), or show them."""
        user_id, lang = interaction.user.id, reader(interaction)
        if start is not None and start.strip().lower() == "off":
            self.notify.set_quiet(user_id, None)
            gone = await self.storage.clear_quiet(user_id=user_id)
            said = lang.t("Quiet hours are off: pings and DMs come at any hour.")
            await reply_private(interaction, said if gone else lang.t("You have no quiet hours."))
            return
        if start is None and end is None and timezone is None:
            hours = (await self.storage.quiet_of(user_ids=[user_id])).get(user_id)
            if hours is None:
                await reply_private(interaction, lang.t("You have no quiet hours."))
                return
            await reply_private(interaction, _quiet_set(lang, hours.starts, hours.ends, hours.tz))
            return
        if start is None or end is None:
            raise BadInput(
                "Give both from and to (like from:22:30 to:07:00), or from:off to turn quiet hours off."
            )
        starts, ends, tz = parse_clock(start), parse_clock(end), zone(timezone)
        if starts == ends:
            raise BadInput("Quiet hours must end at another time than they start.")
        now = clock.now()
        await self.storage.set_quiet(
            user_id=user_id, starts=starts, ends=ends, tz=tz.key, next_end=next_end(now, starts, ends, tz)
        )
        self.notify.set_quiet(user_id, (starts, ends, tz.key))
        for wait in await self.storage.waits_of_user(user_id=user_id):  # deadlines inside move to their end
            period = period_at(wait.deadline, starts, ends, tz)
            if period is not None and wait.deadline > now:
                await self.storage.move_deadline(
                    game_id=wait.game_id, seat=wait.seat, deadline=wait.deadline, to=period[1]
                )
        await reply_private(interaction, _quiet_set(lang, starts, ends, tz.key))


def _quiet_set(lang: Lang, starts: int, ends: int, tz: str) -> str:
    return lang.t(
        "🌙 Quiet hours: {start} to {end} ({zone}). Then no pings or DMs (they come when the quiet hours "
        "end), and a deadline of yours that would fall inside them moves to their end.",
        start=clock_text(starts),
        end=clock_text(ends),
        zone=tz,
    )


def zone_choices(current: str) -> list[tuple[str, str]]:
    """Time zone names containing what was typed (for the autocomplete), at most 25."""
    typed = current.strip().lower().replace(" ", "_")
    names = sorted(available_zones())
    starts = [n for n in names if n.lower().startswith(typed)]
    inside = [n for n in names if typed in n.lower() and n not in starts]
    return [(n, n) for n in (starts + inside)[:25]]


def more_time(extensions: list[Extension], seat: int, lang: Lang) -> str:
    """Who gave the player in ``seat`` more time for their move, and how much ("" for nobody)."""
    given = [
        f"{who(e.giver_id, lang)} +{lang.duration(int(e.seconds))}" for e in extensions if e.seat == seat
    ]
    if not given:
        return ""
    return lang.t("more time from {givers}", givers=lang.words(given))
