"""The Numerical Card Game as people see it, from views only.

A player's fresh pile and pending card are secrets: they appear only in that player's panel (their
own view). The channel learns who has chosen (a line of text) and, once both cards of a pairing are
in, the reveal and a new board drawn from the public view.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd
from typing import Any

import discord

from bot.games import divisors
from bot.games.divisors import Result
from bot.render.alt import fit_alt, player, words
from bot.render.divisors import render_board
from bot.table.components import select
from bot.table.ids import custom_id
from bot.table.present import (
    News,
    Panel,
    TableInfo,
    counted,
    forfeit_line,
    points,
    quiet_when,
)
from bot.table.replies import join_words

View = divisors.View
END_RULE = {divisors.END_DEAD: "dead", divisors.END_NO_PROGRESS: "no progress"}
MINE_LABEL = "My move"


def leave_play(lost: int) -> str:
    """What happens to the fresh cards of a player who leaves play."""
    return "their 1 fresh card leaves play." if lost == 1 else f"their {lost} fresh cards leave play."


def card_label(value: int, count: int) -> str:
    return f"{value} ×{count}" if count > 1 else str(value)


def open_pairing(view: View, seat: int) -> tuple[int, int] | None:
    """The seat's open (unresolved) pairing of the current round, if any."""
    settled = {r.seats for r in view.results}
    for pairing in view.pairings:
        if seat in pairing and pairing not in settled:
            return pairing
    return None


def result_text(result: Result, poss: Callable[[int], str], obj: Callable[[int], str]) -> str:
    """A settled pairing in words: "@A's **3** against @B's **12**: 3 divides 12, +2 to @A; ..."

    ``poss(seat)`` names a seat as an owner ("@A's", "your"), ``obj(seat)`` as an object ("@A", "you").
    """
    a, b = result.seats
    if result.cards is None:
        return f"the pairing of {obj(a)} and {obj(b)} was called off: nothing was revealed"
    ca, cb = result.cards
    head = f"{poss(a)} **{ca}** against {poss(b)} **{cb}**"
    if result.label == "equal":
        why = "equal cards, +2 each"
    elif result.label == "one":
        why = f"a 1, +2 to {obj(a if ca == 1 else b)}"
    elif result.label == "divides":
        small, big = sorted((ca, cb))
        why = f"{small} divides {big}, +2 to {obj(a if ca == small else b)}"
    elif result.label == "shared factor":
        why = f"common factor {gcd(ca, cb)}, +1 each"
    else:
        why = "coprime, no points"
    where = (
        "the cards are exchanged into the fresh piles"
        if result.kind == divisors.EXCHANGE
        else "both cards go to the moldy piles"
    )
    return f"{head}: {why}; {where}"


def pairings_text(view: View, event: dict[str, Any], table: TableInfo) -> str:
    """A round's pairings: "@A against @B (@C sits out)"."""
    pairs = [f"{table.who(a)} against {table.who(b)}" for a, b in event["pairings"]]
    paired = {s for p in event["pairings"] for s in p}
    idle = [table.who(s) for s in range(view.n_players) if view.status[s] == divisors.IN and s not in paired]
    tail = f" ({join_words(idle)} {'sits' if len(idle) == 1 else 'sit'} out)" if idle else ""
    return join_words(pairs) + tail


def round_text(view: View, event: dict[str, Any], table: TableInfo) -> str:
    return f"Cycle {event['cycle']}, round {event['round']}: {pairings_text(view, event, table)}."


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names)


def start_note(view: View, table: TableInfo) -> str:
    rounds = [e for e in view.events if e["type"] == "round"]
    first = f"{pairings_text(view, rounds[0], table)}. " if rounds else ""
    return (
        f"{first}Pick a card in your DMs (or **{MINE_LABEL}**); the two cards of a pairing are shown "
        "together."
    )


def headline(news: News[View], table: TableInfo) -> str:
    view, before, who = news.after, news.before, table.who
    revealed = {s for e in view.events if e["type"] == "resolved" for s in e["seats"]}
    lines: list[str] = []
    for event in view.events:
        kind = event["type"]
        if kind == "picked" and event["seat"] not in revealed:
            lines.append(f"{who(event['seat'])} has chosen a card.")
        elif kind == "resolved":
            lines.append(
                "Revealed: " + result_text(Result.from_dict(event), lambda s: f"{who(s)}'s", who) + "."
            )
        elif kind == "void":
            a, b = event["seats"]
            lines.append(
                f"The pairing of {who(a)} and {who(b)} is called off: nothing is revealed, and a card "
                "already chosen stays in its owner's fresh pile."
            )
        elif kind == "out":
            seat, reason = event["seat"], event["reason"]
            score = view.scores[seat]
            lost = before.fresh_counts[seat]
            if reason == divisors.EMPTY:
                lines.append(f"{who(seat)}'s fresh pile is empty: out of play, keeping {points(score)}.")
            elif reason == divisors.DROPPED:
                lines.append(
                    f"{who(seat)} dropped out, keeping {points(score)} (and a chance to win); "
                    f"{leave_play(lost)}"
                )
            else:
                tail = f" {leave_play(lost).capitalize()}" if lost else ""
                lines.append(
                    f"{forfeit_line(news, table)}{tail} Their score stays on the board but cannot win."
                )
        elif kind == "round":
            lines.append(round_text(view, event, table))
        elif kind == "end" and event["reason"] in END_RULE:
            # The outcome line under it says why the rule fired.
            lines.append(f"The termination rule **{END_RULE[event['reason']]}** ends the game.")
    return "\n".join(lines) or f"{who(news.seat)} moved."


# ---- what one player sees ------------------------------------------------------------------------


def panel(view: View, seat: int, table: TableInfo) -> Panel:
    """The player's fresh pile, score and pairing, with the card menu when they are to pick. Nothing
    that changes when other pairings move (the board shows those)."""

    def poss(s: int) -> str:
        return "your" if s == seat else f"{table.who(s)}'s"

    def obj(s: int) -> str:
        return "you" if s == seat else table.who(s)

    status = view.status[seat]
    score = points(view.scores[seat])
    last = [r for r in (*reversed(view.results), *reversed(view.last_results)) if seat in r.seats]
    last_line = f"Your last pairing: {result_text(last[0], poss, obj)}." if last else ""
    if view.outcome is not None:
        return Panel(
            "\n".join(
                line
                for line in (f"The game is over. Your final score: {view.scores[seat]}.", last_line)
                if line
            )
        )
    if status == divisors.DROPPED:
        return Panel(f"You dropped out of this game; your score ({score}) counts.")
    if status == divisors.FORFEITED:
        return Panel("You left this game.")
    if status == divisors.EMPTY:
        return Panel(f"Your fresh pile is empty, so you are out of play; your score ({score}) counts.")
    pile = " · ".join(card_label(v, c) for v, c in view.hand)
    lines = [
        f"Your fresh pile ({counted(view.fresh_counts[seat], 'card')}): {pile}",
        f"You have {score} · moldy pile: {counted(view.moldy_counts[seat], 'card')}",
    ]
    if last_line:
        lines.append(last_line)
    items: list[discord.ui.Item[Any]] = []
    pairing = open_pairing(view, seat)
    if pairing is None:
        lines.append("You sit out the rest of this round.")
    else:
        other = pairing[1] if pairing[0] == seat else pairing[0]
        if view.pending is None:
            lines.append(
                f"**You against {table.who(other)}:** choose your card below or reply with its value."
            )
            options = [
                discord.SelectOption(
                    label=card_label(v, c),
                    value=str(v),
                    description=f"{c} cards of {v} in your pile" if c > 1 else None,
                )
                for v, c in view.hand
            ]
            items.append(select(custom_id(table.game_id, "pick"), options, placeholder="Your card"))
        else:
            lines.append(f"You picked **{view.pending}** against {table.who(other)}; waiting for their card.")
    return Panel("\n".join(lines), items)


def confirm(news: News[View], table: TableInfo) -> str:
    if news.forfeit is not None:
        return f"You left game #{table.game_id}."
    view, seat = news.after, news.seat
    events = view.events
    if any(e["type"] == "out" and e["seat"] == seat and e["reason"] == divisors.DROPPED for e in events):
        return (
            f"You dropped out of game #{table.game_id}. Your score, {view.scores[seat]}, still "
            "counts (and can win); your fresh cards leave play."
        )
    if any(e["type"] == "resolved" and seat in e["seats"] for e in events):
        return "✅ Both cards are in."
    if view.pending is not None:
        return f"✅ Your card **{view.pending}** is in (only you know it)."
    return "Done."


def awaits_typed(view: View, seat: int) -> bool:
    return seat in view.to_act


def typed_action(view: View, seat: int, text: str) -> Any:
    return divisors.Pick(divisors.parse_card(text, view.m))


def not_waiting_reason(view: View, seat: int, table: TableInfo) -> str | None:
    if view.outcome is not None:
        return "the game is over."
    status = view.status[seat]
    if status != divisors.IN:
        return f"you are out of play ({STATUS_WORDS[status]})."
    pairing = open_pairing(view, seat)
    if pairing is None:
        return "you sit out the rest of this round; your next pairing comes with the next round."
    if view.pending is not None:
        other = table.who(pairing[0] if pairing[1] == seat else pairing[1])
        return (
            f"you already chose your card ({view.pending}), and a pick is final. Waiting for {other}'s card."
        )
    return None


def asked(news: News[View], table: TableInfo) -> list[int]:
    """Every other player whose situation changed: newly asked for a card, asked for a card in a
    new pairing (a new round), or no longer asked (their pairing was called off). Only the players
    newly asked would leave a panel showing a stale pairing."""
    before, after = news.before, news.after

    def stance(view: View, seat: int) -> tuple[Any, ...]:
        return (seat in view.to_act, open_pairing(view, seat), view.cycle, view.round)

    return [
        s
        for s in range(after.n_players)
        if s != news.seat
        and (s in before.to_act or s in after.to_act)
        and stance(before, s) != stance(after, s)
    ]


quiet = quiet_when("picked")


STATUS_WORDS = {
    divisors.EMPTY: "out of fresh cards",
    divisors.DROPPED: "dropped out",
    divisors.FORFEITED: "left the game",
}


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words, from the public view only (never a hand or a pending pick): the scores,
    this round's pairings with who has picked, and the last round's results."""
    names = table.names

    def who(seat: int) -> str:
        return player(names, seat)

    parts = [f"The Numerical Card Game board, cards 1 to {view.m}, {view.n_players} players."]
    if view.outcome is not None:
        won = words([who(s) for s in view.outcome.winners])
        parts.append("Game over: " + (f"{won} wins, " if won else "") + f"{view.outcome.reason}.")
    else:
        parts.append(
            f"Cycle {view.cycle}, round {view.round} of {view.rounds_per_cycle}; cycles without a moldy "
            f"card: {view.quiet_cycles} of {view.m}."
        )
    rows = []
    for seat in range(view.n_players):
        status = view.status[seat]
        notes = [f"{view.fresh_counts[seat]} fresh, {view.moldy_counts[seat]} moldy"]
        if status != divisors.IN:
            notes.append(STATUS_WORDS[status])
        elif seat in view.to_act:
            notes.append("to pick a card")
        elif seat in view.picked:
            notes.append("picked")
        rows.append(f"{who(seat)} {points(view.scores[seat])} ({', '.join(notes)})")
    parts.append("Scores: " + "; ".join(rows) + ".")
    settled = {r.seats: r for r in view.results}

    def poss(seat: int) -> str:
        return f"{who(seat)}'s"

    if view.pairings:
        pairs = []
        for a, b in view.pairings:
            result = settled.get((a, b))
            if result is not None:
                pairs.append(result_text(result, poss, who).replace("**", ""))
            else:
                picks = [f"{who(s)} {'has picked' if s in view.picked else 'is choosing'}" for s in (a, b)]
                pairs.append(" and ".join(picks))
        parts.append("This round: " + "; ".join(pairs) + ".")
    if view.last_results:
        last = [result_text(r, poss, who).replace("**", "") for r in view.last_results]
        parts.append(("Last round: " if view.outcome is None else "Final round: ") + "; ".join(last) + ".")
    return fit_alt(parts)
