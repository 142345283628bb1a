"""Numbers To Number as people see it, from views only.

A pick is a quiet move: the channel reads "X has picked", never the number, and no new board. The
pick that completes a move posts the board with both numbers revealed (and, at a round's end, D and
the points). The public view (and the other player's view) holds only whether a seat has picked, so
nothing built here for the channel, the image or the other player's DMs can carry a pending pick.
"""

from __future__ import annotations

from typing import Any

import discord

import cogs.numbers.rules as numbers
from bot.errors import GameError, GameOver, IllegalMove
from bot.i18n import N_, Lang, Msg, Np_
from bot.render.alt import fit_alt, player
from bot.table.components import button
from bot.table.ids import custom_id
from bot.table.present import News, Panel, Presenter, PrivatePresenter, TableInfo, forfeit_line, quiet_when
from cogs.numbers.render import render_board
from cogs.numbers.rules import ALREADY_PICKED

View = numbers.View
D_BINARY_MAX = 16  # list D's members in binary too when it has at most this many
MINE_LABEL = N_("My move")
PICK_LABEL = Np_("label", "Pick")  # the panel's button


def ranges_text(values: tuple[int, ...] | list[int]) -> str:
    """Ascending integers, runs of three or more written as a range: ``1-4, 6, 8-10``."""
    parts: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{values[i]}-{values[j]}")
        else:
            parts.extend(str(v) for v in values[i : j + 1])
        i = j + 1
    return ", ".join(parts)


def number_text(value: int, m: int) -> str:
    return f"**{value}** (`{numbers.binary(value, m)}`)"


def d_text(symbols: str, d: tuple[int, ...] | list[int], m: int, lang: Lang) -> str:
    """D, said for what it is (the numbers that score), in decimal (every member; runs as ranges) and
    in binary (each member while few, else the pattern they all match)."""
    members = "{" + ranges_text(list(d)) + "}"
    if len(d) <= D_BINARY_MAX:
        in_binary = ", ".join(f"`{numbers.binary(v, m)}`" for v in d)
        return lang.n(
            "the numbers that score, D = {members} ({count} number; in binary {numbers})",
            "the numbers that score, D = {members} ({count} numbers; in binary {numbers})",
            len(d),
            members=members,
            numbers=in_binary,
        )
    return lang.n(
        "the numbers that score, D = {members} ({count} number: every {m}-digit binary number matching "
        "`{symbols}`, each _ as 0 or 1)",
        "the numbers that score, D = {members} ({count} numbers: every {m}-digit binary number matching "
        "`{symbols}`, each _ as 0 or 1)",
        len(d),
        members=members,
        m=m,
        symbols=symbols,
    )


def refusal(view: View, seat: int, table: TableInfo) -> GameError | None:
    """Why ``seat`` cannot pick now (before a form is opened that could not be used), or None."""
    if view.outcome is not None or not table.live:
        return GameOver("Game #{game_id} is over. Start a new one with /numbers new.", game_id=table.game_id)
    if view.my_pick is not None:
        return IllegalMove(ALREADY_PICKED, pick=view.my_pick, player=table.who(1 - seat))
    return None


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names, lang=table.lang)


def start_note(view: View, table: TableInfo) -> str:
    lang = table.lang
    return lang.n(
        "{count} round {of_moves}. Each move, pick a number from 1 to {top} you have not played, in "
        "your DMs (or **{label}**); both picks are revealed together.",
        "{count} rounds {of_moves}. Each move, pick a number from 1 to {top} you have not played, in "
        "your DMs (or **{label}**); both picks are revealed together.",
        view.n_rounds,
        # i18n: completes "{count} rounds ...": how many moves each round has
        of_moves=Msg.n("of {count} move", "of {count} moves", view.m),
        top=numbers.largest(view.m),
        label=lang.t(MINE_LABEL),
    )


def headline(news: News[View], table: TableInfo) -> str:
    view, lang = news.after, table.lang
    m = view.m
    lines: list[str] = []
    revealed = any(isinstance(e, numbers.Reveal) for e in view.events)
    for event in view.events:
        match event:
            case numbers.Picked(seat=seat) if not revealed:
                # Only who, never what: this line is posted while the pick is still secret.
                lines.append(lang.t("{player} has picked.", player=table.who(seat)))
            case numbers.Reveal(numbers=(a, b)):
                lines.append(
                    lang.t(
                        "Move {move} of round {round}: {first} {first_number} · {second} {second_number} "
                        "→ `{symbol}`. The list: `{list}`",
                        move=event.move + 1,
                        round=event.round + 1,
                        first=table.who(0),
                        first_number=number_text(a, m),
                        second=table.who(1),
                        second_number=number_text(b, m),
                        symbol=event.symbol,
                        list=event.list_,
                    )
                )
            case numbers.RoundEnd():
                lines.extend(_round_end_lines(event, view, table))
            case numbers.Left():
                lines.append(forfeit_line(news, table))
    return "\n".join(lines) or lang.t("{player} moved.", player=table.who(news.seat))


def _round_end_lines(event: numbers.RoundEnd, view: View, table: TableInfo) -> list[str]:
    lang = table.lang
    m, number = view.m, event.round + 1
    lines = [
        lang.t(
            "**Round {round} of {rounds} is over.** The list `{list}`: {d}.",
            round=number,
            rounds=view.n_rounds,
            list=event.list_,
            d=d_text(event.list_, event.d, m, lang),
        )
    ]
    scores = []
    for seat in (0, 1):
        got = event.scoring[seat]
        if got:
            scores.append(
                lang.n(
                    "{player} {count} point ({numbers})",
                    "{player} {count} points ({numbers})",
                    len(got),
                    player=table.who(seat),
                    numbers=", ".join(map(str, got)),
                )
            )
        else:
            scores.append(
                lang.n("{player} {count} point", "{player} {count} points", 0, player=table.who(seat))
            )
    totals = event.totals
    lines.append(
        lang.t(
            "This round: {first}; {second}. Totals: {player1} {total1}, {player2} {total2}.",
            first=scores[0],
            second=scores[1],
            player1=table.who(0),
            total1=totals[0],
            player2=table.who(1),
            total2=totals[1],
        )
    )
    if number < view.n_rounds and view.outcome is None:
        lines.append(lang.t("Round {round} begins with an empty list.", round=number + 1))
    return lines


# ---- what one player sees ------------------------------------------------------------------------


def panel(view: View, seat: int, table: TableInfo) -> Panel:
    """The player's pick and what they need to make it: the round, the list with the numbers that
    wrote it, the totals, their unused numbers. Nothing that changes on the other player's pick (the
    board shows who has picked)."""
    lang = table.lang
    other = 1 - seat
    them = table.who(other)
    totals = {"mine": view.totals[seat], "player": them, "theirs": view.totals[other]}
    if view.outcome is not None:
        return Panel(lang.t("The game is over. Totals: you {mine}, {player} {theirs}.", **totals))
    if seat in view.forfeited:
        return Panel(lang.t("You left this game."))
    m, move = view.m, len(view.moves) + 1
    lines = [
        lang.t(
            "Round {round} of {rounds} · move {move} of {m} · totals: you {mine}, {player} {theirs}",
            round=view.round + 1,
            rounds=view.n_rounds,
            move=move,
            m=m,
            **totals,
        )
    ]
    last = view.last_round
    if not view.moves and last is not None:
        lines.append(
            lang.n(
                "Round {round} gave you {count} point, {player} {theirs}.",
                "Round {round} gave you {count} points, {player} {theirs}.",
                last.points[seat],
                round=view.round,
                player=them,
                theirs=last.points[other],
            )
        )
    if view.moves:
        pairs = ", ".join(lang.t("{mine} v {theirs}", mine=mv[seat], theirs=mv[other]) for mv in view.moves)
        lines.append(lang.t("The list: `{list}` (yours v theirs: {pairs})", list=view.symbols, pairs=pairs))
    items: list[discord.ui.Item[Any]] = []
    if view.my_pick is not None:
        lines.append(
            lang.t(
                "Your pick: {number}, final. Waiting for {player}.",
                number=number_text(view.my_pick, m),
                player=them,
            )
        )
    else:
        label = lang.pt("label", PICK_LABEL)
        lines.append(
            lang.t(
                "**Pick a number from 1 to {top}** you have not played: press **{label}** or reply here.",
                top=numbers.largest(m),
                label=label,
            )
        )
        if view.available is not None:
            lines.append(lang.t("Still yours: {numbers}", numbers=ranges_text(view.available)))
        items.append(button(label, custom_id(table.game_id, "pick"), style=discord.ButtonStyle.primary))
    return Panel("\n".join(lines), items)


def confirm(news: News[View], table: TableInfo) -> str:
    lang = table.lang
    if news.forfeit is not None:
        return lang.t("You left game #{game_id}.", game_id=table.game_id)
    view, seat = news.after, news.seat
    reveal = next((e for e in view.events if isinstance(e, numbers.Reveal)), None)
    if reveal is None:
        assert view.my_pick is not None
        return lang.t(
            "✅ Your pick {number} is in (final, hidden until both picks are in).",
            number=number_text(view.my_pick, view.m),
        )
    return lang.t(
        "✅ You picked {mine}, {player} picked {theirs} → `{symbol}`.",
        mine=number_text(reveal.numbers[seat], view.m),
        player=table.who(1 - seat),
        theirs=number_text(reveal.numbers[1 - seat], view.m),
        symbol=reveal.symbol,
    )


def awaits_typed(view: View, seat: int) -> bool:
    return seat in view.to_act


def typed_action(view: View, seat: int, text: str) -> Any:
    return numbers.Pick(numbers.parse_number(text, view.m))


def not_waiting_reason(view: View, seat: int, table: TableInfo) -> str | None:
    error = refusal(view, seat, table)
    return None if error is None else error.in_language(table.lang)


quiet = quiet_when(numbers.Picked)


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words, as the image shows it: the round drawn (the finished one with D, or the
    current one), the moves revealed, the totals. Not who has picked: like the image, the alt text
    stays as posted while a pick edits the board's text (which says it)."""
    lang, names = table.lang, table.names
    m = view.m
    record = view.last_round if not view.moves and view.last_round is not None else None
    moves = record.moves if record is not None else view.moves
    symbols = record.symbols if record is not None else view.symbols
    round_no = min(view.round - 1 if record is not None else view.round, view.n_rounds - 1) + 1
    a, b = player(names, 0, lang), player(names, 1, lang)
    where = {"first": a, "second": b, "top": numbers.largest(m), "m": m, "round": round_no}
    if record is not None:
        head = lang.t(
            "Numbers To Number board: {first} against {second}, numbers 1 to {top} (m = {m}). "
            "Round {round} of {rounds}, finished.",
            rounds=view.n_rounds,
            **where,
        )
    else:
        head = lang.t(
            "Numbers To Number board: {first} against {second}, numbers 1 to {top} (m = {m}). "
            "Round {round} of {rounds}, move {move} of {m}.",
            rounds=view.n_rounds,
            move=len(moves) + 1,
            **where,
        )
    parts = [
        head,
        lang.t(
            "Totals: {first} {first_total}, {second} {second_total}.",
            first=a,
            first_total=view.totals[0],
            second=b,
            second_total=view.totals[1],
        ),
    ]
    if view.outcome is not None:
        reason = view.outcome.reason_in(lang)
        if view.outcome.draw:
            parts.append(lang.t("Draw: {reason}.", reason=reason))
        else:
            won = lang.words([player(names, s, lang) for s in view.outcome.winners])
            parts.append(lang.t("{player} wins: {reason}.", player=won, reason=reason))
    if record is not None:
        parts.append(
            lang.t(
                "Points this round: {first} {first_points}, {second} {second_points}. The numbers that "
                "score, D = {{{d}}}.",
                first=a,
                first_points=record.points[0],
                second=b,
                second_points=record.points[1],
                d=ranges_text(list(record.d)),
            )
        )
    if symbols:
        parts.append(lang.t("The list so far: {list}.", list=" ".join(symbols)))
    else:
        parts.append(lang.t("The list so far: empty."))
    if moves:
        pairs = "; ".join(
            lang.t(
                "{move}: {first} and {second}, {symbol}",
                move=i + 1,
                first=x,
                second=y,
                symbol=numbers.symbol(x, y),
            )
            for i, (x, y) in enumerate(moves)
        )
        first = names[0] if names else "A"
        parts.append(lang.t("Moves ({player} first): {moves}.", player=first, moves=pairs))
    return fit_alt(parts)


def awaited(view: View, seat: int) -> str:
    """What /game mine says the game waits for: a secret pick."""
    return N_("your pick")


PRESENTER: Presenter[numbers.View] = Presenter(
    render=render,
    headline=headline,
    quiet=quiet,
    start_note=start_note,
    alt_text=alt_text,
    mine_label=MINE_LABEL,
    awaited=awaited,
)

PRIVATE: PrivatePresenter[numbers.View] | None = PrivatePresenter(
    panel=panel,
    confirm=confirm,
    awaits_typed=awaits_typed,
    typed_action=typed_action,
    not_waiting_reason=not_waiting_reason,
)
