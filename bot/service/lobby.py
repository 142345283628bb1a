"""A lobby's life: opened (or opened again as a rematch), joined and left, computers seated and
removed, started; a game cancelled, a lobby expired. Each change is one transaction, checked on the
game's version and committed with the outbox effects it owes (given by the caller)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from bot.deadlines import DEFAULT_TIMEOUT
from bot.errors import GameOver, LobbyError, NotAllowed, NotAPlayer
from bot.i18n import Msg
from bot.players.seats import computer_name, is_computer, next_computer, people
from bot.rules.base import AnyRules, resolve_options
from bot.service.games import Games
from bot.service.model import Changed, Loaded
from bot.storage import GameRow, Storable, Written
from bot.storage.driver import Txn
from bot.storage.errors import Conflict
from bot.storage.games import cancel_change, lobby_change


class LobbyLife:
    def __init__(self, games: Games) -> None:
        self.games = games

    async def open_lobby(
        self,
        *,
        kind: str,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        options: Mapping[str, object],
        timeout_s: int = DEFAULT_TIMEOUT,
        effects: Sequence[Storable] = (),
    ) -> Changed:
        """A new lobby, committed with the ``effects`` it owes (its card)."""
        rules = self.games.rules_for(kind)
        resolved = resolve_options(rules.OPTIONS, options)
        written = await self.games.storage.create_lobby(
            kind=kind,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            host_name=host_name,
            options=resolved,
            seed=secrets.randbits(63),
            timeout_s=timeout_s,
            effects=effects,
        )
        self.games.changed()
        return Changed(self.games.load(written.row), written.effects)

    async def join(
        self, game_id: int, user_id: int, name: str, *, effects: Sequence[Storable] = ()
    ) -> Changed:
        async with self.games.lock(game_id):
            game = await self.games.get(game_id)
            row = game.row
            self._require_lobby(row)
            if user_id in row.seats:
                raise LobbyError("You are already in this lobby.")
            self._require_room(row, game.rules)
            written = await self.games.write(
                game_id,
                self.games.storage.update_lobby(
                    game_id=game_id,
                    expected_version=row.version,
                    seats=(*zip(row.seats, row.names, strict=True), (user_id, name)),
                    host_id=row.host_id,
                    effects=effects,
                ),
            )
            return Changed(self.games.load(written.row), written.effects)

    async def rematch(
        self,
        game_id: int,
        user_id: int,
        name: str,
        *,
        opened: Sequence[Storable] = (),
        joined: Sequence[Storable] = (),
    ) -> tuple[Changed, bool]:
        """A player of the finished game ``game_id`` asks for a rematch: the live rematch lobby if there
        is one, joined; else a new lobby (same game, channel, options, time per move) with them as host
        and the game's computers seated again at their levels. The lobby, and whether it is new."""
        old = (await self.games.get(game_id)).row
        kind = self.games.rules_for(old.kind)
        if old.status != "finished":
            raise LobbyError(
                "Game #{game_id} is not over: a rematch follows a finished game.", game_id=game_id
            )
        if user_id not in old.seats:
            raise NotAPlayer(
                "Only the players of game #{game_id} can ask for its rematch. "
                "Join the rematch's lobby with its Join button, or open a game with /{command} new.",
                game_id=game_id,
                command=old.kind,
            )
        for _ in range(3):  # a concurrent click may open it first: then join that one
            existing = await self.games.storage.live_rematch(of_game=game_id)
            if existing is not None:
                if existing.status != "lobby":
                    raise LobbyError(
                        "The rematch of game #{game_id}, game #{rematch_id}, has already started.",
                        game_id=game_id,
                        rematch_id=existing.id,
                    )
                if user_id in existing.seats:
                    raise LobbyError(
                        "You are already in the rematch of game #{game_id}: game #{rematch_id}.",
                        game_id=game_id,
                        rematch_id=existing.id,
                    )
                return await self.join(existing.id, user_id, name, effects=joined), False
            computers = [(u, n) for u, n in zip(old.seats, old.names, strict=True) if is_computer(u)]
            seats = [(user_id, name), *computers][: kind.MAX_PLAYERS]
            try:
                written = await self.games.storage.create_rematch(
                    of_game=old, host_id=user_id, seats=seats, seed=secrets.randbits(63), effects=opened
                )
            except Conflict:  # another process opened it between the check and the insert
                continue
            if written is not None:
                self.games.changed()
                return Changed(self.games.load(written.row), written.effects), True
        raise LobbyError(
            "The rematch of game #{game_id} is being opened: try again in a moment.", game_id=game_id
        )

    async def leave_lobby(self, game_id: int, user_id: int, *, effects: Sequence[Storable] = ()) -> Changed:
        """Leave a lobby; the host role passes to the next player; the last one out cancels it."""
        async with self.games.lock(game_id):
            row = (await self.games.get(game_id)).row
            write = self.games.storage.write(self.leaving(row, user_id, effects))
            return self.left(await self.games.write(game_id, write))

    def leaving(self, row: GameRow, user_id: int, effects: Sequence[Storable] = ()) -> Txn[Written]:
        """The statements that take ``user_id`` out of the lobby (checked first; to run alone, as
        `leave_lobby` does, or with others in one transaction; then `left`)."""
        self._require_lobby(row)
        if user_id not in row.seats:
            raise NotAPlayer("You are not in this lobby.")
        seats = tuple((u, n) for u, n in zip(row.seats, row.names, strict=True) if u != user_id)
        if not people(u for u, _ in seats):  # only computers left: nobody to play with
            return cancel_change(row.id, row.version, effects=effects)
        host = row.host_id if row.host_id != user_id else people(u for u, _ in seats)[0]
        return lobby_change(row.id, row.version, seats=seats, host_id=host, effects=effects)

    def left(self, written: Written) -> Changed:
        return Changed(self.games.load(written.row), written.effects)

    async def add_computer(
        self, game_id: int, user_id: int, level: str, *, effects: Sequence[Storable] = ()
    ) -> Changed:
        """The host seats a computer player at ``level`` in the lobby."""
        async with self.games.lock(game_id):
            row = (await self.games.get(game_id)).row
            self._require_lobby(row)
            if user_id != row.host_id:
                raise NotAllowed("Only the host, {host}, can add computer players.", host=f"<@{row.host_id}>")
            self._require_room(row, self.games.rules_for(row.kind))
            computer = next_computer(row.seats, level)
            seats = (*zip(row.seats, row.names, strict=True), (computer, computer_name(computer)))
            return await self._reseat(row, seats, effects)

    async def remove_computer(
        self, game_id: int, user_id: int, *, effects: Sequence[Storable] = ()
    ) -> Changed:
        """The host takes the computer player seated last out of the lobby."""
        async with self.games.lock(game_id):
            row = (await self.games.get(game_id)).row
            self._require_lobby(row)
            if user_id != row.host_id:
                raise NotAllowed(
                    "Only the host, {host}, can remove computer players.", host=f"<@{row.host_id}>"
                )
            computers = [u for u in row.seats if is_computer(u)]
            if not computers:
                raise LobbyError("There is no computer player in this lobby.")
            seats = tuple((u, n) for u, n in zip(row.seats, row.names, strict=True) if u != computers[-1])
            return await self._reseat(row, seats, effects)

    async def _reseat(
        self, row: GameRow, seats: Sequence[tuple[int, str]], effects: Sequence[Storable]
    ) -> Changed:
        """The lobby's seats replaced (its host kept)."""
        write = self.games.storage.update_lobby(
            game_id=row.id, expected_version=row.version, seats=seats, host_id=row.host_id, effects=effects
        )
        written = await self.games.write(row.id, write)
        return Changed(self.games.load(written.row), written.effects)

    async def start(
        self,
        game_id: int,
        user_id: int,
        *,
        effects: Callable[[Loaded], Sequence[Storable]] = lambda g: (),
        place: str | None = None,
    ) -> Changed:
        async with self.games.lock(game_id):
            game = await self.games.get(game_id)
            row, rules = game.row, game.rules
            self._require_lobby(row)
            if user_id != row.host_id:
                raise NotAllowed("Only the host, {host}, can start the game.", host=f"<@{row.host_id}>")
            if len(row.seats) < rules.MIN_PLAYERS:
                raise LobbyError(
                    Msg.n(
                        "{title} needs at least {count} player; the lobby has {joined}. "
                        "Wait for someone to press Join.",
                        "{title} needs at least {count} players; the lobby has {joined}. "
                        "Wait for someone to press Join.",
                        rules.MIN_PLAYERS,
                        title=rules.TITLE,
                        joined=len(row.seats),
                    )
                )
            state = rules.new_game(len(row.seats), row.options, row.seed)
            started = Loaded(
                row=replace(row, status="active", version=row.version + 1, start_place=place),
                rules=rules,
                state=state,
            )
            written = await self.games.write(
                game_id,
                self.games.storage.start_game(
                    game_id=game_id,
                    expected_version=row.version,
                    state=state.to_dict(),
                    waiting=sorted(rules.to_act(state)),
                    effects=effects(started),
                    place=place,
                ),
            )
            started = self.games.cache.put(Loaded(row=written.row, rules=rules, state=state))
            self.games.changed(started)
            return Changed(started, written.effects)

    async def cancel(
        self, game_id: int, user_id: int, *, can_manage: bool, effects: Sequence[Storable] = ()
    ) -> Changed:
        async with self.games.lock(game_id):
            row = (await self.games.get(game_id)).row
            if not row.live:
                raise GameOver("Game #{game_id} has already ended.", game_id=row.id)
            if user_id != row.host_id and not can_manage:
                raise NotAllowed(
                    "Only the host, {host}, or a member with Manage Messages can cancel this game.",
                    host=f"<@{row.host_id}>",
                )
            written = await self._cancel(row, effects)
        return self._closed(written)

    async def expire_lobby(self, game_id: int, *, effects: Sequence[Storable] = ()) -> Changed | None:
        async with self.games.lock(game_id):
            row = await self.games.storage.get_game(game_id=game_id)
            if row.status != "lobby":
                return None
            written = await self._cancel(row, effects)
        return self._closed(written)

    async def _cancel(self, row: GameRow, effects: Sequence[Storable]) -> Written:
        """Write a game's end by cancelling (its lock held)."""
        return await self.games.write(
            row.id,
            self.games.storage.cancel_game(game_id=row.id, expected_version=row.version, effects=effects),
        )

    def _closed(self, written: Written) -> Changed:
        """A game that has ended, once its lock is let go of: released, and its change (the
        listeners told: a tournament's round may be over)."""
        self.games.release(written.row.id)
        closed = self.left(written)
        self.games.changed(closed.game)
        return closed

    @staticmethod
    def _require_room(row: GameRow, rules: AnyRules) -> None:
        """A seat is free in the lobby, or `LobbyError`."""
        if len(row.seats) >= rules.MAX_PLAYERS:
            raise LobbyError(
                Msg.n(
                    "The lobby is full: {title} takes at most {count} player.",
                    "The lobby is full: {title} takes at most {count} players.",
                    rules.MAX_PLAYERS,
                    title=rules.TITLE,
                )
            )

    @staticmethod
    def _require_lobby(row: GameRow) -> None:
        if row.status == "active":
            raise LobbyError("Game #{game_id} has already started.", game_id=row.id)
        if not row.live:
            raise GameOver("Game #{game_id} has ended.", game_id=row.id)
