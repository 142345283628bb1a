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

import discord
from discord import app_commands

from bot.errors import GameError, StaleButton
from bot.memory.periods import ALL_TIME, PERIODS
from bot.memory.ratings import BASE, SCALE, shown, shown_change
from bot.render import leaderboard as render
from bot.storage.rows import BoardLine, KindRecord, PastGame, PastSeat, Rival
from bot.table.components import button
from bot.table.deps import Deps
from bot.table.ids import ComponentId, custom_id
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
    """The three commands and the history's buttons. Each answer is built by a method of its own
    (``*_answer``: the reads, the image, the embed) and sent by the command's method."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        deps.router.on_page(HISTORY, self.on_history_page)

    def _title(self, kind: str) -> str:
        return self.deps.catalog.get(kind).title

    # ---- /game leaderboard --------------------------------------------------------------------------

    async def leaderboard(self, interaction: discord.Interaction, kind: str, period: str = ALL_TIME) -> None:
        guild_id = _guild(interaction, "leaderboard")
        embed, file = await self.leaderboard_answer(
            guild_id=guild_id, user_id=interaction.user.id, kind=kind, period=period
        )
        await interaction.response.send_message(
            embed=embed, file=file, ephemeral=True, allowed_mentions=NO_PINGS
        )

    async def leaderboard_answer(
        self, *, guild_id: int, user_id: int, kind: str, period: str = ALL_TIME
    ) -> tuple[discord.Embed, discord.File]:
        """The server's top players of ``kind`` (and the asker's own line): an embed with the image."""
        title = self._title(kind)
        if period not in PERIODS:
            raise GameError("Pick a period from the list: all time, this month or this week.")
        storage = self.deps.storage
        lines = await storage.leaderboard(guild_id=guild_id, kind=kind, period=period, limit=TOP)
        if not lines:
            when = "" if period == ALL_TIME else f" {PERIODS[period]}"
            raise GameError(
                f"No {title} game has finished in this server{when} yet. Play one with /{kind} new "
                "(/game addbot adds a computer player)."
            )
        own = None
        if all(line.player_id != user_id for line in lines):
            own = await storage.board_line_of(guild_id=guild_id, kind=kind, player_id=user_id, period=period)
        timed = period != ALL_TIME
        board = render.Leaderboard(
            title=title,
            period=PERIODS[period],
            lines=tuple(self._line(line, user_id, timed) for line in lines),
            own=None if own is None else self._line(own, user_id, timed),
            note="ranked by rating gained" if timed else "ranked by rating",
        )
        png = await asyncio.to_thread(render.render, board)
        filename = f"leaderboard-{kind}.png"
        file = discord.File(io.BytesIO(png), filename=filename, description=render.alt_text(board)[:1024])
        embed = discord.Embed(
            title=f"{title}: this server's leaderboard ({PERIODS[period]})", colour=EMBED_COLOUR
        )
        embed.description = self._you(lines, own, user_id, kind)
        embed.set_image(url=f"attachment://{filename}")
        embed.set_footer(text=RATING_NOTE + (" Periods follow UTC; weeks start on Monday." if timed else ""))
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
    def _you(lines: list[BoardLine], own: BoardLine | None, me: int, kind: str) -> str:
        mine = next((line for line in lines if line.player_id == me), own)
        if mine is None:
            return f"You are not on this board yet: finish a game with /{kind} new."
        return f"You are #{mine.rank}, rating **{shown(mine.ordinal):,}**. /game stats shows more."

    # ---- /game stats --------------------------------------------------------------------------------

    async def stats(self, interaction: discord.Interaction, player: discord.abc.User | None) -> None:
        guild_id = _guild(interaction, "stats")
        target = player or interaction.user
        embed = await self.stats_answer(
            guild_id=guild_id,
            player_id=target.id,
            name=target.display_name,
            own=target.id == interaction.user.id,
        )
        await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NO_PINGS)

    async def stats_answer(self, *, guild_id: int, player_id: int, name: str, own: bool) -> discord.Embed:
        """A player's record per game here (``name``: how to title it; ``own``: they asked)."""
        storage = self.deps.storage
        records = await storage.player_records(guild_id=guild_id, player_id=player_id)
        if not records:
            raise GameError(_nothing(player_id, own))
        rivals = await storage.rivals(guild_id=guild_id, player_id=player_id)
        embed = discord.Embed(title=f"{name[:80]}'s games in this server", colour=EMBED_COLOUR)
        embed.description = f"{mention(player_id)}: {sum(r.games for r in records):,} finished games."
        for record in records:
            embed.add_field(name=self._title(record.kind), value=record_text(record), inline=False)
        if rivals:
            embed.add_field(name="Favourite opponents", value=rivals_text(rivals), inline=False)
        embed.set_footer(text=RATING_NOTE)
        return embed

    # ---- /game history ------------------------------------------------------------------------------

    async def history(
        self, interaction: discord.Interaction, player: discord.abc.User | None, kind: str | None
    ) -> None:
        guild_id = _guild(interaction, "history")
        target = player or interaction.user
        embed, view = await self.history_answer(
            guild_id=guild_id, player_id=target.id, kind=kind, own=target.id == interaction.user.id
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
        if m is None or (kind is not None and kind not in self.deps.catalog):
            raise StaleButton("That history button is not one I recognise. Use /game history again.")
        embed, view = await self.history_answer(
            guild_id=guild_id, player_id=cid.game_id, kind=kind, page=int(m["page"]), anchor=int(m["anchor"])
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
    ) -> tuple[discord.Embed, discord.ui.View]:
        """One page of a player's finished games here, with its Prev / Next buttons. ``anchor``: the
        newest game the first page counted (None: the first page, now)."""
        of = "" if kind is None else f" of {self._title(kind)}"
        found = await self.deps.storage.history(
            guild_id=guild_id, player_id=player_id, kind=kind, page=page, per_page=PER_PAGE, anchor=anchor
        )
        if not found.games:
            if found.total or anchor is not None:
                raise StaleButton("That page is empty now. Use /game history again.")
            raise GameError(_nothing(player_id, own, of))
        pages = max(1, -(-found.total // PER_PAGE))
        embed = discord.Embed(title=f"Finished games{of}", colour=EMBED_COLOUR)
        lines = [f"{mention(player_id)}'s games in this server, newest first:"]
        for game in found.games:
            lines.append(
                f"<t:{int(game.finished_at)}:d> **{self._title(game.kind)}** #{game.game_id}: "
                f"{result_text(game.seats)} · [final board]({jump_url(game)})"
            )
        embed.description = fit("\n".join(lines), 4096)
        embed.set_footer(text=f"Page {page + 1} of {pages} · {found.total:,} games")
        arg = f"{kind or 'all'}.{{}}.{found.anchor}"
        prev = button(
            "Prev", custom_id(player_id, HISTORY, arg.format(max(0, page - 1))), emoji="◀", disabled=page == 0
        )
        nxt = button(
            "Next", custom_id(player_id, HISTORY, arg.format(page + 1)), emoji="▶", disabled=page + 1 >= pages
        )
        return embed, self.deps.router.view([prev, nxt])


def _nothing(player_id: int, own: bool, of: str = "") -> str:
    if own:
        return (
            f"You have no finished game{of} in this server yet. Start one with /<game> new, "
            "e.g. /procession new (/game addbot adds a computer player)."
        )
    return f"{mention(player_id)} has no finished game{of} in this server yet."


def record_text(record: KindRecord) -> str:
    """A player's record in one game, for their stats."""
    share = record.wins / record.games if record.games else 0.0
    lines = [
        f"Rating **{shown(record.ordinal):,}** ({trend_text(record)})",
        f"{record.games:,} game{'' if record.games == 1 else 's'} · {record.wins:,} "
        f"win{'' if record.wins == 1 else 's'} ({share:.0%})",
    ]
    if record.moves:
        lines.append(f"About {duration(record.move_seconds / record.moves)} per move")
    return fit("\n".join(lines), 1024)


def rivals_text(rivals: list[Rival]) -> str:
    return fit(
        "\n".join(
            f"{mention(r.opponent_id)}: {r.games:,} game{'' if r.games == 1 else 's'} "
            f"(ahead in {r.wins}, behind in {r.losses})"
            for r in rivals
        ),
        1024,
    )
