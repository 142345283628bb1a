"""The Numerical Card Game as people see it, from views only.

A player's fresh pile and pending card are secrets: they appear only in that player's panel (their
own view). The channel learns who has chosen (a line of text) and, once both cards of a pairing are
in, the reveal and a new board drawn from the public view. Who has chosen is said by the board's
text alone (a pick edits it): the image and its alt text stay as posted until the next board, so
they never say it.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd
from typing import Any

import discord

import cogs.divisors.rules as divisors
from bot.i18n import N_, Lang, Msg, Np_
from bot.render.alt import fit_alt, player
from bot.table.components import select
from bot.table.ids import custom_id
from bot.table.present import News, Panel, Presenter, PrivatePresenter, TableInfo, forfeit_line, quiet_when
from cogs.divisors.render import render_board
from cogs.divisors.rules import Result

View = divisors.View
END_RULE = {
    divisors.END_DEAD: Np_("termination rule", "dead"),
    divisors.END_NO_PROGRESS: Np_("termination rule", "no progress"),
}
MINE_LABEL = N_("My move")


def card_label(value: int, count: int) -> str:
    return f"{value} ×{count}" if count > 1 else str(value)


def open_pairing(view: View, seat: int) -> tuple[int, int] | None:
    """The seat's open (unresolved) pairing of the current round, if any."""
    settled = {r.seats for r in view.results}
    for pairing in view.pairings:
        if seat in pairing and pairing not in settled:
            return pairing
    return None


def result_text(result: Result, lang: Lang, name: Callable[[int], str], me: int | None = None) -> str:
    """A settled pairing in words: "@A's **3** against @B's **12**: 3 divides 12, +2 to @A; ...".

    ``name(seat)`` names a player; ``me`` is the seat of the reader (a panel), who is "you".
    """
    a, b = result.seats
    if result.cards is None:
        if me in (a, b):
            other = b if me == a else a
            return lang.t(
                "your pairing with {player} was called off: nothing was revealed", player=name(other)
            )
        return lang.t(
            "the pairing of {first} and {second} was called off: nothing was revealed",
            first=name(a),
            second=name(b),
        )
    ca, cb = result.cards
    if me == a:
        head = lang.t("your **{mine}** against {player}'s **{theirs}**", mine=ca, player=name(b), theirs=cb)
    elif me == b:
        head = lang.t("{player}'s **{theirs}** against your **{mine}**", player=name(a), theirs=ca, mine=cb)
    else:
        head = lang.t(
            "{first}'s **{first_card}** against {second}'s **{second_card}**",
            first=name(a),
            first_card=ca,
            second=name(b),
            second_card=cb,
        )
    if result.label in ("one", "divides"):
        small, big = sorted((ca, cb))
        gainer = a if ca == small else b
        if result.label == "one":
            why = (
                lang.t("a 1 against a bigger card, +2 to you")
                if gainer == me
                else lang.t("a 1 against a bigger card, +2 to {player}", player=name(gainer))
            )
        elif gainer == me:
            why = lang.t("{small} divides {big}, +2 to you", small=small, big=big)
        else:
            why = lang.t("{small} divides {big}, +2 to {player}", small=small, big=big, player=name(gainer))
    elif result.label == "equal":
        why = lang.t("equal cards, +2 each")
    elif result.label == "shared factor":
        why = lang.t("common factor {factor}, +1 each", factor=gcd(ca, cb))
    else:
        why = lang.t("coprime, no points")
    if result.kind == divisors.EXCHANGE:
        where = lang.t("the cards are exchanged into the fresh piles")
    else:
        where = lang.t("both cards go to the moldy piles")
    # i18n: a settled pairing, like "A's 3 against B's 12: 3 divides 12, +2 to A; both cards go to
    # i18n: the moldy piles"
    return lang.t("{head}: {why}; {where}", head=head, why=why, where=where)


def pairings_text(view: View, event: divisors.RoundBegins, table: TableInfo) -> str:
    """A round's pairings: "@A against @B (@C sits out)"."""
    lang = table.lang
    pairs = lang.words(
        [
            lang.t("{first} against {second}", first=table.who(a), second=table.who(b))
            for a, b in event.pairings
        ]
    )
    paired = {s for p in event.pairings for s in p}
    idle = [table.who(s) for s in range(view.n_players) if view.status[s] == divisors.IN and s not in paired]
    if not idle:
        return pairs
    return lang.n(
        "{pairings} ({players} sits out)",
        "{pairings} ({players} sit out)",
        len(idle),
        pairings=pairs,
        players=lang.words(idle),
    )


def round_text(view: View, event: divisors.RoundBegins, table: TableInfo) -> str:
    return table.lang.t(
        "Cycle {cycle}, round {round}: {pairings}.",
        cycle=event.cycle,
        round=event.round,
        pairings=pairings_text(view, event, table),
    )


def render(view: View, table: TableInfo) -> bytes:
    return render_board(view, table.names, lang=table.lang)


def start_note(view: View, table: TableInfo) -> str:
    lang = table.lang
    label = lang.t(MINE_LABEL)
    rounds = [e for e in view.events if isinstance(e, divisors.RoundBegins)]
    if rounds:
        return lang.t(
            "{pairings}. Pick a card in your DMs (or **{label}**); the two cards of a pairing are shown "
            "together.",
            pairings=pairings_text(view, rounds[0], table),
            label=label,
        )
    return lang.t(
        "Pick a card in your DMs (or **{label}**); the two cards of a pairing are shown together.",
        label=label,
    )


def headline(news: News[View], table: TableInfo) -> str:
    view, who, lang = news.after, table.who, table.lang
    revealed = {s for e in view.events if isinstance(e, divisors.Resolved) for s in e.result.seats}
    lines: list[str] = []
    for event in view.events:
        match event:
            case divisors.Picked(seat=seat) if seat not in revealed:
                lines.append(lang.t("{player} has chosen a card.", player=who(seat)))
            case divisors.Resolved(result=result):
                lines.append(lang.t("Revealed: {result}.", result=result_text(result, lang, who)))
            case divisors.Voided(seats=(a, b)):
                lines.append(
                    lang.t(
                        "The pairing of {first} and {second} is called off: nothing is revealed, and a "
                        "card already chosen stays in its owner's fresh pile.",
                        first=who(a),
                        second=who(b),
                    )
                )
            case divisors.Out():
                lines.append(_out_line(news, event, table))
            case divisors.RoundBegins():
                lines.append(round_text(view, event, table))
            case divisors.End(reason=reason) if reason in END_RULE:
                # The outcome line under it says why the rule fired.
                rule = lang.pt("termination rule", END_RULE[reason])
                lines.append(lang.t("The termination rule **{rule}** ends the game.", rule=rule))
    return "\n".join(lines) or lang.t("{player} moved.", player=who(news.seat))


def _out_line(news: News[View], event: divisors.Out, table: TableInfo) -> str:
    """A player leaving play: their fresh pile ran out, they dropped out, or they forfeited."""
    lang = table.lang
    seat, reason = event.seat, event.reason
    player, score = table.who(seat), news.after.scores[seat]
    lost = news.before.fresh_counts[seat]
    if reason == divisors.EMPTY:
        return lang.n(
            "{player}'s fresh pile is empty: out of play, keeping {count} point.",
            "{player}'s fresh pile is empty: out of play, keeping {count} points.",
            score,
            player=player,
        )
    if reason == divisors.DROPPED:
        return lang.n(
            "{player} dropped out, keeping {count} point (and a chance to win); {cards}",
            "{player} dropped out, keeping {count} points (and a chance to win); {cards}",
            score,
            player=player,
            cards=Msg.n(
                "their {count} fresh card leaves play.", "their {count} fresh cards leave play.", lost
            ),
        )
    if lost:
        return lang.t(
            "{forfeit} {cards} Their score stays on the board but cannot win.",
            forfeit=forfeit_line(news, table),
            cards=Msg.n(
                "Their {count} fresh card leaves play.", "Their {count} fresh cards leave play.", lost
            ),
        )
    return lang.t(
        "{forfeit} Their score stays on the board but cannot win.", forfeit=forfeit_line(news, table)
    )


# ---- what one player sees ------------------------------------------------------------------------


def panel(view: View, seat: int, table: TableInfo) -> Panel:
    """The player's fresh pile, score and pairing, with the card menu when they are to pick. Nothing
    that changes when other pairings move (the board shows those)."""
    lang = table.lang
    last_line = _last_pairing_line(view, seat, table)
    out = _out_of_play(view, seat, lang, last_line)
    if out is not None:
        return out
    lines = _pile_lines(view, seat, lang)
    if last_line:
        lines.append(last_line)
    items: list[discord.ui.Item[Any]] = []
    pairing = open_pairing(view, seat)
    if pairing is None:
        lines.append(lang.t("You sit out the rest of this round."))
    else:
        other = pairing[1] if pairing[0] == seat else pairing[0]
        if view.pending is None:
            lines.append(
                lang.t(
                    "**You against {player}:** choose your card below or reply with its value.",
                    player=table.who(other),
                )
            )
            items.append(_card_menu(view, table))
        else:
            lines.append(
                lang.t(
                    "You picked **{card}** against {player}; waiting for their card.",
                    card=view.pending,
                    player=table.who(other),
                )
            )
    return Panel("\n".join(lines), items)


def _last_pairing_line(view: View, seat: int, table: TableInfo) -> str:
    """The seat's latest settled pairing in a sentence, or "" before its first."""
    lang = table.lang
    last = [r for r in (*reversed(view.results), *reversed(view.last_results)) if seat in r.seats]
    return (
        lang.t("Your last pairing: {result}.", result=result_text(last[0], lang, table.who, seat))
        if last
        else ""
    )


def _out_of_play(view: View, seat: int, lang: Lang, last_line: str) -> Panel | None:
    """The whole panel of a player with nothing left to do (the game is over, or they are out), else
    None."""
    status = view.status[seat]
    score = view.scores[seat]
    if view.outcome is not None:
        over = lang.t("The game is over. Your final score: {score}.", score=score)
        return Panel("\n".join(line for line in (over, last_line) if line))
    if status == divisors.DROPPED:
        return Panel(
            lang.n(
                "You dropped out of this game; your score ({count} point) counts.",
                "You dropped out of this game; your score ({count} points) counts.",
                score,
            )
        )
    if status == divisors.FORFEITED:
        return Panel(lang.t("You left this game."))
    if status == divisors.EMPTY:
        return Panel(
            lang.n(
                "Your fresh pile is empty, so you are out of play; your score ({count} point) counts.",
                "Your fresh pile is empty, so you are out of play; your score ({count} points) counts.",
                score,
            )
        )
    return None


def _pile_lines(view: View, seat: int, lang: Lang) -> list[str]:
    """The player's fresh pile, then their score and moldy pile."""
    pile = " · ".join(card_label(v, c) for v, c in view.hand)
    return [
        lang.n(
            "Your fresh pile ({count} card): {pile}",
            "Your fresh pile ({count} cards): {pile}",
            view.fresh_counts[seat],
            pile=pile,
        ),
        lang.n(
            "You have {count} point · moldy pile: {cards}",
            "You have {count} points · moldy pile: {cards}",
            view.scores[seat],
            cards=Msg.n("{count} card", "{count} cards", view.moldy_counts[seat]),
        ),
    ]


def _card_menu(view: View, table: TableInfo) -> discord.ui.Item[Any]:
    """The menu of the player's fresh cards, one option per value."""
    lang = table.lang
    options = [
        discord.SelectOption(
            label=card_label(v, c),
            value=str(v),
            description=lang.n(
                "{count} card of {value} in your pile",
                "{count} cards of {value} in your pile",
                c,
                value=v,
            )
            if c > 1
            else None,
        )
        for v, c in view.hand
    ]
    placeholder = lang.pt("placeholder", "Your card")
    return select(custom_id(table.game_id, "pick"), options, placeholder=placeholder)


def confirm(news: News[View], table: TableInfo) -> str:
    lang = table.lang
    if news.forfeit is not None:
        return lang.t("You left game #{game_id}.", game_id=table.game_id)
    view, seat = news.after, news.seat
    events = view.events
    if divisors.Out(seat, divisors.DROPPED) in events:
        return lang.t(
            "You dropped out of game #{game_id}. Your score, {score}, still counts (and can win); your fresh "
            "cards leave play.",
            game_id=table.game_id,
            score=view.scores[seat],
        )
    if any(isinstance(e, divisors.Resolved) and seat in e.result.seats for e in events):
        return lang.t("✅ Both cards are in.")
    if view.pending is not None:
        return lang.t("✅ Your card **{card}** is in (only you know it).", card=view.pending)
    return lang.t("Done.")


def awaits_typed(view: View, seat: int) -> bool:
    return seat in view.to_act


def typed_action(view: View, seat: int, text: str) -> Any:
    return divisors.Pick(divisors.parse_card(text, view.m))


def not_waiting_reason(view: View, seat: int, table: TableInfo) -> str | None:
    lang = table.lang
    if view.outcome is not None:
        return lang.t("the game is over.")
    status = view.status[seat]
    if status != divisors.IN:
        return lang.t("you are out of play ({status}).", status=lang.t(STATUS_WORDS[status]))
    pairing = open_pairing(view, seat)
    if pairing is None:
        return lang.t("you sit out the rest of this round; your next pairing comes with the next round.")
    if view.pending is not None:
        other = table.who(pairing[0] if pairing[1] == seat else pairing[1])
        return lang.t(
            "you already chose your card ({card}), and a pick is final. Waiting for {player}'s card.",
            card=view.pending,
            player=other,
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


quiet = quiet_when(divisors.Picked)


STATUS_WORDS = {
    divisors.EMPTY: N_("out of fresh cards"),
    divisors.DROPPED: N_("dropped out"),
    divisors.FORFEITED: N_("left the game"),
}


def alt_text(view: View, table: TableInfo) -> str:
    """The board in words, from the public view only (never a hand or a pending pick): the scores,
    this round's pairings, and the last round's results. Not who has picked: like the image, the
    alt text stays as posted while a pick edits the board's text (which says it)."""
    lang, names = table.lang, table.names

    def who(seat: int) -> str:
        return player(names, seat, lang)

    parts = [
        lang.n(
            "The Numerical Card Game board, cards 1 to {m}, {count} player.",
            "The Numerical Card Game board, cards 1 to {m}, {count} players.",
            view.n_players,
            m=view.m,
        ),
        _alt_standing(view, lang, who),
        _alt_scores(view, lang, who),
    ]
    if view.pairings:
        parts.append(_alt_pairings(view, lang, who))
    if view.last_results:
        last = "; ".join(result_text(r, lang, who).replace("**", "") for r in view.last_results)
        if view.outcome is None:
            parts.append(lang.t("Last round: {results}.", results=last))
        else:
            parts.append(lang.t("Final round: {results}.", results=last))
    return fit_alt(parts)


def _alt_standing(view: View, lang: Lang, who: Callable[[int], str]) -> str:
    """Where the game stands: who won and why, or the cycle and round."""
    if view.outcome is not None:
        reason = view.outcome.reason_in(lang)
        winners = [who(s) for s in view.outcome.winners]
        if winners:
            return lang.n(
                "Game over: {players} wins, {reason}.",
                "Game over: {players} win, {reason}.",
                len(winners),
                players=lang.words(winners),
                reason=reason,
            )
        return lang.t("Game over: {reason}.", reason=reason)
    return lang.t(
        "Cycle {cycle}, round {round} of {rounds}; cycles without a moldy card: {quiet} of {m}.",
        cycle=view.cycle,
        round=view.round,
        rounds=view.rounds_per_cycle,
        quiet=view.quiet_cycles,
        m=view.m,
    )


def _alt_scores(view: View, lang: Lang, who: Callable[[int], str]) -> str:
    """Every player's score, piles and (if out) why."""
    rows = []
    for seat in range(view.n_players):
        status = view.status[seat]
        notes = [
            lang.t(
                "{fresh} fresh, {moldy} moldy", fresh=view.fresh_counts[seat], moldy=view.moldy_counts[seat]
            )
        ]
        if status != divisors.IN:
            notes.append(lang.t(STATUS_WORDS[status]))
        rows.append(
            lang.n(
                "{player} {count} point ({notes})",
                "{player} {count} points ({notes})",
                view.scores[seat],
                player=who(seat),
                notes=", ".join(notes),
            )
        )
    return lang.t("Scores: {rows}.", rows="; ".join(rows))


def _alt_pairings(view: View, lang: Lang, who: Callable[[int], str]) -> str:
    """This round's pairings: each settled one's result, the others unrevealed."""
    settled = {r.seats: r for r in view.results}
    pairs = []
    for a, b in view.pairings:
        result = settled.get((a, b))
        if result is not None:
            pairs.append(result_text(result, lang, who).replace("**", ""))
        else:  # the same whoever has picked
            pairs.append(
                lang.t(
                    "{first} against {second}, cards shown when both have picked",
                    first=who(a),
                    second=who(b),
                )
            )
    return lang.t("This round: {pairings}.", pairings="; ".join(pairs))


def awaited(view: View, seat: int) -> str:
    """What /game mine says the game waits for: a secret card."""
    return N_("your pick")


PRESENTER: Presenter[divisors.View] = Presenter(
    render=render,
    headline=headline,
    quiet=quiet,
    start_note=start_note,
    alt_text=alt_text,
    mine_label=MINE_LABEL,
    awaited=awaited,
)

PRIVATE: PrivatePresenter[divisors.View] | None = PrivatePresenter(
    panel=panel,
    confirm=confirm,
    awaits_typed=awaits_typed,
    typed_action=typed_action,
    not_waiting_reason=not_waiting_reason,
    asked=asked,
)
