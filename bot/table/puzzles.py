"""The daily puzzle: ``/game puzzle``, its answer buttons, and the servers' daily post.

A UTC day has one puzzle for everyone, made by the game the registry names
(`bot.registry.DAILY_PUZZLE`: Procession's `cogs.procession.puzzle`, a position where exactly one
flip wins, proved by exact search), from a finished game of any server, else from a game the
computer played against itself; the first process to need it chooses and stores it, and every other
reads the stored one (`bot.storage.puzzles`).

The buttons are one per legal flip, ``q:<day>:-:puzzle:<position>``: the game-id field carries the
puzzle's day (the router sends the verb here without loading a game), the arg the flip it chooses,
never the answer; they work after a restart and for whoever clicks. An answer is committed (one a
person a day, with their streak) before it is told. A server that chose a channel
(``/game settings puzzles:#channel [puzzle_hour:]``) gets the puzzle posted there daily at its hour
by the scheduler's pass: one row per server and day claimed by one process, sent with a nonce, then
marked sent, so a restart or a second process neither loses nor repeats it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import discord

from bot.errors import BadInput, StaleButton
from bot.i18n import ENGLISH, Lang
from bot.i18n.audience import Audiences, reader
from bot.storage import Storage
from bot.storage.puzzles import Answered, StoredPuzzle
from bot.table.components import button
from bot.table.ids import ComponentId, custom_id
from bot.table.pending import PendingAnswers
from bot.table.replies import NO_PINGS, fit, reply_private
from bot.table.routing import Router

log = logging.getLogger(__name__)

PUZZLE = "puzzle"  # the answer buttons' verb
DAY = 86400
DEFAULT_PUZZLE_HOUR = 12
CLAIM = 120.0  # seconds a process has to post a server's puzzle it claimed before another may
LEADERS = 10


def day_of(moment: float) -> int:
    """The UTC day of ``moment``, counted from 1970-01-01."""
    return int(moment // DAY)


class Position(Protocol):
    @property
    def n(self) -> int: ...
    @property
    def rows(self) -> tuple[str, ...]: ...
    @property
    def answer(self) -> int: ...


class PuzzleMaker(Protocol):
    """What the desk asks of the game whose positions are the puzzles (a module, such as
    `cogs.procession.puzzle`)."""

    KIND: str  # the games whose finished positions may become puzzles

    def game_rows(self, state: Mapping[str, Any]) -> tuple[int, tuple[str, ...]] | None: ...
    def of_the_day(
        self, day: int, games: Sequence[tuple[int, int, Sequence[str]]]
    ) -> tuple[Position, int | None]: ...
    def legal_flips(self, n: int, rows: Sequence[str]) -> list[int]: ...
    def board_lines(self, n: int, rows: Sequence[str]) -> list[str]: ...


def real_games(maker: PuzzleMaker, sources: list[tuple[int, Any]]) -> list[tuple[int, int, tuple[str, ...]]]:
    """The finished games a puzzle may come from, as (id, n, rows), oldest first (a stable order)."""
    out = []
    for game_id, data in sources:
        read = maker.game_rows(data) if isinstance(data, dict) else None
        if read is not None:
            out.append((game_id, *read))
    return sorted(out)


def board(maker: PuzzleMaker, puzzle: StoredPuzzle, lang: Lang) -> str:
    """The position as text: the rows so far with their run lengths, positions numbered above."""
    lines = maker.board_lines(puzzle.n, puzzle.rows)
    intro = lang.t(
        "🧩 **Daily puzzle** ({date}): Procession, n = {n}. The rows so far, each with its run lengths:",
        date=lang.date(puzzle.day * DAY),
        n=puzzle.n,
    )
    task = lang.t(
        "Two players; a flip must give run lengths not seen before; whoever makes the last move wins. "
        "**Find the only winning move** for the player to move (one try)."
    )
    return "\n".join([intro, "```", *lines, "```", task])


class PuzzleDesk:
    """/game puzzle, its buttons, the settings of the daily post, and the post (`run_due`)."""

    def __init__(
        self,
        *,
        client: discord.Client,
        storage: Storage,
        router: Router,
        audiences: Audiences,
        clock: Callable[[], float],
        maker: PuzzleMaker,
        pending: PendingAnswers,
    ) -> None:
        self.client, self.storage, self.router, self.audiences = client, storage, router, audiences
        self.pending = pending  # (a deferred answer is noted as owed: a restart tells the asker)
        self.clock, self.maker = clock, maker
        self._choosing = asyncio.Lock()
        router.on_page(PUZZLE, self.on_click)

    # ---- the day's puzzle -----------------------------------------------------------------------------

    async def puzzle(self, day: int) -> StoredPuzzle:
        """``day``'s puzzle: the stored one, else chosen now and stored (the first store wins)."""
        stored = await self.storage.puzzle_of(day=day)
        if stored is not None:
            return stored
        async with self._choosing:
            stored = await self.storage.puzzle_of(day=day)
            if stored is not None:
                return stored
            sources = await self.storage.puzzle_sources(kind=self.maker.KIND)
            chosen, source = await asyncio.to_thread(
                self.maker.of_the_day, day, real_games(self.maker, sources)
            )
            return await self.storage.keep_puzzle(
                day=day,
                n=chosen.n,
                rows=chosen.rows,
                answer=chosen.answer,
                source_game_id=source,
                now=self.clock(),
            )

    def buttons(self, puzzle: StoredPuzzle) -> discord.ui.View:
        legal = self.maker.legal_flips(puzzle.n, puzzle.rows)
        return self.router.view(
            button(str(p), custom_id(puzzle.day, PUZZLE, p), row=i // 5) for i, p in enumerate(legal)
        )

    # ---- /game puzzle and its buttons -----------------------------------------------------------------

    async def show(self, interaction: discord.Interaction) -> None:
        """Today's puzzle with its buttons, privately; once answered, the answer and the solution."""
        lang = reader(interaction)
        today = day_of(self.clock())
        puzzle = await self.storage.puzzle_of(day=today)
        if puzzle is None:  # the first of the day chooses it: a search, which may take a moment
            if not interaction.response.is_done():
                await self.pending.defer(interaction, asked="/game puzzle", ephemeral=True)
            puzzle = await self.puzzle(today)
        answered = await self.storage.puzzle_answer_of(user_id=interaction.user.id, day=today)
        if answered is None:
            await reply_private(interaction, board(self.maker, puzzle, lang), view=self.buttons(puzzle))
            return
        streak = await self.storage.puzzle_streak(user_id=interaction.user.id, today=today)
        result = self.result(puzzle, answered.position, answered.correct, streak, lang)
        await reply_private(interaction, board(self.maker, puzzle, lang) + "\n" + result)

    async def on_click(self, interaction: discord.Interaction, cid: ComponentId, values: list[str]) -> None:
        del values
        today = day_of(self.clock())
        if cid.game_id != today:
            raise StaleButton("That puzzle was an earlier day's. /game puzzle shows today's.")
        puzzle = await self.storage.puzzle_of(day=today)
        if puzzle is None or not cid.arg.isdigit() or len(cid.arg) > 2:
            raise StaleButton("That puzzle button is not one I recognise. Use /game puzzle.")
        position = int(cid.arg)
        if position not in self.maker.legal_flips(puzzle.n, puzzle.rows):
            raise BadInput(
                "Position {position} is not a legal flip here. Use /game puzzle.", position=position
            )
        answered = await self.storage.answer_puzzle(
            user_id=interaction.user.id,
            day=today,
            position=position,
            correct=position == puzzle.answer,
            guild_id=interaction.guild_id,
            now=self.clock(),
        )  # committed before anything is said
        await reply_private(interaction, self.told(puzzle, answered, reader(interaction)))

    def told(self, puzzle: StoredPuzzle, answered: Answered, lang: Lang) -> str:
        answer = answered.answer
        if not answered.fresh:
            again = lang.t("You answered today already (one try a day).")
            return again + " " + self.result(puzzle, answer.position, answer.correct, answered.streak, lang)
        return self.result(puzzle, answer.position, answer.correct, answered.streak, lang)

    @staticmethod
    def result(puzzle: StoredPuzzle, position: int, correct: bool, streak: int, lang: Lang) -> str:
        if correct:
            verdict = lang.t(
                "✅ Right: flipping position {position} is the only winning move.", position=position
            )
        else:
            verdict = lang.t(
                "❌ Not that one: after flipping position {position} the other player can win. "
                "The only winning move was position {answer}.",
                position=position,
                answer=puzzle.answer,
            )
        days = lang.n("Your streak: {count} day.", "Your streak: {count} days.", streak)
        return fit(f"{verdict} {days} " + lang.t("A new puzzle comes at 00:00 UTC."))

    # ---- the settings of the daily post ---------------------------------------------------------------

    async def configure(
        self, guild_id: int, channel: discord.abc.GuildChannel | None, hour: int | None, off: bool
    ) -> None:
        """``/game settings puzzles:#channel [puzzle_hour:] [puzzles_off:]``."""
        if off:
            if channel is not None or hour is not None:
                raise BadInput(
                    "puzzles_off:True stops the daily puzzle: give it without puzzles and puzzle_hour."
                )
            await self.storage.drop_puzzle_channel(guild_id=guild_id)
            return
        now = await self.storage.puzzle_channel(guild_id=guild_id)
        if channel is None:
            if hour is None:
                return
            if now is None:
                raise BadInput(
                    "Choose the channel of the daily puzzle too: /game settings puzzles:#channel "
                    "puzzle_hour:{hour}.",
                    hour=hour,
                )
        channel_id = channel.id if channel is not None else now.channel_id  # type: ignore[union-attr]
        if hour is None:
            hour = now.hour if now is not None else DEFAULT_PUZZLE_HOUR
        await self.storage.set_puzzle_channel(guild_id=guild_id, channel_id=channel_id, hour=hour)

    async def summary(self, guild_id: int, lang: Lang) -> str:
        chosen = await self.storage.puzzle_channel(guild_id=guild_id)
        if chosen is None:
            return lang.t("The daily puzzle is not posted here (puzzles:#channel posts it there every day).")
        return lang.t(
            "The daily puzzle is posted in {channel} every day at {hour}:00 UTC (puzzles_off:True stops it).",
            channel=f"<#{chosen.channel_id}>",
            hour=f"{chosen.hour:02d}",
        )

    # ---- the daily post (the scheduler's pass) --------------------------------------------------------

    async def run_due(self, now: float, holder: str) -> None:
        day = day_of(now)
        hour = int((now - day * DAY) // 3600)
        for due in await self.storage.due_puzzle_posts(day=day, hour=hour, now=now, holder=holder):
            claimed = await self.storage.claim_puzzle_post(
                guild_id=due.guild_id, day=day, channel_id=due.channel_id, holder=holder, now=now,
                until=now + CLAIM,
            )  # fmt: skip
            if not claimed:
                continue
            try:
                message_id = await self._post(due.guild_id, due.channel_id, day)
            except discord.HTTPException:
                log.warning(
                    "Could not post the puzzle in %s; trying again later", due.channel_id, exc_info=True
                )
                continue
            await self.storage.finish_puzzle_post(guild_id=due.guild_id, day=day, message_id=message_id)

    async def _post(self, guild_id: int, channel_id: int, day: int) -> int:
        """The day's puzzle with its buttons and the server's streaks; the message's id (0: the channel
        is gone or closed to the bot, not tried again today)."""
        puzzle = await self.puzzle(day)
        lang = await self.audiences.server(guild_id)
        leaders = await self.storage.puzzle_leaders(guild_id=guild_id, today=day, limit=LEADERS)
        text = board(self.maker, puzzle, lang) + "\n" + self.leaderboard(leaders, lang)
        nonce = f"p{guild_id:x}.{day:x}"[:25]
        channel = self.client.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            message = await channel.send(
                fit(text), view=self.buttons(puzzle), allowed_mentions=NO_PINGS, nonce=nonce
            )
        except (discord.Forbidden, discord.NotFound):
            log.info("The puzzle channel %s of server %s is closed to the bot", channel_id, guild_id)
            return 0
        return message.id

    @staticmethod
    def leaderboard(leaders: list[tuple[int, int]], lang: Lang = ENGLISH) -> str:
        """The server's longest current streaks, or a word that there are none yet."""
        if not leaders:
            return lang.t("🔥 No streaks here yet: answer with the buttons (only you see your answer).")
        lines = [lang.t("🔥 **Streaks here** (answer with the buttons; only you see your answer):")]
        for rank, (user_id, streak) in enumerate(leaders, 1):
            lines.append(
                lang.n(
                    "{rank}. {player}: {count} day",
                    "{rank}. {player}: {count} days",
                    streak,
                    rank=rank,
                    player=f"<@{user_id}>",
                )
            )
        return "\n".join(lines)
