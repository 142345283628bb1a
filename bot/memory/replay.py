"""A game rebuilt from its move log as the channel saw it: frames, an animation, a transcript.

Pure: no Discord, no storage. A replay starts from what the game was created with (its kind,
options, seed and seat count) and applies its logged moves one by one with the rules
(`bot.rules.play`). Each position becomes a *frame* holding only the public view
(``view_for(state, None)``) and the move as the channel saw it (`News` of two public views), so
nothing drawn or written from a replay can show a secret before the rules revealed it: a hidden pick
is, in the frame after it, "Alice has chosen" and nothing more.

The images and the words are the game's own presentation (its presenter's ``render`` and
``headline``, the functions its boards and announcements use), given a table that names players in
words ("Alice (A)", as the boards mark them) instead of mentions.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from PIL import Image

from bot.i18n import ENGLISH, Lang
from bot.memory.animation import Animation, encode
from bot.present import PLAYED_WITH_HINTS, News, TableInfo, outcome_text
from bot.render.alt import fit_alt, player
from bot.render.colours import INK, MUTED
from bot.render.common import Canvas, text_width
from bot.rules import play
from bot.rules.base import ActionJSON, GameRules, M, S, forfeit_of

FRAME_MS = 1000  # each position is shown this long
LAST_MS = 3000  # and the last one this long, before the animation starts again
CAPTION_H = 28  # the strip above each board: which move, and what it did
CAPTION_SIZE = 14
CAPTION_PAD = 10

V = TypeVar("V")  # the game's view
V_in = TypeVar("V_in", contravariant=True)  # (a presenter of views takes them: contravariant)


class Told(Protocol[V_in]):
    """What a replay uses of a game's presentation (a `bot.table.present.Presenter` is one): its
    board image and what a move did, both from public views."""

    @property
    def render(self) -> Callable[[V_in, TableInfo], bytes]: ...

    @property
    def headline(self) -> Callable[[News[V_in], TableInfo], str]: ...


@dataclass(frozen=True)
class GameLog:
    """What a replay is rebuilt from: a started game as it was created, and its move log."""

    game_id: int
    kind: str
    title: str
    options: Mapping[str, int]
    seed: int
    seats: tuple[int, ...]  # user ids in turn order
    names: tuple[str, ...]  # their display names
    moves: tuple[tuple[int, ActionJSON], ...]  # (seat, action as logged), in order
    timeout_s: int = 0
    hints: bool = False  # played with hints (`/game hint`): not rated


@dataclass(frozen=True)
class NamedTable(TableInfo):
    """A game's public facts whose texts name players in words, as the boards mark them ("Alice
    (A)"), not with mentions: for files read outside Discord."""

    def who(self, seat: int) -> str:
        return player(self.names, seat)


@dataclass(frozen=True)
class Frame(Generic[V]):
    """One position of a replay: the first (``number`` 0), or the one after move ``number``."""

    number: int
    view: V  # view_for(state, None): the public view
    news: News[V] | None  # the move that made it, as the channel saw it (None for the first)

    @property
    def seat(self) -> int | None:
        """Who made the move (None for the first position)."""
        return None if self.news is None else self.news.seat


@dataclass(frozen=True)
class Replay(Generic[V]):
    """A game rebuilt: its public facts at the last frame, and every frame."""

    table: NamedTable
    frames: tuple[Frame[V], ...]

    @property
    def moves(self) -> int:
        return len(self.frames) - 1

    @property
    def finished(self) -> bool:
        return self.table.outcome is not None


def rebuild(log: GameLog, rules: GameRules[S, V, M], lang: Lang = ENGLISH) -> Replay[V]:
    """The game of ``log`` replayed with ``rules``: one frame for the first position and one after
    each move, told in ``lang``. ``ValueError`` (or the rules' own error) when the log does not replay."""
    state = rules.new_game(len(log.seats), log.options, log.seed)
    before = rules.view_for(state, None)
    frames: list[Frame[V]] = [Frame(0, before, None)]
    for number, (seat, action) in enumerate(log.moves, start=1):
        state = play(rules, state, seat, action)
        after = rules.view_for(state, None)
        frames.append(Frame(number, after, News(seat, before, after, forfeit_of(action))))
        before = after
    outcome = rules.outcome(state)
    table = NamedTable(
        game_id=log.game_id,
        kind=log.kind,
        title=log.title,
        version=len(log.moves),
        current=True,
        status="active" if outcome is None else "finished",
        seats=log.seats,
        names=log.names,
        options=dict(log.options),
        timeout_s=log.timeout_s,
        waiting=() if outcome is not None else tuple(sorted(rules.to_act(state))),
        outcome=outcome,
        lang=lang,
        hints=log.hints,
    )
    return Replay(table, tuple(frames))


# ---- words --------------------------------------------------------------------------------------


def plain(text: str) -> str:
    """A Discord text as plain text: no bold markers or code quotes."""
    return text.replace("**", "").replace("`", "")


def move_lines(frame: Frame[V], table: TableInfo, headline: Callable[[News[V], TableInfo], str]) -> list[str]:
    """What a move did, as the channel was told it (in plain text, players named in words)."""
    assert frame.news is not None
    lines = [line.strip() for line in plain(headline(frame.news, table)).splitlines() if line.strip()]
    return lines or [table.lang.t("{player} moved.", player=table.who(frame.news.seat))]


def _players(table: TableInfo) -> str:
    return table.lang.words([table.who(s) for s in range(len(table.seats))])


def _options(table: TableInfo) -> str:
    return ", ".join(f"{k} = {v}" for k, v in table.options.items()) or table.lang.t("none")


def result_lines(replay: Replay[V]) -> list[str]:
    """The result (or, for a game still being played, who it waits for)."""
    table = replay.table
    lang = table.lang
    outcome = table.outcome
    if outcome is None:
        if table.waiting:
            return [
                lang.t(
                    "The game is still being played; this is the position after move {number}: "
                    "waiting for {players}.",
                    number=replay.moves,
                    players=lang.words([table.who(s) for s in table.waiting]),
                )
            ]
        return [
            lang.t(
                "The game is still being played; this is the position after move {number}.",
                number=replay.moves,
            )
        ]
    lines = [plain(outcome_text(table, outcome))]
    if outcome.scores is not None:
        scores = ", ".join(f"{table.who(s)} {score}" for s, score in enumerate(outcome.scores))
        lines.append(lang.t("Final scores: {scores}.", scores=scores))
    return lines


def transcript(replay: Replay[V], present: Told[V]) -> str:
    """The game in words, for a text file: the game, the players, the options, each move in order
    with who made it and what the channel was told (reveals when they happened), and the result."""
    table = replay.table
    lang = table.lang
    if replay.finished:
        moves = lang.t("Moves: {count}", count=replay.moves)
    else:
        moves = lang.t("Moves: {count} so far (the game is still being played)", count=replay.moves)
    out = [
        lang.t("{title} · game #{game_id} · replay", title=table.title, game_id=table.game_id),
        lang.t("Players, in turn order: {players}", players=_players(table)),
        lang.t("Options: {options}", options=_options(table)),
        moves,
        *([lang.t(PLAYED_WITH_HINTS)] if table.hints else []),
        "",
    ]
    for frame in replay.frames[1:]:
        lines = move_lines(frame, table, present.headline)
        who = table.who(frame.seat or 0)
        first = lines[0] if lines[0].startswith(who) else f"{who}: {lines[0]}"
        out.append(f"{frame.number}. {first}")
        out.extend(f"    {line}" for line in lines[1:])
    out.append("")
    out.extend(result_lines(replay))
    return "\n".join(out) + "\n"


def summary(replay: Replay[V]) -> str:
    """The animation's alt text: the game, its players, what the frames are, and the result."""
    table = replay.table
    lang = table.lang
    parts = [
        lang.t(
            "Animated replay of {title} game #{game_id}: {players}.",
            title=table.title,
            game_id=table.game_id,
            players=_players(table),
        ),
        lang.n(
            "{count} frame: the first position, then one after each of {moves}; "
            "each frame names its move and who made it above the board.",
            "{count} frames: the first position, then one after each of {moves}; "
            "each frame names its move and who made it above the board.",
            len(replay.frames),
            moves=lang.n("{count} move", "{count} moves", replay.moves),
        ),
        *result_lines(replay),
        lang.t("The moves in words are in the transcript file."),
    ]
    return fit_alt(parts)


# ---- the animation --------------------------------------------------------------------------------


def caption(frame: Frame[V], replay: Replay[V]) -> list[tuple[str, bool]]:
    """The line above a frame's board, as pieces (text, in bold?): which move and who made it ("Move
    12 of 40 · Alice (A)"), or the game and its players above the first position. The pieces repeat
    from frame to frame, so each is drawn once (the renderers' text cache) however long the game."""
    table = replay.table
    lang = table.lang
    if frame.news is None:
        start = " · " + lang.t("the start · {players}", players=_players(table))
        return [(f"{table.title} #{table.game_id}", True), (start, False)]
    who = table.who(frame.news.seat)
    # The number digit by digit: ten sprites drawn once serve every move of every replay.
    digits = [(digit, True) for digit in str(frame.number)]
    return [
        (lang.pt("replay caption", "Move") + " ", True),
        *digits,
        (" " + lang.t("of {total}", total=replay.moves) + " · ", False),
        (who, False),
    ]


def frame_image(board_png: bytes, pieces: list[tuple[str, bool]]) -> Image.Image:
    """A board with its caption above it, as a palette image of the shared palette."""
    board = Image.open(io.BytesIO(board_png))
    board.load()
    canvas = Canvas(board.width, CAPTION_H + board.height)
    canvas.paste(board, (0, CAPTION_H))
    x, right = CAPTION_PAD, board.width - CAPTION_PAD
    for text, bold in pieces:
        face = "bold" if bold else "sans"
        if x + text_width(text, CAPTION_SIZE, face) > right:
            break  # a caption too long for a narrow board keeps its first pieces
        x += canvas.text((x, 6), text, CAPTION_SIZE, INK if bold else MUTED, face)
    return canvas.img


def durations(count: int) -> list[int]:
    """How long each of ``count`` frames is shown, in milliseconds: the last one longer."""
    return [FRAME_MS] * (count - 1) + [LAST_MS]


def frame_images(replay: Replay[V], present: Told[V]) -> Iterator[Image.Image]:
    """Each frame's board (the game's own renderer, from the public view) under its caption."""
    for frame in replay.frames:
        yield frame_image(present.render(frame.view, replay.table), caption(frame, replay))


def animate(replay: Replay[V], present: Told[V]) -> Animation:
    """The replay as an animated GIF: one frame per position, the last held longer."""
    return encode(lambda: frame_images(replay, present), durations(len(replay.frames)))
