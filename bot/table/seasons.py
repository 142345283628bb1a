"""Seasons on Discord: ``/game settings seasons:<off|month|quarter> [announce:#channel]``, which season
``/game leaderboard period:season [season:<n>]`` means, the seasons a player won in ``/game stats``,
and the post when a season ends.

A server's seasons are calendar months or quarters (UTC), numbered by the server: season 1 is the
first whole month or quarter after seasons were turned on, and each later one the next number
(`bot.memory.seasons.Run`). Games finished before a season began count in none. A season ranks by
the rating gained in it, then wins (its month's or quarter's standings, `bot.storage.records`); its
champion of a game is whoever tops that board (equal figures at the top share it).

When a season ends, the scheduler's pass (`SeasonDesk.run_due`) records it (`bot.storage.seasons`),
and one process, whose claim in the database succeeds, posts its champions and top ten of each game
played in it in the announce channel, with a nonce made of the server and the season (Discord
enforces it), then marks it sent: neither a restart, a kill between the post and the mark, nor a
second process posts it twice. A season with no game finished in it, or a server without an
announce channel, gets no post (the season is still recorded).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import discord

from bot.errors import BadInput, GameError
from bot.i18n import ENGLISH, Lang
from bot.i18n.audience import Audiences
from bot.memory.ratings import shown, shown_change
from bot.present import who
from bot.storage import Storage
from bot.storage.rows import BoardLine
from bot.storage.seasons import EndedSeason, SeasonWon
from bot.table.catalog import Catalog
from bot.table.replies import NO_PINGS, fit

log = logging.getLogger(__name__)

OFF = "off"
SEASON_MODES = (OFF, "month", "quarter")
SEASON = "season"  # /game leaderboard's period for seasons
CLAIM = 120.0  # seconds a process has to post a season's end it claimed before another may
TOP = 10
EMBED_COLOUR = discord.Colour.from_rgb(176, 132, 20)


@dataclass(frozen=True)
class SeasonShown:
    """A season a leaderboard shows: its number, its standings' key, its bounds, and whether it is over."""

    number: int
    period: str
    starts_at: float
    ends_at: float
    over: bool


def span(starts_at: float, ends_at: float, lang: Lang = ENGLISH) -> str:
    """A season's days: "Dec 1, 2026 – Dec 31, 2026"."""
    return f"{lang.date(starts_at)} – {lang.date(ends_at - 1)}"


def season_name(number: int, lang: Lang = ENGLISH) -> str:
    return lang.t("season {number}", number=number)


async def season_shown(storage: Storage, guild_id: int, number: int | None, now: float) -> SeasonShown:
    """The season ``/game leaderboard period:season [season:]`` means: ``number``, or the current one.
    Refused (privately) when seasons are off and no season is asked for, when the current season has
    not begun, or when there is no season ``number`` here."""
    setting = await storage.season_setting(guild_id=guild_id)
    run = None if setting is None else setting.run
    if number is None:
        if run is None:
            raise GameError(
                "Seasons are off in this server. Someone with Manage Server can turn them on with "
                "/game settings seasons:month (or quarter)."
            )
        number = run.season_at(now)
        if number < run.first_season:
            raise GameError(
                "Season {number} has not begun: it begins {moment}. Until then, try period:this month.",
                number=run.first_season,
                moment=f"<t:{int(run.starts(run.first_season))}:R>",
            )
    ended = await storage.ended_season(guild_id=guild_id, season=number) if number > 0 else None
    if ended is not None:
        return SeasonShown(number, ended.period, ended.starts_at, ended.ends_at, True)
    if run is not None and run.first_season <= number <= run.season_at(now):
        over = number < run.season_at(now)
        return SeasonShown(number, run.key(number), run.starts(number), run.ends(number), over)
    if run is None and await storage.last_ended_season(guild_id=guild_id) is None:
        raise GameError(
            "Seasons are off in this server. Someone with Manage Server can turn them on with "
            "/game settings seasons:month (or quarter)."
        )
    last = run.season_at(now) if run is not None else await storage.last_ended_season(guild_id=guild_id)
    if last is None or last < 1:
        raise GameError("There is no season {number} here: none has begun yet.", number=number)
    raise GameError(
        "There is no season {number} here. Seasons so far: 1 to {last}; leave season out for the "
        "current one.",
        number=number,
        last=last,
    )


class SeasonDesk:
    """The seasons' settings, and the end posts (the scheduler calls `run_due` on each pass)."""

    def __init__(
        self,
        client: discord.Client,
        storage: Storage,
        catalog: Catalog,
        audiences: Audiences,
        clock: Callable[[], float],
    ) -> None:
        self.client, self.storage, self.catalog, self.audiences = client, storage, catalog, audiences
        self.clock = clock

    # ---- /game settings seasons: announce: ------------------------------------------------------------

    async def configure(
        self, guild_id: int, mode: str | None, announce: discord.abc.GuildChannel | None
    ) -> None:
        if mode is not None and mode not in SEASON_MODES:
            raise BadInput(
                "There is no season length {mode}: pick off, month or quarter.", mode=repr(mode[:20])
            )
        await self.storage.set_seasons(
            guild_id=guild_id,
            mode=None if mode in (None, OFF) else mode,
            channel_id=None if announce is None else announce.id,
            now=self.clock(),
            keep_mode=mode is None,
        )

    async def summary(self, guild_id: int, lang: Lang) -> str:
        setting = await self.storage.season_setting(guild_id=guild_id)
        run = None if setting is None else setting.run
        if setting is None or run is None:
            return lang.t("Seasons are off here (seasons:month or seasons:quarter turns them on).")
        now = self.clock()
        current = run.season_at(now)
        if run.mode == "month":
            line = lang.t("Seasons here are calendar months (UTC).")
        else:
            line = lang.t("Seasons here are calendar quarters (UTC).")
        if current < run.first_season:
            line += " " + lang.t(
                "Season {number} begins {moment}.",
                number=run.first_season,
                moment=f"<t:{int(run.starts(run.first_season))}:f>",
            )
        else:
            line += " " + lang.t(
                "Season {number} ends {moment}.", number=current, moment=f"<t:{int(run.ends(current))}:f>"
            )
        if setting.channel_id is None:
            line += " " + lang.t("Its end is not posted (announce:#channel posts it there).")
        else:
            line += " " + lang.t(
                "Its champions are posted in {channel} when it ends.", channel=f"<#{setting.channel_id}>"
            )
        return line

    # ---- the season-end post (the scheduler's pass) -----------------------------------------------------

    async def run_due(self, now: float, holder: str) -> None:
        await self.storage.open_ended_seasons(now=now)
        for ended in await self.storage.due_season_posts(now=now, holder=holder):
            claimed = await self.storage.claim_season_post(
                guild_id=ended.guild_id, season=ended.season, holder=holder, now=now, until=now + CLAIM
            )
            if not claimed:
                continue
            try:
                message_id = await self._post(ended)
            except discord.HTTPException:
                log.warning(
                    "Could not post the end of season %s of server %s; trying again later",
                    ended.season,
                    ended.guild_id,
                    exc_info=True,
                )
                continue
            await self.storage.finish_season_post(
                guild_id=ended.guild_id, season=ended.season, message_id=message_id
            )

    async def _post(self, ended: EndedSeason) -> int:
        """The season's champions and top ten of each game played in it; the message's id (0: nothing
        to post, no channel, or the channel is gone or closed to the bot: not tried again)."""
        if ended.channel_id is None:
            return 0
        kinds = [k for k in await self.storage.season_kinds(guild_id=ended.guild_id, period=ended.period)]
        boards = []
        for kind in kinds:
            lines = await self.storage.leaderboard(
                guild_id=ended.guild_id, kind=kind, key=ended.period, limit=TOP
            )
            if lines:
                boards.append((self._title(kind), lines))
        if not boards:
            return 0
        lang = await self.audiences.server(ended.guild_id)
        embed = season_embed(ended, boards, lang)
        nonce = f"s{ended.guild_id:x}.{ended.season:x}"[:25]
        channel = self.client.get_partial_messageable(ended.channel_id, guild_id=ended.guild_id)
        try:
            message = await channel.send(embed=embed, allowed_mentions=NO_PINGS, nonce=nonce)
        except (discord.Forbidden, discord.NotFound):
            log.info(
                "The season channel %s of server %s is closed to the bot", ended.channel_id, ended.guild_id
            )
            return 0
        return message.id

    def _title(self, kind: str) -> str:
        return self.catalog.get(kind).title if kind in self.catalog else kind


def champions(lines: list[BoardLine]) -> list[BoardLine]:
    """The top of a season's board: everyone ranked first (equal figures share it)."""
    return [line for line in lines if line.rank == 1]


def board_text(lines: list[BoardLine], lang: Lang = ENGLISH) -> str:
    """A season's top ten of one game, one line each: rank, player, rating gained, games, wins."""
    out = []
    for line in lines:
        games = lang.n("{count} game", "{count} games", line.games)
        wins = lang.n("{count} win", "{count} wins", line.wins)
        change = shown_change(line.gain)
        out.append(
            lang.t(
                "{rank}. {player}: {change} ({games}, {wins}), rating {rating}",
                rank=line.rank,
                player=who(line.player_id, lang),
                change=f"{'+' if change >= 0 else '−'}{lang.number(abs(change))}",
                games=games,
                wins=wins,
                rating=lang.number(shown(line.ordinal)),
            )
        )
    return fit("\n".join(out), 1024)


def season_embed(
    ended: EndedSeason, boards: list[tuple[str, list[BoardLine]]], lang: Lang = ENGLISH
) -> discord.Embed:
    """The post at a season's end: a heading with its days, and per game its champion(s) and top ten."""
    embed = discord.Embed(
        title=lang.t("🏆 Season {number} is over", number=ended.season), colour=EMBED_COLOUR
    )
    heading = [
        lang.t(
            "{days} (UTC). Champions and top ten by rating gained in the season:",
            days=span(ended.starts_at, ended.ends_at, lang),
        )
    ]
    for title, lines in boards:
        names = lang.words(who(line.player_id, lang) for line in champions(lines))
        heading.append(lang.t("**{title}**: champion {players}", title=title, players=names))
    embed.description = fit("\n".join(heading), 4096)
    for title, lines in boards:
        embed.add_field(name=title, value=board_text(lines, lang), inline=False)
    embed.set_footer(
        text=lang.t("/game leaderboard period:season season:{number} shows it again.", number=ended.season)
    )
    return embed


def won_text(won: list[SeasonWon], title: Callable[[str], str], lang: Lang = ENGLISH) -> str:
    """/game stats: the seasons a player won, one line each: "🏆 Season 2 (Nov 1, 2026 – Nov 30,
    2026): Procession"."""
    return fit(
        "\n".join(
            lang.t(
                "🏆 Season {number} ({days}): {title}",
                number=s.season,
                days=span(s.starts_at, s.ends_at, lang),
                title=title(s.kind),
            )
            for s in won
        ),
        1024,
    )
