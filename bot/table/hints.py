"""Hints: `/game hint`, the move the `hard` computer player would make, told privately.

Only in a game where every other player is a computer, and only when the rules wait for the caller.
The hint is thought out from the caller's own view (what they see, and nothing more: the computers'
secrets stay secret) by the `hard` player, in the computer players' worker processes (`Minds`).
Before it is shown, the game is marked "with hints" (`Storage.mark_hints`, committed first: a hint
is never seen by someone whose game is not marked); from then on its boards, its replay and the
history say so, and when it ends it changes no rating (`bot.storage.records`).

The move is told in the game's own words: in a game without secrets, the line its board would show
for it (applied to a copy of the position); in a game of secret choices, only what the action itself
says (a card, a number, a prediction), since applying it could reveal the computers' choices.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

import discord

from bot.errors import GameError, NotAPlayer, NotYourTurn
from bot.i18n import N_, Lang
from bot.i18n.audience import reader
from bot.jsontypes import JSONObject
from bot.players.seats import is_computer
from bot.present import News, mention
from bot.rules import play
from bot.service import Games, Loaded
from bot.storage import GameRow, Storage
from bot.table.catalog import Catalog
from bot.table.minds import Minds
from bot.table.pending import PendingAnswers
from bot.table.replies import fit, reply_private

LEVEL = "hard"  # whose move a hint is
HINT = N_("💡 Hint for game #{game_id}: the hard computer player would play this, from what you see:")
NOW_UNRATED = N_(
    "This game is now marked “with hints” on its boards, in history and in its replay, and it is now "
    "unrated: its result will change no rating."
)
STILL_UNRATED = N_("(This game is marked “with hints”, and unrated.)")
# A secret choice, told from the action alone (never from the position it would lead to).
PICK_NUMBER = N_("pick the number **{number}**")
PICK_CARD = N_("pick the card **{card}**")
DROP = N_("drop out (your score still counts)")
PREDICT = N_("predict `{letters}`")
PLACE_CARD = N_("place a card of value **{rank}**")
RANKS = {1: "A", 11: "J", 12: "Q", 13: "K"}


def hint_rng(row: GameRow, seat: int) -> random.Random:
    """The hint's rng: the same hint for the same position (asked again, or on another process)."""
    return random.Random(f"hint:{row.seed}:{row.version}:{seat}")


def secret_words(action: JSONObject, lang: Lang) -> str:
    """A secret choice in words, from the action alone."""
    kind = action.get("type")
    if kind == "pick" and "number" in action:
        return lang.t(PICK_NUMBER, number=action["number"])
    if kind == "pick" and "card" in action:
        return lang.t(PICK_CARD, card=action["card"])
    if kind == "drop":
        return lang.t(DROP)
    if kind == "predict":
        return lang.t(PREDICT, letters=action.get("letters", ""))
    if kind == "play" and isinstance(action.get("rank"), int):
        rank = int(action["rank"])  # type: ignore[arg-type]
        return lang.t(PLACE_CARD, rank=RANKS.get(rank, str(rank)))
    return f"`{json.dumps(action, sort_keys=True)}`"


@dataclass(frozen=True)
class HintDesk:
    storage: Storage
    games: Games
    catalog: Catalog
    minds: Minds
    pending: PendingAnswers  # (the deferred hint is noted as owed: a restart tells the asker)

    async def hint(self, interaction: discord.Interaction, game: Loaded) -> None:
        """`/game hint`: the hard move from the caller's view, after the game is marked."""
        lang = reader(interaction)
        row = game.row
        seat = row.seat_of(interaction.user.id)
        if seat is None:
            raise NotAPlayer(
                "You are not playing game #{game_id}: hints are for its players.", game_id=row.id
            )
        if row.status == "finished":
            raise GameError("Game #{game_id} is over: hints are for a game being played.", game_id=row.id)
        if row.status != "active" or game.state is None:
            raise GameError(
                "Game #{game_id} has not started yet: ask for a hint on your move.", game_id=row.id
            )
        others = [u for s, u in enumerate(row.seats) if s != seat and not is_computer(u)]
        if others:
            raise GameError(
                "Hints are only for games against computers: {players} also play game #{game_id}.",
                players=lang.words([mention(u) for u in others]),
                game_id=row.id,
            )
        if seat not in game.rules.to_act(game.state):
            raise NotYourTurn(
                "It is not your move in game #{game_id}: ask for a hint when it is.", game_id=row.id
            )
        kind = self.catalog.get(row.kind)
        if kind.player is None:
            raise GameError("{title} has no computer player to give hints.", title=kind.title)
        if not interaction.response.is_done():
            # (a search takes a while)
            await self.pending.defer(interaction, asked=f"/game hint {row.id}", ephemeral=True)
        view = game.view(seat)  # what the caller sees, and nothing more
        action = await self.minds.choose(kind.player, view, LEVEL, hint_rng(row, seat))
        first = await self.storage.mark_hints(game_id=row.id, version=row.version)
        if first is None:
            raise GameError(
                "Game #{game_id} moved on while the hint was thought out: ask again.", game_id=row.id
            )
        self.games.cache.evict(row.id)  # (read again: its boards now say "with hints")
        lines = [
            lang.t(HINT, game_id=row.id),
            "> " + self._words(game, seat, action, lang).replace("\n", "\n> "),
        ]
        lines.append(lang.t(NOW_UNRATED) if first else lang.t(STILL_UNRATED))
        await reply_private(interaction, fit("\n".join(lines)))

    def _words(self, game: Loaded, seat: int, action: JSONObject, lang: Lang) -> str:
        kind = self.catalog.get(game.row.kind)
        if kind.private is not None:
            return secret_words(action, lang)
        # No secrets: the line the game's board would show for the move, played on a copy.
        after = play(game.rules, game.state, seat, action)
        news = News(seat, game.view(None), game.rules.view_for(after, None))
        return kind.present.headline(news, kind.table(game).speaking(lang))
