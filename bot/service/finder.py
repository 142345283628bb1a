"""Which game a place and a person mean: the live games of a channel or thread, and the one a
command used there is about (`Finder.game_here`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.errors import NoGameHere, WhichGame
from bot.i18n import Msg
from bot.service.games import Games
from bot.service.model import Loaded
from bot.storage import GameRow


class Finder:
    def __init__(self, games: Games) -> None:
        self.games = games

    async def live_at(self, channel_id: int) -> list[Loaded]:
        """The live games of a channel or thread: those played there, and those whose lobby card
        is there (played in their own thread)."""
        games = None if self.games.shared else self.games.cache.live_at(channel_id)
        if games is None:
            epoch = self.games.cache.epoch
            stored = [
                self.games.load(row) for row in await self.games.storage.live_games_at(channel_id=channel_id)
            ]
            games = self.games.cache.know_at(channel_id, stored, epoch)
            if self.games.shared and len(games) > len(stored):
                # The cache adds games whose thread it knows before storage does; shared, such a game
                # may also be one another process has finished since: each is read again.
                read = {g.id for g in stored}
                games = [g if g.id in read else await self.games.get(g.id) for g in games]
                games = [g for g in games if channel_id in g.row.places]
        return games

    async def game_here(
        self,
        place_id: int,
        user_id: int,
        *,
        kind: str | None = None,
        prefer: Sequence[Callable[[GameRow], bool]] = (),
    ) -> Loaded:
        """The live game a command used in ``place_id`` (a channel or a thread) by ``user_id`` is
        about: the one played there (of ``kind``). Among several, the ``prefer`` tests narrow the
        choice in turn, then the caller's own game; still several, `WhichGame` names them. With none
        there, a game of the caller's played in its own thread off this channel is pointed to."""
        games = await self.live_at(place_id)
        here = [g for g in games if g.row.played_at(place_id)]
        candidates = [g for g in here if kind is None or g.row.kind == kind]
        for test in (*prefer, lambda row: row.seat_of(user_id) is not None):
            if len(candidates) <= 1:
                break
            candidates = [g for g in candidates if test(g.row)] or candidates
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            raise WhichGame(
                [g.id for g in candidates],
                Msg(
                    "Several {title} games are live here ({numbers}). Use the buttons on the board "
                    "(or lobby) of the one you mean, or play in its thread.",
                    title=self.games.rules_for(kind).TITLE,
                )
                if kind
                else Msg(
                    "Several live games are here ({numbers}). Use the buttons on the board (or lobby) "
                    "of the one you mean, or play in its thread."
                ),
            )
        away = [
            g
            for g in games
            if not g.row.played_at(place_id)
            and g.row.seat_of(user_id) is not None
            and (kind is None or g.row.kind == kind)
        ]
        if len(away) == 1:
            game = away[0]
            raise WhichGame(
                [game.id],
                Msg(
                    "Your {title} game is played in its thread {thread} ({numbers}). Use the command "
                    "there, or the buttons on its board.",
                    title=self.games.rules_for(game.row.kind).TITLE,
                    thread=f"<#{game.row.place_id}>",
                ),
            )
        if away:
            threads = ", ".join(f"<#{g.row.place_id}>" for g in away)
            raise WhichGame(
                [g.id for g in away],
                Msg(
                    "Your games here are played in their threads ({numbers}). Use the command in the "
                    "thread of the one you mean: {threads}.",
                    threads=threads,
                ),
            )
        if kind is not None and here:
            other = here[0]
            raise NoGameHere(
                "The game here is {title} (#{game_id}), not {wanted}. Use the /{command} commands or /game.",
                title=self.games.rules_for(other.row.kind).TITLE,
                game_id=other.id,
                wanted=self.games.rules_for(kind).TITLE,
                command=other.row.kind,
            )
        if kind:
            raise NoGameHere(
                "There is no {title} game in this channel. Start one with /{command} new.",
                title=self.games.rules_for(kind).TITLE,
                command=kind,
            )
        raise NoGameHere("There is no live game in this channel. Start one with /<game> new.")
