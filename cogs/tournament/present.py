"""What a tournament shows: its card, each round's announcement, the final post, the standings image.

Pure text building from a `Snapshot` (`bot.events.tournaments`), in a given language, plus the
`TournamentPresenter` that the tournament desk (`bot.table.tournaments`) calls to carry its durable
posts: it picks the server's language and wraps the controls for routing.

The card's buttons carry the tournament's id where a game's carry the game's
(``q:<tournament id>:-:tour_join``); they are routed as pages (`Router.on_page`), so they work after
a restart, and their handlers (cogs/tournament/commands.py) check everything themselves.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.events import scoring
from bot.events.pairing import MAX_PLAYERS, MIN_PLAYERS
from bot.events.tournaments import ROUND_ROBIN, Pairing, Snapshot, TournamentRow
from bot.i18n import N_, Lang
from bot.i18n.audience import Audiences
from bot.present import shown_name, who
from bot.registry import rules_for
from bot.render import standings as drawn
from bot.table.components import Control, button
from bot.table.ids import custom_id
from bot.table.replies import fit
from bot.table.routing import Router
from bot.table.tournaments import Post

JOIN, LEAVE, START, CANCEL, TABLE = "tour_join", "tour_leave", "tour_start", "tour_cancel", "tour_table"
VERBS = (JOIN, LEAVE, START, CANCEL, TABLE)

FORMAT_NAMES = {ROUND_ROBIN: N_("round robin"), "swiss": N_("Swiss")}
TIE_BREAK_NAMES = {scoring.SONNEBORN_BERGER: "Sonneborn-Berger", scoring.BUCHHOLZ: "Buchholz"}
STANDINGS_FILE = "standings.png"


def title_of(row: TournamentRow) -> str:
    return rules_for(row.kind).TITLE


def heading(row: TournamentRow, lang: Lang) -> str:
    """The first line of every post about the tournament."""
    return lang.t(
        "🏆 **{title} tournament #{tournament_id}** · {format}",
        title=title_of(row),
        tournament_id=row.id,
        format=lang.t(FORMAT_NAMES.get(row.format, row.format)),
    )


def planned_rounds(row: TournamentRow, players: int) -> int:
    """The rounds the tournament will have with ``players`` in (a round robin's follow the count)."""
    if row.format == ROUND_ROBIN and row.table_size == 2 and row.status == "signup":
        return max(1, players - 1 + players % 2)
    return row.rounds


def schedule(row: TournamentRow, lang: Lang) -> str:
    """How the tournament runs: its rounds and the time each move has."""
    players = len(row.active)
    per_move = lang.t("each move within {duration}", duration=lang.duration(row.timeout_s))
    if row.table_size > 2:
        tables = lang.n(
            "tables of {count} player, seated by score",
            "tables of {count} players, seated by score",
            row.table_size,
        )
        if row.rounds:
            return lang.n(
                "{count} round, at {tables}; {per_move}.",
                "{count} rounds, at {tables}; {per_move}.",
                row.rounds,
                tables=tables,
                per_move=per_move,
            )
        return lang.t("Rounds at {tables}; {per_move}.", tables=tables, per_move=per_move)
    if row.format == ROUND_ROBIN and row.status != "signup":
        return lang.n(
            "Everyone plays everyone once, over {count} round; {per_move}.",
            "Everyone plays everyone once, over {count} rounds; {per_move}.",
            row.rounds,
            per_move=per_move,
        )
    if row.format == ROUND_ROBIN:
        rounds = planned_rounds(row, players)
        return lang.n(
            "Everyone plays everyone once: {count} round with the players in now; {per_move}.",
            "Everyone plays everyone once: {count} rounds with the players in now; {per_move}.",
            rounds,
            per_move=per_move,
        )
    if row.rounds:
        return lang.n(
            "{count} round, paired by score, never the same pair twice; {per_move}.",
            "{count} rounds, paired by score, never the same pair twice; {per_move}.",
            row.rounds,
            per_move=per_move,
        )
    return lang.t("Rounds paired by score, never the same pair twice; {per_move}.", per_move=per_move)


def roster(row: TournamentRow, lang: Lang) -> str:
    """The players, in seed order, the host marked and the withdrawn struck through."""
    lines = []
    for i, entrant in enumerate(row.entrants, start=1):
        named = who(entrant.user_id, lang)
        if entrant.user_id == row.host_id:
            named = lang.t("{player} (host)", player=named)
        if entrant.withdrawn is not None:
            named = lang.t("~~{player}~~ (withdrew in round {round})", player=named, round=entrant.withdrawn)
        lines.append(f"{i}. {named}")
    return "\n".join(lines)


def card_text(snap: Snapshot, lang: Lang) -> str:
    """The card: the sign-up while people can join, then how far the tournament is, then its end."""
    row = snap.tournament
    lines = [heading(row, lang)]
    if row.status == "signup":
        lines.append(
            lang.n(
                "Sign-up: {count} player in ({low} to {high} can play). Host: {host}.",
                "Sign-up: {count} players in ({low} to {high} can play). Host: {host}.",
                len(row.entrants),
                low=MIN_PLAYERS,
                high=MAX_PLAYERS,
                host=who(row.host_id, lang),
            )
        )
        lines += [schedule(row, lang), roster(row, lang)]
        lines.append(lang.t("Press **Join** to play. The host presses **Start** when everyone is in."))
    elif row.status == "running":
        lines.append(lang.t("Round {round} of {rounds} is being played.", round=row.round, rounds=row.rounds))
        lines += [schedule(row, lang), roster(row, lang)]
        lines.append(lang.t("The standings: /tournament standings, or the button below."))
    elif row.status == "finished":
        lines.append(winners_line(snap, lang))
        lines.append(roster(row, lang))
    else:
        lines.append(lang.t("This tournament was cancelled."))
    return fit("\n".join(lines))


def card_controls(snap: Snapshot, lang: Lang) -> list[Control]:
    """Join, Leave, Start and Cancel during the sign-up; Standings once it has begun; none when
    cancelled."""
    row = snap.tournament
    if row.status == "signup":
        return [
            button(lang.pt("label", "Join"), custom_id(row.id, JOIN), style=discord.ButtonStyle.success),
            button(lang.pt("label", "Leave"), custom_id(row.id, LEAVE)),
            button(
                lang.pt("label", "Start"),
                custom_id(row.id, START),
                style=discord.ButtonStyle.primary,
                disabled=len(row.entrants) < MIN_PLAYERS,
            ),
            button(lang.pt("label", "Cancel"), custom_id(row.id, CANCEL), style=discord.ButtonStyle.danger),
        ]
    if row.status in ("running", "finished"):
        return [button(lang.pt("label", "Standings"), custom_id(row.id, TABLE), emoji="📊")]
    return []


def versus(players: Sequence[int], lang: Lang) -> str:
    if len(players) == 2:
        return lang.t("{first} vs {second}", first=who(players[0], lang), second=who(players[1], lang))
    return lang.words([who(p, lang) for p in players])


def pairing_line(pairing: Pairing, lang: Lang) -> str:
    where = lang.t("game #{game_id}", game_id=pairing.game_id) if pairing.game_id is not None else ""
    line = lang.t("Board {board}: {players}", board=pairing.board, players=versus(pairing.players, lang))
    return f"{line} · {where}" if where else line


def round_text(snap: Snapshot, number: int, lang: Lang) -> str:
    """A round's announcement: its games (each opened in its own thread from its card here) and byes."""
    row = snap.tournament
    lines = [
        heading(row, lang),
        lang.t("**Round {round} of {rounds}** has begun:", round=number, rounds=row.rounds),
    ]
    lines += [pairing_line(p, lang) for p in snap.round_pairings(number) if not p.forfeit]
    byes = snap.byes.get(number, ())
    if byes:
        lines.append(
            lang.n(
                "A bye (a point without playing): {players}.",
                "Byes (a point each without playing): {players}.",
                len(byes),
                players=lang.words([who(p, lang) for p in byes]),
            )
        )
    credited = [w for p in snap.round_pairings(number) if p.forfeit for w in p.winners]
    if credited:
        lines.append(
            lang.n(
                "A win without playing (the opponent withdrew): {players}.",
                "Wins without playing (their opponents withdrew): {players}.",
                len(credited),
                players=lang.words([who(p, lang) for p in credited]),
            )
        )
    lines.append(lang.t("Each game has its card here and is played in its own thread. Good luck!"))
    return fit("\n".join(lines))


def winners_line(snap: Snapshot, lang: Lang) -> str:
    winners = snap.winners()
    if not winners:
        return lang.t("The tournament is over.")
    top = next(s for s in snap.standings if s.player == winners[0])
    score = drawn.figure(top.points, lang)
    if len(winners) == 1:
        return lang.t(
            "🥇 The winner is {player}, with a score of {score}!", player=who(winners[0], lang), score=score
        )
    return lang.t(
        "🥇 {players} share first place, with a score of {score} each!",
        players=lang.words([who(p, lang) for p in winners]),
        score=score,
    )


def final_text(snap: Snapshot, lang: Lang) -> str:
    row = snap.tournament
    lines = [
        heading(row, lang),
        lang.n(
            "The tournament is over after {count} round.",
            "The tournament is over after {count} rounds.",
            row.rounds,
        ),
        winners_line(snap, lang),
        lang.t("Thank you for playing! The final standings:"),
    ]
    return fit("\n".join(lines))


def standings_of(snap: Snapshot, lang: Lang, you: int | None = None) -> drawn.Standings:
    """The standings image's figures and names."""
    row = snap.tournament
    return drawn.Standings(
        title=title_of(row),
        tournament_id=row.id,
        format_name=lang.t(FORMAT_NAMES.get(row.format, row.format)),
        tie_break_name=TIE_BREAK_NAMES.get(snap.tie_break, snap.tie_break),
        round_no=row.round,
        rounds=row.rounds,
        rows=tuple(
            drawn.Row(
                rank=s.rank,
                name=shown_name(s.player, row.name(s.player), lang),
                points=s.points,
                tie_break=s.tie_break,
                games_left=s.games_left,
                withdrawn=s.withdrawn,
                you=s.player == you,
            )
            for s in snap.standings
        ),
        finished=row.status == "finished",
    )


def standings_file(snap: Snapshot, lang: Lang, you: int | None = None) -> discord.File:
    """The standings as an image, its alt text the attachment's description."""
    table = standings_of(snap, lang, you)
    return discord.File(
        io.BytesIO(drawn.render(table, lang=lang)),
        filename=STANDINGS_FILE,
        description=drawn.alt_text(table, lang),
    )


@dataclass(frozen=True)
class TournamentPresenter:
    """What the tournament desk calls to carry the card, the round posts and the final post: each
    in the server's language, its controls routed."""

    audiences: Audiences
    router: Router

    def view(self, items: list[Control]) -> discord.ui.View | None:
        return self.router.view(items) if items else None

    async def card_in(self, snap: Snapshot, lang: Lang) -> Post:
        return Post(card_text(snap, lang), self.view(card_controls(snap, lang)))

    async def card(self, snap: Snapshot) -> Post:
        return await self.card_in(snap, await self.audiences.server(snap.tournament.guild_id))

    async def round_post(self, snap: Snapshot, round: int) -> Post:
        lang = await self.audiences.server(snap.tournament.guild_id)
        return Post(round_text(snap, round, lang))

    async def final_post(self, snap: Snapshot) -> Post:
        lang = await self.audiences.server(snap.tournament.guild_id)
        return Post(final_text(snap, lang), files=[standings_file(snap, lang)])
