"""The server's memory on Discord: /game leaderboard, /game stats and /game history.

Every answer is private (ephemeral): these are looked up often, by one person at a time, and a
public answer would bury the channel's games under tables. Everything is read for the server the
command is used in (``interaction.guild_id``), never for one named in an option or a custom_id, so
another server's games never show.

History pages are turned with **Prev** / **Next** buttons whose custom_id survives restarts:
``q:<player id>:-:history:<game or all>.<page>.<anchor>``: the game-id field carries the player whose
history it is (not a game: the router sends the verb here without loading one), ``anchor`` the
newest game counted when the first page was shown (so pages do not shift as games end). Anyone who
can click may page (the answer is ephemeral, so that is the asker): a history is the server's public
record of finished games anyway.
"""

from __future__ import annotations

import io
import re

import discord
from discord import app_commands

from bot import clock as bot_clock
from bot.errors import BadInput, GameError, StaleButton
from bot.i18n import ENGLISH, N_, Lang, Msg
from bot.i18n.audience import reader
from bot.memory.periods import ALL_TIME, PERIODS
from bot.memory.ratings import BASE, SCALE, shown, shown_change
from bot.present import WITH_HINTS
from bot.present import who as shown_player
from bot.render import leaderboard as render
from bot.storage import Storage
from bot.storage.rows import BoardLine, KindRecord, PastGame, PastSeat, Rival
from bot.table.catalog import Catalog
from bot.table.components import button
from bot.table.drawing import Drawing
from bot.table.ids import ComponentId, custom_id
from bot.table.replies import NO_PINGS, fit, mention
from bot.table.routing import Router
from bot.table.seasons import SEASON, SeasonShown, season_name, season_shown, span, won_text

HISTORY = "history"
PER_PAGE = 5
TOP = 10
EMBED_COLOUR = discord.Colour.from_rgb(92, 76, 20)
PERIOD_CHOICES = [
    *(app_commands.Choice(name=name, value=key) for key, name in PERIODS.items()),
    app_commands.Choice(name="season", value=SEASON),  # (issue 29: bot/table/seasons.py)
]
RATING_NOTE = N_(
    "Rating: {base} + {scale} × (μ − 3σ), openskill's Plackett-Luce model; forfeits rate as last place."
)
_PAGE_ARG = re.compile(r"(?P<kind>[a-z]{1,12})\.(?P<page>[0-9]{1,6})\.(?P<anchor>[0-9]{1,18})")


def rating_note(lang: Lang) -> str:
    return lang.t(RATING_NOTE, base=BASE, scale=SCALE)


def _guild(interaction: discord.Interaction, command: str) -> int:
    if interaction.guild_id is None:
        raise GameError(
            "The memory of games belongs to a server: use /game {command} in one of its channels.",
            command=command,
        )
    return interaction.guild_id


def duration(seconds: float, lang: Lang = ENGLISH) -> str:
    """A time to move in words: "under 1 s", "14 s", "2 min 5 s", "3 h 10 min", "2 d 4 h"."""
    s = round(seconds)
    if s < 1:
        return lang.t("under 1 s")
    if s < 60:
        return lang.t("{s} s", s=s)
    if s < 3600:
        if s % 60:
            return lang.t("{m} min {s} s", m=s // 60, s=s % 60)
        return lang.t("{m} min", m=s // 60)
    if s < 86400:
        if s % 3600 >= 60:
            return lang.t("{h} h {m} min", h=s // 3600, m=s % 3600 // 60)
        return lang.t("{h} h", h=s // 3600)
    if s % 86400 >= 3600:
        return lang.t("{d} d {h} h", d=s // 86400, h=s % 86400 // 3600)
    return lang.t("{d} d", d=s // 86400)


def trend_text(record: KindRecord, lang: Lang = ENGLISH) -> str:
    change = shown_change(record.trend)
    arrow = "▲" if change > 0 else "▼" if change < 0 else "■"
    return lang.n(
        "{arrow} {change} over the last game",
        "{arrow} {change} over the last {count} games",
        record.trend_games,
        arrow=arrow,
        change=lang.number(abs(change)),
    )


def jump_url(game: PastGame) -> str:
    """Where a finished game can be seen: its final board, else its card, else its place."""
    base = f"https://discord.com/channels/{game.guild_id}"
    if game.board_message_id:
        return f"{base}/{game.place_id}/{game.board_message_id}"
    if game.lobby_message_id:
        return f"{base}/{game.channel_id}/{game.lobby_message_id}"
    return f"{base}/{game.place_id}"


def result_text(seats: tuple[PastSeat, ...], lang: Lang = ENGLISH) -> str:
    """The players, best place first: "<@1> (9) 🏆 · <@2> (5) · <@3> (left)"; a draw says so."""
    ordered = sorted(seats, key=lambda s: (s.place, s.forfeited))
    parts = []
    for seat in ordered:
        who = shown_player(seat.user_id, lang)
        if seat.forfeited:
            who = lang.t("{player} (left)", player=who)
        elif seat.score is not None:
            who = f"{who} ({seat.score})"
        parts.append(f"{who}{' 🏆' if seat.won else ''}")
    stayed = [s for s in seats if not s.forfeited]
    drawn = len(stayed) > 1 and not any(s.won for s in seats) and all(s.place == 1 for s in stayed)
    players = " · ".join(parts)
    return lang.t("Draw: {players}", players=players) if drawn else players


class Memory:
    """The three commands and the history's buttons. Each answer is built by a method of its own
    (``*_answer``: the reads, the image, the embed) and sent by the command's method. Every answer is
    private, so it speaks the asker's language."""

    def __init__(
        self, storage: Storage, router: Router, catalog: Catalog, drawing: Drawing | None = None
    ) -> None:
        self.storage, self.router, self.catalog = storage, router, catalog
        self.drawing = drawing if drawing is not None else Drawing(0)  # where leaderboards are drawn
        router.on_page(HISTORY, self.on_history_page)

    def _title(self, kind: str) -> str:
        return self.catalog.get(kind).title

    # ---- /game leaderboard --------------------------------------------------------------------------

    async def leaderboard(
        self, interaction: discord.Interaction, kind: str, period: str = ALL_TIME, season: int | None = None
    ) -> None:
        guild_id = _guild(interaction, "leaderboard")
        embed, file = await self.leaderboard_answer(
            guild_id=guild_id,
            user_id=interaction.user.id,
            kind=kind,
            period=period,
            season=season,
            lang=reader(interaction),
        )
        await interaction.response.send_message(
            embed=embed, file=file, ephemeral=True, allowed_mentions=NO_PINGS
        )

    async def leaderboard_answer(
        self,
        *,
        guild_id: int,
        user_id: int,
        kind: str,
        period: str = ALL_TIME,
        season: int | None = None,
        lang: Lang = ENGLISH,
    ) -> tuple[discord.Embed, discord.File]:
        """The server's top players of ``kind`` (and the asker's own line): an embed with the image.
        ``period`` "season": the current season, or ``season`` (a number) of this server's."""
        title = self._title(kind)
        if season is not None and period == ALL_TIME:
            period = SEASON  # (season:3 alone means that season)
        if season is not None and period != SEASON:
            raise BadInput("The option season goes with period:season.")
        if period not in PERIODS and period != SEASON:
            raise GameError("Pick a period from the list: all time, this month, this week or season.")
        shown_season: SeasonShown | None = None
        key = None
        if period == SEASON:
            shown_season = await season_shown(self.storage, guild_id, season, bot_clock.now())
            key = shown_season.period
        storage = self.storage
        lines = await storage.leaderboard(guild_id=guild_id, kind=kind, period=period, limit=TOP, key=key)
        if not lines:
            raise GameError(_no_games(title, kind, period, shown_season))
        own = None
        if all(line.player_id != user_id for line in lines):
            own = await storage.board_line_of(
                guild_id=guild_id, kind=kind, player_id=user_id, period=period, key=key
            )
        timed = period != ALL_TIME
        if shown_season is not None:
            period_name = season_name(shown_season.number, lang)
        else:
            period_name = lang.t(PERIODS[period])
        board = render.Leaderboard(
            title=title,
            period=period_name,
            lines=tuple(self._line(line, user_id, timed) for line in lines),
            own=None if own is None else self._line(own, user_id, timed),
            note=lang.t("ranked by rating gained") if timed else lang.t("ranked by rating"),
        )
        png = await self.drawing.draw(render.render, board, lang=lang)
        filename = f"leaderboard-{kind}.png"
        file = discord.File(
            io.BytesIO(png), filename=filename, description=render.alt_text(board, lang)[:1024]
        )
        embed = discord.Embed(
            title=lang.t("{title}: this server's leaderboard ({period})", title=title, period=period_name),
            colour=EMBED_COLOUR,
        )
        embed.description = self._you(lines, own, user_id, kind, lang)
        if shown_season is not None:
            embed.description += "\n" + _season_line(shown_season, lang)
        embed.set_image(url=f"attachment://{filename}")
        footer = rating_note(lang)
        if shown_season is not None:
            footer += " " + lang.t("Seasons follow UTC.")
        elif timed:
            footer += " " + lang.t("Periods follow UTC; weeks start on Monday.")
        embed.set_footer(text=footer)
        return embed, file

    @staticmethod
    def _line(line: BoardLine, me: int, timed: bool) -> render.Line:
        return render.Line(
            rank=line.rank,
            name=line.name,
            rating=shown(line.ordinal),
            games=line.games,
            wins=line.wins,
            change=shown_change(line.gain) if timed else None,
            you=line.player_id == me,
        )

    @staticmethod
    def _you(lines: list[BoardLine], own: BoardLine | None, me: int, kind: str, lang: Lang) -> str:
        mine = next((line for line in lines if line.player_id == me), own)
        if mine is None:
            return lang.t("You are not on this board yet: finish a game with /{command} new.", command=kind)
        return lang.t(
            "You are #{rank}, rating **{rating}**. /game stats shows more.",
            rank=mine.rank,
            rating=lang.number(shown(mine.ordinal)),
        )

    # ---- /game stats --------------------------------------------------------------------------------

    async def stats(self, interaction: discord.Interaction, player: discord.abc.User | None) -> None:
        guild_id = _guild(interaction, "stats")
        target = player or interaction.user
        embed = await self.stats_answer(
            guild_id=guild_id,
            player_id=target.id,
            name=target.display_name,
            own=target.id == interaction.user.id,
            lang=reader(interaction),
        )
        await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NO_PINGS)

    async def stats_answer(
        self, *, guild_id: int, player_id: int, name: str, own: bool, lang: Lang = ENGLISH
    ) -> discord.Embed:
        """A player's record per game here (``name``: how to title it; ``own``: they asked)."""
        storage = self.storage
        records = await storage.player_records(guild_id=guild_id, player_id=player_id)
        if not records:
            raise GameError(_nothing(player_id, own))
        rivals = await storage.rivals(guild_id=guild_id, player_id=player_id)
        embed = discord.Embed(
            title=lang.t("{name}'s games in this server", name=name[:80]), colour=EMBED_COLOUR
        )
        embed.description = lang.n(
            "{player}: {count} finished game.",
            "{player}: {count} finished games.",
            sum(r.games for r in records),
            player=mention(player_id),
        )
        for record in records:
            embed.add_field(name=self._title(record.kind), value=record_text(record, lang), inline=False)
        if rivals:
            embed.add_field(name=lang.t("Favourite opponents"), value=rivals_text(rivals, lang), inline=False)
        won = await storage.seasons_won(guild_id=guild_id, player_id=player_id)
        if won:
            embed.add_field(name=lang.t("Seasons won"), value=won_text(won, self._title, lang), inline=False)
        embed.set_footer(text=rating_note(lang))
        return embed

    # ---- /game history ------------------------------------------------------------------------------

    async def history(
        self, interaction: discord.Interaction, player: discord.abc.User | None, kind: str | None
    ) -> None:
        guild_id = _guild(interaction, "history")
        target = player or interaction.user
        embed, view = await self.history_answer(
            guild_id=guild_id,
            player_id=target.id,
            kind=kind,
            own=target.id == interaction.user.id,
            lang=reader(interaction),
        )
        await interaction.response.send_message(
            embed=embed, view=view, ephemeral=True, allowed_mentions=NO_PINGS
        )

    async def on_history_page(
        self, interaction: discord.Interaction, cid: ComponentId, values: list[str]
    ) -> None:
        guild_id = _guild(interaction, "history")
        m = _PAGE_ARG.fullmatch(cid.arg)
        kind = None if m is None or m["kind"] == "all" else m["kind"]
        if m is None or (kind is not None and kind not in self.catalog):
            raise StaleButton("That history button is not one I recognise. Use /game history again.")
        embed, view = await self.history_answer(
            guild_id=guild_id,
            player_id=cid.game_id,
            kind=kind,
            page=int(m["page"]),
            anchor=int(m["anchor"]),
            lang=reader(interaction),
        )
        await interaction.response.edit_message(embed=embed, view=view, allowed_mentions=NO_PINGS)

    async def history_answer(
        self,
        *,
        guild_id: int,
        player_id: int,
        kind: str | None,
        page: int = 0,
        anchor: int | None = None,
        own: bool = False,
        lang: Lang = ENGLISH,
    ) -> tuple[discord.Embed, discord.ui.View]:
        """One page of a player's finished games here, with its Prev / Next buttons. ``anchor``: the
        newest game the first page counted (None: the first page, now)."""
        title = None if kind is None else self._title(kind)
        found = await self.storage.history(
            guild_id=guild_id, player_id=player_id, kind=kind, page=page, per_page=PER_PAGE, anchor=anchor
        )
        if not found.games:
            if found.total or anchor is not None:
                raise StaleButton("That page is empty now. Use /game history again.")
            raise GameError(_nothing(player_id, own, title))
        pages = max(1, -(-found.total // PER_PAGE))
        heading = (
            lang.t("Finished games") if title is None else lang.t("Finished games of {title}", title=title)
        )
        embed = discord.Embed(title=heading, colour=EMBED_COLOUR)
        lines = [lang.t("{player}'s games in this server, newest first:", player=mention(player_id))]
        for game in found.games:
            lines.append(
                lang.t(
                    "{date} **{title}** #{game_id}: {result} · [final board]({url})",
                    date=f"<t:{int(game.finished_at)}:d>",
                    title=self._title(game.kind),
                    game_id=game.game_id,
                    result=result_text(game.seats, lang),
                    url=jump_url(game),
                )
                + (" · " + lang.t(WITH_HINTS) if game.hints else "")
            )
        embed.description = fit("\n".join(lines), 4096)
        embed.set_footer(
            text=lang.n(
                "Page {page} of {pages} · {count} game",
                "Page {page} of {pages} · {count} games",
                found.total,
                page=page + 1,
                pages=pages,
            )
        )
        arg = f"{kind or 'all'}.{{}}.{found.anchor}"
        prev = button(
            lang.pt("label", "Prev"),
            custom_id(player_id, HISTORY, arg.format(max(0, page - 1))),
            emoji="◀",
            disabled=page == 0,
        )
        nxt = button(
            lang.pt("label", "Next"),
            custom_id(player_id, HISTORY, arg.format(page + 1)),
            emoji="▶",
            disabled=page + 1 >= pages,
        )
        return embed, self.router.view([prev, nxt])


def _no_games(title: str, kind: str, period: str, season: SeasonShown | None) -> Msg:
    """Why a leaderboard is empty: no game of ``kind`` finished here (in the period or season)."""
    if season is not None:
        return Msg(
            "No {title} game has finished in this server in season {number} yet. Play one with "
            "/{command} new (/game addbot adds a computer player).",
            title=title,
            number=season.number,
            command=kind,
        )
    if period == ALL_TIME:
        return Msg(
            "No {title} game has finished in this server yet. Play one with /{command} new "
            "(/game addbot adds a computer player).",
            title=title,
            command=kind,
        )
    return Msg(
        "No {title} game has finished in this server {period} yet. Play one with /{command} new "
        "(/game addbot adds a computer player).",
        title=title,
        period=Msg(PERIODS[period]),
        command=kind,
    )


def _season_line(season: SeasonShown, lang: Lang) -> str:
    """Which days the season of a leaderboard covers, and whether it is over."""
    days = span(season.starts_at, season.ends_at, lang)
    if season.over:
        return lang.t("Season {number}: {days} (UTC), over.", number=season.number, days=days)
    return lang.t(
        "Season {number}: {days} (UTC), ends {moment}.",
        number=season.number,
        days=days,
        moment=f"<t:{int(season.ends_at)}:R>",
    )


def _nothing(player_id: int, own: bool, title: str | None = None) -> Msg:
    if own:
        if title is None:
            return Msg(
                "You have no finished game in this server yet. Start one with /<game> new, "
                "e.g. /procession new (/game addbot adds a computer player)."
            )
        return Msg(
            "You have no finished game of {title} in this server yet. Start one with /<game> new, "
            "e.g. /procession new (/game addbot adds a computer player).",
            title=title,
        )
    if title is None:
        return Msg("{player} has no finished game in this server yet.", player=mention(player_id))
    return Msg(
        "{player} has no finished game of {title} in this server yet.", player=mention(player_id), title=title
    )


def record_text(record: KindRecord, lang: Lang = ENGLISH) -> str:
    """A player's record in one game, for their stats."""
    share = record.wins / record.games if record.games else 0.0
    games = lang.n("{count} game", "{count} games", record.games)
    wins = lang.n("{count} win", "{count} wins", record.wins)
    lines = [
        lang.t(
            "Rating **{rating}** ({trend})",
            rating=lang.number(shown(record.ordinal)),
            trend=trend_text(record, lang),
        ),
        lang.t("{games} · {wins} ({share})", games=games, wins=wins, share=lang.percent(share)),
    ]
    if record.moves:
        lines.append(
            lang.t("About {duration} per move", duration=duration(record.move_seconds / record.moves, lang))
        )
    return fit("\n".join(lines), 1024)


def rivals_text(rivals: list[Rival], lang: Lang = ENGLISH) -> str:
    return fit(
        "\n".join(
            lang.n(
                "{player}: {count} game (ahead in {wins}, behind in {losses})",
                "{player}: {count} games (ahead in {wins}, behind in {losses})",
                r.games,
                player=shown_player(r.opponent_id, lang),
                wins=r.wins,
                losses=r.losses,
            )
            for r in rivals
        ),
        1024,
    )
