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

import asyncio
import io
import re
from typing import Any

import discord
from discord import app_commands

from bot.errors import GameError, StaleButton
from bot.memory.periods import ALL_TIME, PERIODS
from bot.memory.ratings import BASE, SCALE, shown, shown_change
from bot.render import leaderboard as render
from bot.storage.rows import BoardLine, HistoryPage, KindRecord, PastGame, PastSeat, Rival
from bot.table.components import button
from bot.table.deps import Deps
from bot.table.ids import MAX_ID, custom_id
from bot.table.replies import NO_PINGS, fit, mention

HISTORY = "history"
PER_PAGE = 5
TOP = 10
EMBED_COLOUR = discord.Colour.from_rgb(92, 76, 20)
PERIOD_CHOICES = [app_commands.Choice(name=name, value=key) for key, name in PERIODS.items()]
RATING_NOTE = (
    f"Rating: {BASE} + {SCALE} × (μ − 3σ), openskill's Plackett-Luce model; forfeits rate as last place."
)
_PAGE_ARG = re.compile(r"(?P<kind>[a-z]{1,12})\.(?P<page>[0-9]{1,6})\.(?P<anchor>[0-9]{1,18})")


def _guild(interaction: discord.Interaction, command: str) -> int:
    if interaction.guild_id is None:
        raise GameError(
            f"The memory of games belongs to a server: use /game {command} in one of its channels."
        )
    return interaction.guild_id


def duration(seconds: float) -> str:
    """A time to move in words: "under 1 s", "14 s", "2 min 5 s", "3 h 10 min", "2 d 4 h"."""
    s = round(seconds)
    if s < 1:
        return "under 1 s"
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60} min" if s % 3600 >= 60 else f"{s // 3600} h"
    return f"{s // 86400} d {s % 86400 // 3600} h" if s % 86400 >= 3600 else f"{s // 86400} d"


def trend_text(record: KindRecord) -> str:
    change = shown_change(record.trend)
    arrow = "▲" if change > 0 else "▼" if change < 0 else "■"
    games = "game" if record.trend_games == 1 else f"{record.trend_games} games"
    return f"{arrow} {abs(change):,} over the last {games}"


def jump_url(game: PastGame) -> str:
    """Where a finished game can be seen: its final board, else its card, else its place."""
    base = f"https://discord.com/channels/{game.guild_id}"
    if game.board_message_id:
        return f"{base}/{game.place_id}/{game.board_message_id}"
    if game.lobby_message_id:
        return f"{base}/{game.channel_id}/{game.lobby_message_id}"
    return f"{base}/{game.place_id}"


def result_text(seats: tuple[PastSeat, ...]) -> str:
    """The players, best place first: "<@1> (9) 🏆 · <@2> (5) · <@3> (left)"; a draw says so."""
    ordered = sorted(seats, key=lambda s: (s.place, s.forfeited))
    parts = []
    for seat in ordered:
        who = mention(seat.user_id)
        extra = " (left)" if seat.forfeited else f" ({seat.score})" if seat.score is not None else ""
        parts.append(f"{who}{extra}{' 🏆' if seat.won else ''}")
    stayed = [s for s in seats if not s.forfeited]
    drawn = len(stayed) > 1 and not any(s.won for s in seats) and all(s.place == 1 for s in stayed)
    return ("Draw: " if drawn else "") + " · ".join(parts)


class Memory:
    """The three commands and the history's buttons."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        deps.router.on_page(HISTORY, self.on_history_page)

    def _title(self, kind: str) -> str:
        return self.deps.catalog.get(kind).title

    # ---- /game leaderboard --------------------------------------------------------------------------

    async def leaderboard(self, interaction: discord.Interaction, kind: str, period: str = ALL_TIME) -> None:
        guild_id = _guild(interaction, "leaderboard")
        title = self._title(kind)
        if period not in PERIODS:
            raise GameError("Pick a period from the list: all time, this month or this week.")
        storage = self.deps.storage
        me = interaction.user.id
        lines = await storage.leaderboard(guild_id=guild_id, kind=kind, period=period, limit=TOP)
        if not lines:
            when = "" if period == ALL_TIME else f" {PERIODS[period]}"
            raise GameError(
                f"No {title} game has finished in this server{when} yet. Play one with /{kind} new "
                "(/game addbot seats a computer)."
            )
        own = None
        if all(line.player_id != me for line in lines):
            own = await storage.board_line_of(guild_id=guild_id, kind=kind, player_id=me, period=period)
        timed = period != ALL_TIME
        board = render.Leaderboard(
            title=title,
            period=PERIODS[period],
            lines=tuple(self._line(line, me, timed) for line in lines),
            own=None if own is None else self._line(own, me, timed),
            note="ranked by rating gained" if timed else "ranked by rating",
        )
        png = await asyncio.to_thread(render.render, board)
        filename = f"leaderboard-{kind}.png"
        file = discord.File(io.BytesIO(png), filename=filename, description=render.alt_text(board)[:1024])
        embed = discord.Embed(
            title=f"{title}: this server's leaderboard ({PERIODS[period]})", colour=EMBED_COLOUR
        )
        embed.description = self._you(lines, own, me, kind)
        embed.set_image(url=f"attachment://{filename}")
        embed.set_footer(text=RATING_NOTE + (" Periods follow UTC; weeks start on Monday." if timed else ""))
        await interaction.response.send_message(
            embed=embed, file=file, ephemeral=True, allowed_mentions=NO_PINGS
        )

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
    def _you(lines: list[BoardLine], own: BoardLine | None, me: int, kind: str) -> str:
        mine = next((line for line in lines if line.player_id == me), own)
        if mine is None:
            return f"You are not on this board yet: finish a game with /{kind} new."
        return f"You are #{mine.rank}, rating **{shown(mine.ordinal):,}**. /game stats shows more."

    # ---- /game stats --------------------------------------------------------------------------------

    async def stats(self, interaction: discord.Interaction, player: discord.abc.User | None) -> None:
        guild_id = _guild(interaction, "stats")
        target = player or interaction.user
        storage = self.deps.storage
        records = await storage.player_records(guild_id=guild_id, player_id=target.id)
        if not records:
            raise GameError(self._nothing(interaction, target))
        rivals = await storage.rivals(guild_id=guild_id, player_id=target.id)
        embed = discord.Embed(title=f"{target.display_name[:80]}'s games in this server", colour=EMBED_COLOUR)
        embed.description = f"{mention(target.id)}: {sum(r.games for r in records):,} finished games."
        for record in records:
            embed.add_field(name=self._title(record.kind), value=self._record_text(record), inline=False)
        if rivals:
            embed.add_field(name="Favourite opponents", value=self._rivals_text(rivals), inline=False)
        embed.set_footer(text=RATING_NOTE)
        await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NO_PINGS)

    @staticmethod
    def _nothing(interaction: discord.Interaction, target: discord.abc.User, of: str = "") -> str:
        if target.id == interaction.user.id:
            return (
                f"You have no finished game{of} in this server yet. Start one with /<game> new, "
                "e.g. /procession new (/game addbot seats a computer)."
            )
        return f"{mention(target.id)} has no finished game{of} in this server yet."

    @staticmethod
    def _record_text(record: KindRecord) -> str:
        share = record.wins / record.games if record.games else 0.0
        lines = [
            f"Rating **{shown(record.ordinal):,}** ({trend_text(record)})",
            f"{record.games:,} game{'' if record.games == 1 else 's'} · {record.wins:,} "
            f"win{'' if record.wins == 1 else 's'} ({share:.0%})",
        ]
        if record.moves:
            lines.append(f"About {duration(record.move_seconds / record.moves)} per move")
        return fit("\n".join(lines), 1024)

    @staticmethod
    def _rivals_text(rivals: list[Rival]) -> str:
        return fit(
            "\n".join(
                f"{mention(r.opponent_id)}: {r.games:,} game{'' if r.games == 1 else 's'} "
                f"(ahead in {r.wins}, behind in {r.losses})"
                for r in rivals
            ),
            1024,
        )

    # ---- /game history ------------------------------------------------------------------------------

    async def history(
        self, interaction: discord.Interaction, player: discord.abc.User | None, kind: str | None
    ) -> None:
        guild_id = _guild(interaction, "history")
        if kind is not None:
            self._title(kind)  # a game this bot hosts
        target = player or interaction.user
        page = await self.deps.storage.history(
            guild_id=guild_id, player_id=target.id, kind=kind, per_page=PER_PAGE
        )
        if not page.total:
            of = "" if kind is None else f" of {self._title(kind)}"
            raise GameError(self._nothing(interaction, target, of))
        embed, view = self._history_page(target.id, kind, 0, page)
        await interaction.response.send_message(
            embed=embed, view=view, ephemeral=True, allowed_mentions=NO_PINGS
        )

    async def on_history_page(self, interaction: discord.Interaction, cid: Any, values: list[str]) -> None:
        guild_id = _guild(interaction, "history")
        m = _PAGE_ARG.fullmatch(cid.arg)
        kind = None if m is None or m["kind"] == "all" else m["kind"]
        if m is None or not 0 < cid.game_id <= MAX_ID or (kind is not None and kind not in self.deps.catalog):
            raise StaleButton("That history button is not one I recognise. Use /game history again.")
        number, anchor = int(m["page"]), int(m["anchor"])
        page = await self.deps.storage.history(
            guild_id=guild_id, player_id=cid.game_id, kind=kind, page=number, per_page=PER_PAGE, anchor=anchor
        )
        if not page.games:
            raise StaleButton("That page is empty now. Use /game history again.")
        embed, view = self._history_page(cid.game_id, kind, number, page)
        await interaction.response.edit_message(embed=embed, view=view, allowed_mentions=NO_PINGS)

    def _history_page(
        self, player_id: int, kind: str | None, number: int, page: HistoryPage
    ) -> tuple[discord.Embed, discord.ui.View]:
        pages = max(1, -(-page.total // PER_PAGE))
        of = "" if kind is None else f" of {self._title(kind)}"
        embed = discord.Embed(title=f"Finished games{of}", colour=EMBED_COLOUR)
        lines = [f"{mention(player_id)}'s games in this server, newest first:"]
        for game in page.games:
            lines.append(
                f"<t:{int(game.finished_at)}:d> **{self._title(game.kind)}** #{game.game_id}: "
                f"{result_text(game.seats)} · [final board]({jump_url(game)})"
            )
        embed.description = fit("\n".join(lines), 4096)
        embed.set_footer(text=f"Page {number + 1} of {pages} · {page.total:,} games")
        arg = f"{kind or 'all'}.{{}}.{page.anchor}"
        prev = button(
            "Prev",
            custom_id(player_id, HISTORY, arg.format(max(0, number - 1))),
            emoji="◀",
            disabled=number == 0,
        )
        nxt = button(
            "Next",
            custom_id(player_id, HISTORY, arg.format(number + 1)),
            emoji="▶",
            disabled=number + 1 >= pages,
        )
        return embed, self.deps.router.view([prev, nxt])
