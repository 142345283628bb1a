"""/game replay: a game rebuilt from its move log, answered with an animated image and a transcript.

Who sees what:
- anyone in a server may replay a finished game of that server: the answer is posted in the
  channel where they asked (one message, because they asked for it);
- a game still being played replays only to its players, up to its current public position, and
  only to the one who asked (a private answer: the table's channel stays quiet);
- an unknown game number, a game of another server (told apart from an unknown one by nothing), a
  lobby, a cancelled game, or a game in progress asked for by someone not playing it: a private
  sentence saying so, and nothing else.

The checks read the game's row (and nothing else) before the interaction is answered; then the
answer is deferred (a long game takes seconds to draw) and the replay is built in a thread of its
own (`bot.memory.replay`: public views only), one replay at a time, so a long one never holds up
the threads that draw the boards of the games being played.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, fields

import discord

from bot.errors import GameError, NoGameHere, NotAPlayer
from bot.i18n import ENGLISH, N_, Lang
from bot.i18n.audience import reader
from bot.memory.animation import LIMIT, Animation
from bot.memory.replay import GameLog, Replay, animate, rebuild, summary, transcript
from bot.storage import GameRow, MoveRow, Storage
from bot.table.catalog import Catalog, SomeKind
from bot.table.pending import PendingAnswers
from bot.table.present import TableInfo, outcome_text
from bot.table.replies import NO_PINGS, fit, who

GAME_ID_MAX = 2**63 - 1  # a game id is a SQLite integer
TRANSCRIPT_DESCRIPTION = N_("The game in words: every move in order, with who made it, and the result.")

QUEUE_MAX = 4  # replays drawn or waiting at once; more are refused (a long one takes seconds)


def replayable(row: GameRow | None, game_id: int, *, guild_id: int | None, user_id: int) -> GameRow:
    """The game ``game_id`` (its stored row, ``None`` when there is none) if ``user_id``, asking in
    server ``guild_id``, may replay it; else the refusal that says why."""
    if guild_id is None:
        raise GameError(
            "Replays belong to a server: use /game replay in a channel of the server where the game "
            "was played."
        )
    if row is None or row.guild_id != guild_id:
        raise NoGameHere(
            "There is no game #{game_id} in this server. A game's number is on its card and its "
            'boards ("game #12").',
            game_id=game_id,
        )
    if row.status == "lobby":
        raise NoGameHere(
            "Game #{game_id} has not started yet, so there is nothing to replay. Its players can "
            "replay it once it starts, and anyone here once it is over.",
            game_id=game_id,
        )
    if row.status == "cancelled":
        raise NoGameHere("Game #{game_id} was cancelled, so it has no replay.", game_id=game_id)
    if row.status != "finished" and row.seat_of(user_id) is None:
        raise NotAPlayer(
            "Game #{game_id} is still being played: until it ends, only its players can replay it. "
            "Ask again once it is over.",
            game_id=game_id,
        )
    return row


def game_log(row: GameRow, moves: list[MoveRow], title: str) -> GameLog:
    return GameLog(
        game_id=row.id,
        kind=row.kind,
        title=title,
        options=dict(row.options),
        seed=row.seed,
        seats=row.seats,
        names=row.names,
        moves=tuple((m.seat, m.action) for m in moves if m.undone is None),  # takebacks skipped
        timeout_s=row.timeout_s,
        hints=row.hints,
    )


@dataclass(frozen=True)
class Rendered:
    """A replay drawn and written: what the answer attaches."""

    replay: Replay
    animation: Animation
    transcript: str
    summary: str


def render(log: GameLog, kind: SomeKind, lang: Lang = ENGLISH) -> Rendered:
    """Rebuild and draw a game in ``lang`` (in a worker thread: it takes seconds for a long game)."""
    replay = rebuild(log, kind.rules, lang)
    return Rendered(replay, animate(replay, kind.present), transcript(replay, kind.present), summary(replay))


def answer_text(rendered: Rendered) -> str:
    """The answer's text: the game, its players (named, never pinged), and the result."""
    replay, table = rendered.replay, rendered.replay.table
    lang = table.lang
    lines = [
        lang.n(
            "🎞️ Replay of **{title}** game #{game_id}: {players}, {count} move.",
            "🎞️ Replay of **{title}** game #{game_id}: {players}, {count} moves.",
            replay.moves,
            title=table.title,
            game_id=table.game_id,
            players=lang.words([who(u, lang) for u in table.seats]),
        )
    ]
    if table.outcome is None:
        lines.append(
            lang.t("The game is still being played: this is its position now, as its channel sees it.")
        )
    else:
        lines.append(outcome_text(_mentioning(table), table.outcome))
    if rendered.animation.scale != 1:
        lines.append(
            lang.t(
                "(So many moves are drawn at {scale} of the boards' size, to fit Discord's upload limit.)",
                scale=rendered.animation.scale,
            )
        )
    if rendered.animation.size > LIMIT:
        lines.append(lang.t("This game is too long to send as an animation: here is its transcript."))
    return fit("\n".join(lines))


def _mentioning(table: TableInfo) -> TableInfo:
    """The same facts, naming players with mentions (as every message of the bot does)."""
    return TableInfo(**{f.name: getattr(table, f.name) for f in fields(TableInfo)})


def files(rendered: Rendered) -> list[discord.File]:
    table = rendered.replay.table
    stem = f"{table.kind}-{table.game_id}"
    out = []
    if rendered.animation.size <= LIMIT:
        out.append(
            discord.File(
                io.BytesIO(rendered.animation.data),
                filename=f"{stem}-replay.gif",
                description=rendered.summary,
            )
        )
    out.append(
        discord.File(
            io.BytesIO(rendered.transcript.encode("utf-8")),
            filename=f"{stem}-transcript.txt",
            description=table.lang.t(TRANSCRIPT_DESCRIPTION),
        )
    )
    return out


class Drawing:
    """Where replays are drawn: one at a time, in a thread of their own (beside, never among, the
    worker threads that draw the boards of the games being played), at most ``limit`` drawn or
    waiting at once."""

    def __init__(self, limit: int = QUEUE_MAX) -> None:
        self.limit = limit
        self.busy = 0
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay")

    @contextmanager
    def slot(self) -> Iterator[None]:
        """A place in the queue, or a refusal (before anything is answered) when it is full."""
        if self.busy >= self.limit:
            raise GameError("I am drawing other replays right now. Ask again in a minute.")
        self.busy += 1
        try:
            yield
        finally:
            self.busy -= 1

    async def draw(self, log: GameLog, kind: SomeKind, lang: Lang = ENGLISH) -> Rendered:
        return await asyncio.get_running_loop().run_in_executor(self._worker, render, log, kind, lang)


DRAWING = Drawing()


async def send_replay(
    interaction: discord.Interaction,
    storage: Storage,
    catalog: Catalog,
    game_id: int,
    pending: PendingAnswers,
) -> None:
    """Answer ``/game replay game_id`` (refusals raise `GameError`: the tree answers privately),
    deferred first and noted as owed (``pending``: a restart tells the asker to ask again)."""
    row = None
    if 1 <= game_id <= GAME_ID_MAX:
        try:
            row = await storage.get_game(game_id=game_id)
        except NoGameHere:
            row = None
    row = replayable(row, game_id, guild_id=interaction.guild_id, user_id=interaction.user.id)
    kind = catalog.get(row.kind)
    private = row.status != "finished"
    with DRAWING.slot():
        await pending.defer(interaction, asked=f"/game replay {row.id}", ephemeral=private)
        log = game_log(row, await storage.moves(game_id=row.id), kind.title)
        rendered = await DRAWING.draw(log, kind, reader(interaction))  # an answer to them: their language
    await interaction.followup.send(
        answer_text(rendered), files=files(rendered), ephemeral=private, allowed_mentions=NO_PINGS
    )
