"""/game analyse: a finished game judged move by move (`bot.analysis`), answered with a chart, a
short text and the analysis as a JSON file.

- Who: anyone in the server where the game was played, for a finished game. A game still being
  played (or a lobby, or a cancelled game), an unknown number or another server's game (told apart
  from an unknown one by nothing) is refused privately, before anything else is done.
- Answered at once when the analysis is quick (stored, or a short game); else deferred first, noted
  as an answer owed (`bot.table.pending`: a restart before the answer tells the asker to ask again).
- Where it runs: the game's analyser (its spec's ``analyse``) in the computer players' worker
  processes (`bot.table.minds.Minds.think`), given `SECONDS` of time; a little more and the answer
  says it took too long. At most `QUEUE_MAX` analyses run or wait at once in a process.
- Kept: the first analysis made is stored (`bot.storage.analyses`) before anything is answered, and
  every later request reads it.
- What it shows: each player's worst moves (inaccuracies, mistakes and blunders, worst first) with
  what was better, and how each verdict was reached (proved, estimated, with hindsight); nothing
  of a secret that the finished game did not reveal (the analysers leave such parts out of the
  actions). Private unless ``public:true``; in the asker's language.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

import discord

from bot import clock
from bot.analysis import GameRecord, MoveReview, Review, judged, worst_moves
from bot.errors import GameError, NoGameHere
from bot.i18n import N_, Lang, Np_
from bot.i18n.audience import reader
from bot.jsontypes import JSONMap, JSONObject
from bot.memory.replay import Frame, NamedTable, move_lines
from bot.players.seats import is_computer
from bot.present import News
from bot.render.analysis import Chart, Point, alt_text, render
from bot.rules import play
from bot.storage import GameRow, MoveRow, Storage
from bot.table.catalog import Catalog, SomeKind
from bot.table.hints import secret_words
from bot.table.minds import Minds
from bot.table.pending import PendingAnswers
from bot.table.replays import GAME_ID_MAX
from bot.table.replies import NO_PINGS, fit, reply_private, within_time

SECONDS = 8.0  # an analysis's time budget (bench/analysis.py: the longest games fit)
GRACE = 20.0  # more than that, and the answer says it took too long
QUEUE_MAX = 2  # analyses running or waiting at once in this process

VERDICT_WORDS = {
    "blunder": Np_("verdict", "a blunder"),
    "mistake": Np_("verdict", "a mistake"),
    "inaccuracy": Np_("verdict", "an inaccuracy"),
}
BASIS_WORDS = {
    "exact": Np_("verdict basis", "proved"),
    "search": Np_("verdict basis", "estimated"),
    "estimate": Np_("verdict basis", "estimated"),
    "hindsight": Np_("verdict basis", "with hindsight"),
}
HIDDEN = N_("a choice never revealed")
JSON_DESCRIPTION = N_("The analysis as data: every move with its verdict, values and better moves.")


def analysable(row: GameRow | None, game_id: int, *, guild_id: int | None) -> GameRow:
    """The game ``game_id`` (its row, None when there is none) if it may be analysed from server
    ``guild_id``; else the refusal that says why."""
    if guild_id is None:
        raise GameError("Analyses belong to a server: use /game analyse in a channel of the game's server.")
    if row is None or row.guild_id != guild_id:
        raise NoGameHere(
            "There is no game #{game_id} in this server. A game's number is on its card and its "
            'boards ("game #12").',
            game_id=game_id,
        )
    if row.status == "cancelled":
        raise NoGameHere("Game #{game_id} was cancelled, so there is nothing to analyse.", game_id=game_id)
    if row.status != "finished":
        raise GameError(
            "Game #{game_id} is not over yet: a game is analysed once it has ended. Ask again then.",
            game_id=game_id,
        )
    return row


def record_of(row: GameRow, moves: Sequence[MoveRow]) -> GameRecord:
    """What the analyser gets: the game as created, and its log without the moves taken back."""
    return GameRecord(
        kind=row.kind,
        n_players=len(row.seats),
        options=dict(row.options),
        seed=row.seed,
        moves=tuple((m.seat, m.action) for m in moves if m.undone is None),
    )


def analysis_json(row: GameRow, review: Review) -> JSONObject:
    """The attachment: the game, its kind, and each move judged; ``player`` is the mover's user id,
    or null for a computer."""

    def move(m: MoveReview) -> JSONObject:
        user = row.seats[m.seat] if m.seat < len(row.seats) else None
        return {
            "index": m.index,
            "player": None if user is None or is_computer(user) else user,
            "action": dict(m.action),
            "verdict": m.verdict,
            "exact": m.exact,
            "value_before": m.value_before,
            "value_after": m.value_after,
            "better": [dict(b) for b in m.better],
            "basis": m.basis or None,
        }

    return {
        "game": row.id,
        "kind": review.kind,
        "scale": review.scale,
        "complete": review.complete,
        "moves": [move(m) for m in review.moves],
    }


# ---- the answer -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    text: str
    png: bytes
    alt: str
    data: bytes  # the JSON file


class Words:
    """How the answer names moves: as the channel was told them (the game's own headlines, for a
    game without secrets), else as the logged action."""

    def __init__(self, row: GameRow, kind: SomeKind, review: Review, lang: Lang) -> None:
        self.kind, self.lang = kind, lang
        rules = kind.rules
        state = rules.new_game(len(row.seats), row.options, row.seed)
        self.states = [state]
        for seat, action in ((m.seat, m.action) for m in review.moves):
            state = play(rules, state, seat, action) if not kind.secret else state
            self.states.append(state)
        outcome = rules.outcome(self.states[-1]) if not kind.secret else None
        self.table = NamedTable(
            game_id=row.id, kind=row.kind, title=kind.title, version=row.version, current=False,
            status="finished", seats=row.seats, names=row.names, options=dict(row.options),
            timeout_s=row.timeout_s, waiting=(), outcome=outcome, lang=lang,
        )  # fmt: skip

    def action(self, index: int, seat: int, action: JSONMap) -> str:
        """Move ``index`` (1-based), or another action from the position before it."""
        if action.get("hidden") is True:
            return self.lang.t(HIDDEN)
        if self.kind.secret:  # a secret choice, in words from the action alone
            return secret_words(dict(action), self.lang)
        rules = self.kind.rules
        before = self.states[index - 1]
        try:
            after = play(rules, before, seat, action)
        except GameError:
            return f"`{json.dumps(dict(action), separators=(',', ':'))}`"
        news = News(seat, rules.view_for(before, None), rules.view_for(after, None))
        frame = Frame(index, news.after, news)
        return " ".join(move_lines(frame, self.table, self.kind.present.headline))


def _player_lines(
    review: Review, words: Words, seats: int
) -> tuple[list[str], dict[int, list[tuple[int, str]]]]:
    lang = words.lang
    lines: list[str] = []
    ringed: dict[int, list[tuple[int, str]]] = {}
    for seat in range(seats):
        who = words.table.who(seat)
        worst = worst_moves(review, seat)
        ringed[seat] = [(m.index, lang.pt("verdict", VERDICT_WORDS[m.verdict])) for m in worst]
        if not worst:
            if judged(review, seat):
                lines.append(lang.t("**{player}**: no inaccuracy, mistake or blunder found.", player=who))
            else:
                lines.append(lang.t("**{player}**: nothing could be judged.", player=who))
            continue
        for m in worst:
            said = lang.t(
                "**{player}**, move {number} ({basis}): {verdict}. {move}",
                player=who,
                number=m.index,
                basis=lang.pt("verdict basis", BASIS_WORDS.get(m.basis, BASIS_WORDS["estimate"])),
                verdict=lang.pt("verdict", VERDICT_WORDS[m.verdict]),
                move=words.action(m.index, m.seat, m.action),
            )
            if m.better:
                shown = [words.action(m.index, m.seat, b) for b in m.better[:3]]
                said += "\n    " + lang.t("Better: {moves}", moves=" · ".join(shown))
            lines.append(said)
    return lines, ringed


def build(row: GameRow, kind: SomeKind, review: Review, lang: Lang) -> Answer:
    """The answer's text, chart and file (in a thread: it replays the game and draws)."""
    words = Words(row, kind, review, lang)
    head = lang.t("🔎 **{title}** game #{game_id}: analysis.", title=kind.title, game_id=row.id)
    bases = {m.basis for m in review.moves if m.verdict != "unknown"}
    lines = [head]
    if bases == {"exact"}:
        lines.append(lang.t("Every verdict here is proved by an exact search."))
    elif "search" in bases or "estimate" in bases:
        lines.append(lang.t("Verdicts marked estimated come from a search that could not see the end."))
    player_lines, ringed = _player_lines(review, words, len(row.seats))
    lines += player_lines
    lines += [lang.t(note) for note in review.notes]
    if not review.complete:
        lines.append(lang.t("(The analysis ran out of time: some moves are estimated or not judged.)"))
    names = tuple(words.table.names)
    chart = Chart(
        title=kind.title,
        game_id=row.id,
        scale=review.scale,
        names=names,
        points=tuple(Point(m.index, m.seat, m.value_after) for m in review.moves),
        marked=tuple(i for moves in ringed.values() for i, _ in moves),
    )
    data = json.dumps(analysis_json(row, review), ensure_ascii=False, indent=1).encode("utf-8")
    return Answer(fit("\n".join(lines)), render(chart, lang=lang), alt_text(chart, ringed, lang), data)


class Analyst:
    """Answers /game analyse (refusals raise `GameError`: the tree answers privately)."""

    def __init__(
        self,
        storage: Storage,
        catalog: Catalog,
        minds: Minds,
        pending: PendingAnswers,
        *,
        seconds: float = SECONDS,
    ) -> None:
        self.storage, self.catalog, self.minds, self.seconds = storage, catalog, minds, seconds
        self.pending = pending  # (a deferred answer is noted as owed: a restart tells the asker)
        self.busy = 0

    @contextmanager
    def slot(self) -> Iterator[None]:
        if self.busy >= QUEUE_MAX:
            raise GameError("I am analysing other games right now. Ask again in a minute.")
        self.busy += 1
        try:
            yield
        finally:
            self.busy -= 1

    async def analyse(self, interaction: discord.Interaction, game_id: int, public: bool) -> None:
        row = None
        if 1 <= game_id <= GAME_ID_MAX:
            try:
                row = await self.storage.get_game(game_id=game_id)
            except NoGameHere:
                row = None
        row = analysable(row, game_id, guild_id=interaction.guild_id)
        kind = self.catalog.get(row.kind)
        lang = reader(interaction)  # an answer to them: their language
        with self.slot():
            # Answered at once when it is quick (a stored analysis, a short game): a crash before the
            # answer then leaves nothing half done. A longer one is deferred ("thinking") first.
            thinking = partial(
                self.pending.defer, interaction, asked=f"/game analyse {row.id}", ephemeral=not public
            )
            answer, _ = await within_time(
                interaction, self.answer(row, kind, lang), ephemeral=not public, defer=thinking
            )
        if answer is None:
            await reply_private(
                interaction,
                lang.t("The analysis of game #{game_id} took too long. Ask again later.", game_id=row.id),
            )
            return
        files = [
            discord.File(io.BytesIO(answer.png), filename=f"analysis-{row.id}.png", description=answer.alt),
            discord.File(
                io.BytesIO(answer.data),
                filename=f"analysis-{row.id}.json",
                description=lang.t(JSON_DESCRIPTION),
            ),
        ]
        if interaction.response.is_done():
            await interaction.followup.send(
                answer.text, files=files, ephemeral=not public, allowed_mentions=NO_PINGS
            )
        else:
            await interaction.response.send_message(
                answer.text, files=files, ephemeral=not public, allowed_mentions=NO_PINGS
            )

    async def answer(self, row: GameRow, kind: SomeKind, lang: Lang) -> Answer | None:
        """The game's analysis (stored first, when it is made now) as the answer says it; None when
        making it took too long."""
        review = await self.review(row, kind)
        return None if review is None else await asyncio.to_thread(build, row, kind, review, lang)

    async def review(self, row: GameRow, kind: SomeKind) -> Review | None:
        """The game's analysis: the stored one, else made now (in a worker) and stored first. None
        when making it took too long."""
        stored = await self.storage.analysis(game_id=row.id)
        if stored is None:
            moves = await self.storage.moves(game_id=row.id)
            work = self.minds.think(kind.analyse, record_of(row, moves), self.seconds)
            try:
                made = await asyncio.wait_for(work, self.seconds + GRACE)
            except TimeoutError:
                return None
            stored = await self.storage.keep_analysis(game_id=row.id, review=made.to_dict(), now=clock.now())
        return Review.from_dict(stored)
