"""Lines By The Dots as people see it, from the public view (the game has no secrets).

Every line is answered with what it scored. The board image is posted once a turn is over (and at
the end); between the two lines of a turn the post is text only, with the menu for the horizontal
line (unless that line is a fallback, whose start is chosen looking at the picture). The post's
menus offer the legal endpoints of the line owed; when the line must name its start (the first
line of the game, a fallback line), they offer the legal start dots, grouped by whole columns into
at most four menus of at most 25 (a 10 x 10 grid's first line: four menus of 25 dots, A1-C5 ...
H6-J10).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import discord

import cogs.dots.rules as dots
from bot.i18n import N_, Lang, Msg
from bot.render.alt import fit_alt, player
from bot.render.colours import seat_letter
from bot.table.components import select
from bot.table.ids import custom_id
from bot.table.present import News, Presenter, PrivatePresenter, TableInfo, forfeit_line, points, whose_move
from cogs.dots.render import render_board
from cogs.dots.rules import directed

View = dots.View
SELECT_MAX = 25  # Discord's limit on the options of one select menu
MENUS_MAX = 4  # menus of start dots on a board: Discord allows five rows, one is kept for buttons


def arrow(a: str, b: str) -> str:
    return f"{a}→{b}"


class StartGroup(NamedTuple):
    """One menu of start dots: its key (in its custom_id: "A", "A-B", "A1-C5"), what it holds in
    words, and its dots."""

    key: str
    label: Msg | str
    dots: list[dots.Dot]


def start_groups(starts: tuple[dots.Dot, ...]) -> list[StartGroup]:
    """Starts (sorted by column) packed into at most four menus of at most 25 options each (the
    board keeps a row for its buttons, like the first board's Rules), each with what it holds.

    Whole columns while they fit ("columns A-B"; a column holds at most 10 dots); when the starts
    need more menus so (a 9 x 9 or 10 x 10 grid's first line), runs of 25 dots ("A1-C5").
    """
    columns: dict[int, list[dots.Dot]] = {}
    for dot in starts:
        columns.setdefault(dot[0], []).append(dot)
    groups: list[list[dots.Dot]] = []
    for column in columns.values():
        if groups and len(groups[-1]) + len(column) <= SELECT_MAX:
            groups[-1].extend(column)
        else:
            groups.append(list(column))
    if len(groups) <= MENUS_MAX:
        out = []
        for g in groups:
            a, b = dots.COLUMNS[g[0][0]], dots.COLUMNS[g[-1][0]]
            if a == b:
                out.append(StartGroup(a, Msg("column {column}", column=a), g))
            else:
                out.append(StartGroup(f"{a}-{b}", Msg("columns {first}-{last}", first=a, last=b), g))
        return out
    runs = [list(starts[i : i + SELECT_MAX]) for i in range(0, len(starts), SELECT_MAX)]
    spans = [f"{dots.dot_name(r[0])}-{dots.dot_name(r[-1])}" for r in runs]
    return [StartGroup(span, span, r) for span, r in zip(spans, runs, strict=True)]


def mid_turn(view: View) -> bool:
    """The last change was a vertical line and its player now owes the horizontal one."""
    if view.outcome is not None or len(view.events) != 1 or view.owed is None:
        return False
    event = view.events[0]
    return (
        isinstance(event, dots.LineDrawn)
        and event.direction == dots.VERTICAL
        and event.seat == view.turn
        and view.owed.direction == dots.HORIZONTAL
    )


def owed_text(view: View, lang: Lang) -> str:
    """The line owed, as the status under the board says it after "your move:"."""
    o = view.owed
    assert o is not None
    d = o.direction
    if o.first:
        return lang.t(
            directed(
                d,
                N_("a vertical line from any dot (the first line)"),
                N_("a horizontal line from any dot (the first line)"),
            )
        )
    assert view.current is not None
    here = dots.dot_name(view.current)
    if o.fallback:
        return lang.t(
            directed(
                d,
                N_(
                    "no vertical line can start at {dot}, so draw one from a dot already used, any one you "
                    "choose"
                ),
                N_(
                    "no horizontal line can start at {dot}, so draw one from a dot already used, any one you "
                    "choose"
                ),
            ),
            dot=here,
        )
    return lang.t(directed(d, N_("a vertical line from {dot}"), N_("a horizontal line from {dot}")), dot=here)


def ends_menu(view: View, table: TableInfo, start: dots.Dot, *, arg: str) -> discord.ui.Select[Any]:
    assert view.owed is not None
    lang = table.lang
    options = [
        discord.SelectOption(label=dots.dot_name(end), value=dots.dot_name(end)) for end in view.ends[start]
    ]
    placeholder = directed(
        view.owed.direction,
        N_("Draw the vertical line from {dot} to… ({points})"),
        N_("Draw the horizontal line from {dot} to… ({points})"),
    )
    return select(
        custom_id(table.game_id, "to", arg, version=table.version),
        options,
        placeholder=lang.t(
            placeholder, dot=dots.dot_name(start), points=points(view.line_scores[start], lang)
        ),
    )


def start_note(view: View, table: TableInfo) -> str:
    return table.lang.t(
        "A turn is a vertical line, then a horizontal one, each from where the last one ended."
    )


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names, lang=table.lang)


def board_image(view: View) -> bool:
    """Between the two lines of a turn: the score and the menu, no image; but a horizontal line
    that must start elsewhere (a fallback) is chosen from the picture, the vertical line drawn."""
    return not mid_turn(view) or (view.owed is not None and view.owed.needs_from)


def headline(news: News[View], table: TableInfo) -> str:
    lang = table.lang
    out: list[str] = []
    for event in news.after.events:
        match event:
            case dots.Out(seat=seat) if seat == news.seat:
                out.append(forfeit_line(news, table))
            case dots.Out(seat=seat):
                out.append(lang.t("{player} left the game.", player=table.who(seat)))
            case dots.LineDrawn():
                out.append(_line_text(news.before, event, table.who(event.seat), lang))
    # Skipped lines are told with the change that caused them (a line, a forfeit).
    for event in news.after.events:
        if isinstance(event, dots.Skipped):
            skipped = directed(
                event.direction,
                N_(
                    "{player}'s vertical line is skipped: no column holds both an unused dot and a used "
                    "one; play goes on from {dot}."
                ),
                N_(
                    "{player}'s horizontal line is skipped: no row holds both an unused dot and a used "
                    "one; play goes on from {dot}."
                ),
            )
            out.append(lang.t(skipped, player=table.who(event.seat), dot=event.at))
    return " ".join(out)


def _line_text(before: View, event: dots.LineDrawn, who: str, lang: Lang) -> str:
    d, score = event.direction, event.score
    line = arrow(event.from_, event.to)
    if not before.lines:
        first = directed(
            d,
            N_("{player} drew the vertical line {line}: 0 points (the first line of the game)."),
            N_("{player} drew the horizontal line {line}: 0 points (the first line of the game)."),
        )
        return lang.t(first, player=who, line=line)
    col, row = dots.parse_dot(event.from_, before.size)
    said = {"player": who, "line": line, "points": points(score, lang)}
    if event.fallback and before.current is not None:
        said["dot"] = dots.dot_name(before.current)
        if d == dots.VERTICAL:
            return lang.n(
                "{player} drew the vertical line {line}: {points} ({count} used dot in column "
                "{column}), from a used dot as no line could start at {dot}.",
                "{player} drew the vertical line {line}: {points} ({count} used dots in column "
                "{column}), from a used dot as no line could start at {dot}.",
                score,
                column=dots.COLUMNS[col],
                **said,
            )
        return lang.n(
            "{player} drew the horizontal line {line}: {points} ({count} used dot in row {row}), "
            "from a used dot as no line could start at {dot}.",
            "{player} drew the horizontal line {line}: {points} ({count} used dots in row {row}), "
            "from a used dot as no line could start at {dot}.",
            score,
            row=row + 1,
            **said,
        )
    if d == dots.VERTICAL:
        return lang.n(
            "{player} drew the vertical line {line}: {points} ({count} used dot in column {column}).",
            "{player} drew the vertical line {line}: {points} ({count} used dots in column {column}).",
            score,
            column=dots.COLUMNS[col],
            **said,
        )
    return lang.n(
        "{player} drew the horizontal line {line}: {points} ({count} used dot in row {row}).",
        "{player} drew the horizontal line {line}: {points} ({count} used dots in row {row}).",
        score,
        row=row + 1,
        **said,
    )


def status(view: View, table: TableInfo) -> str:
    lang = table.lang
    text = whose_move(table)
    if table.status == "cancelled":
        return text
    if view.outcome is not None or view.turn is None:
        scores = " · ".join(
            lang.t("{player} {score} (left)", player=table.who(s), score=view.scores[s])
            if s in view.forfeited
            else f"{table.who(s)} {view.scores[s]}"
            for s in range(len(table.seats))
        )
        return text + "\n" + lang.t("Final scores: {scores}.", scores=scores)
    return lang.t("{player}, your move: {owed}.", player=table.who(view.turn), owed=owed_text(view, lang))


def board_items(view: View, table: TableInfo) -> list[Any]:
    o = view.owed
    if o is None:
        return []
    if not o.needs_from:
        assert view.current is not None
        return [ends_menu(view, table, view.current, arg="")]
    lang = table.lang
    groups = start_groups(view.starts)
    items: list[Any] = []
    for group in groups:
        if len(groups) == 1:
            placeholder = lang.t(
                directed(
                    o.direction,
                    N_("Where does your vertical line start?"),
                    N_("Where does your horizontal line start?"),
                )
            )
        else:
            placeholder = lang.t(
                directed(
                    o.direction,
                    N_("Where does your vertical line start? ({span})"),
                    N_("Where does your horizontal line start? ({span})"),
                ),
                span=lang.say(group.label),
            )
        options = [_start_option(view, start, lang) for start in group.dots]
        items.append(
            select(
                custom_id(table.game_id, "from", group.key, version=table.version),
                options,
                placeholder=placeholder,
            )
        )
    return items


def _start_option(view: View, start: dots.Dot, lang: Lang) -> discord.SelectOption:
    ends = ", ".join(dots.dot_name(d) for d in view.ends[start])
    return discord.SelectOption(
        label=dots.dot_name(start),
        value=dots.dot_name(start),
        description=lang.t("to {ends} · {points}", ends=ends, points=points(view.line_scores[start], lang))[
            :100
        ],
    )


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words: the scores, the line owed, the current dot and every line by player."""
    lang, names = table.lang, table.names
    parts = [
        lang.t(
            "Lines By The Dots board, {size} by {size} dots (columns A to {last}, rows 1 to {size}).",
            size=view.size,
            last=dots.COLUMNS[view.size - 1],
        )
    ]
    scores = []
    for seat in range(view.n_players):
        who, score = player(names, seat), view.scores[seat]
        if seat in view.forfeited:
            scores.append(lang.t("{player} {score} (left)", player=who, score=score))
        elif seat == view.turn:
            scores.append(lang.t("{player} {score} (to move)", player=who, score=score))
        else:
            scores.append(f"{who} {score}")
    parts.append(lang.t("Scores: {scores}.", scores=", ".join(scores)))
    if view.outcome is not None:
        reason = lang.say(view.outcome.reason)
        won = [player(names, s) for s in view.outcome.winners]
        if not won:
            parts.append(lang.t("Game over: {reason}.", reason=reason))
        elif len(won) == 1:
            parts.append(lang.t("Game over: {player} wins, {reason}.", player=won[0], reason=reason))
        else:
            parts.append(
                lang.t(
                    "Game over: {players} share the win, {reason}.", players=lang.words(won), reason=reason
                )
            )
    elif view.owed is not None and view.turn is not None:
        parts.append(_owes_alt(view, player(names, view.turn), lang))
        if view.current is not None:
            parts.append(lang.t("The current dot is {dot}.", dot=dots.dot_name(view.current)))
    parts.append(lang.n("{count} line drawn.", "{count} lines drawn.", len(view.lines)))
    parts.append(lang.n("{count} dot used.", "{count} dots used.", len(view.marked)))
    for seat in range(view.n_players):
        mine = [f"{dots.dot_name(ln.start)}-{dots.dot_name(ln.end)}" for ln in view.lines if ln.seat == seat]
        if mine:
            parts.append(
                lang.t("{letter}'s lines: {lines}.", letter=seat_letter(seat), lines=", ".join(mine))
            )
    return fit_alt(parts)


def _owes_alt(view: View, who: str, lang: Lang) -> str:
    o = view.owed
    assert o is not None
    d = o.direction
    if o.first:
        text = directed(
            d,
            N_("{player} owes the first line, a vertical line from any dot."),
            N_("{player} owes the first line, a horizontal line from any dot."),
        )
        return lang.t(text, player=who)
    assert view.current is not None
    here = dots.dot_name(view.current)
    if o.fallback:
        text = directed(
            d,
            N_("{player} owes a vertical line from a used dot of their choice (no line can start at {dot})."),
            N_(
                "{player} owes a horizontal line from a used dot of their choice (no line can "
                "start at {dot})."
            ),
        )
        return lang.t(text, player=who, dot=here)
    text = directed(
        d, N_("{player} owes a vertical line from {dot}."), N_("{player} owes a horizontal line from {dot}.")
    )
    return lang.t(text, player=who, dot=here)


PRESENTER: Presenter[dots.View] = Presenter(
    render=render,
    headline=headline,
    status=status,
    board_items=board_items,
    start_note=start_note,
    board_image=board_image,
    alt_text=alt_text,
)

PRIVATE: PrivatePresenter[dots.View] | None = None  # (no secrets)
