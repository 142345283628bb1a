"""Computer players at the table: they move when the rules wait for them, like people.

A computer's seat is awaited like a person's: a row in `waits`, written in the same transaction as the
move that made the rules wait for it. The scheduler finds the rows of computer seats a short pause
(`pause`, default 2 s, so people can follow) after they began, and `Computers.due` starts the move in a
task of its own. The move reads the computer's own view (exactly what a person in that seat would
see), asks the game's pure player (`bot.players`) for an action in a worker process (`Minds`: off the
event loop, so other games never wait for a search), and plays it
through the path a person's move takes (the move log, the board, the announcements), checked against
the version it was chosen for. Whatever a crash interrupts is still awaited in the database, so the
move happens after a restart, and only once (a second try meets a newer version and stops).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.errors import GameError
from bot.players.seats import is_computer, level_of
from bot.service import Games, Loaded
from bot.spec import Player
from bot.storage import Storage
from bot.table.catalog import Catalog
from bot.table.minds import Minds
from bot.table.play import Plays

log = logging.getLogger(__name__)

PAUSE = 2.0  # seconds between the rules waiting for a computer and its move
RETRY_AFTER = 60.0  # seconds before a computer's failed move is tried again


@dataclass
class Computers:
    games: Games
    storage: Storage
    catalog: Catalog
    plays: Plays
    pause: float = PAUSE
    minds: Minds = field(default_factory=Minds)
    # Told when a computer's move has ended (the scheduler then looks at what is due again).
    on_finished: Callable[[], None] | None = None
    _running: dict[tuple[int, int], asyncio.Task[None]] = field(default_factory=dict, init=False)

    @staticmethod
    def awaited(game: Loaded) -> bool:
        """Whether the rules now wait for a computer in ``game``."""
        if not game.row.live or game.state is None:
            return False
        seats = game.row.seats
        return any(is_computer(seats[s]) for s in game.rules.to_act(game.state) if s < len(seats))

    def busy(self, game_id: int, seat: int) -> bool:
        """Whether this process is making that computer's move already."""
        return (game_id, seat) in self._running

    def due(self, game_id: int, seat: int, *, now: float) -> None:
        """A computer's move is due: make it in a task of its own (unless one is under way)."""
        key = (game_id, seat)
        if key in self._running:
            return
        task = asyncio.get_running_loop().create_task(
            self._move(game_id, seat, now), name=f"quetbot-computer-{game_id}-{seat}"
        )
        self._running[key] = task

        def finished(_: object) -> None:
            self._running.pop(key, None)
            # Look at what is due again: the wait may still be there (the move lost a race with
            # another computer's, or failed), and the pass that claimed it may have slept past it.
            if self.on_finished is not None:
                self.on_finished()

        task.add_done_callback(finished)

    async def _move(self, game_id: int, seat: int, now: float) -> None:
        try:
            await self.move(game_id, seat)
        except Exception:
            log.exception("Computer %s of game %s could not move; trying again later", seat, game_id)
            await self.storage.delay_computer(game_id=game_id, seat=seat, until=now + RETRY_AFTER)

    async def move(self, game_id: int, seat: int) -> bool:
        """The computer in ``seat`` makes its move, if the rules still wait for it. True if it did."""
        game = await self.games.get(game_id)
        seats = game.row.seats
        if not game.row.live or game.state is None or seat >= len(seats) or not is_computer(seats[seat]):
            await self.storage.drop_wait(game_id=game_id, seat=seat)
            return False
        if seat not in game.rules.to_act(game.state):
            await self.storage.drop_wait(game_id=game_id, seat=seat)
            return False
        view = game.view(seat)  # what a person in this seat would see, and nothing more
        rng = random.Random(f"{game.row.seed}:{game.row.version}:{seat}")  # the same choice on a retry
        action = await self.minds.choose(self._player(game.row.kind), view, level_of(seats[seat]), rng)
        try:
            return await self.plays.act_computer(game, seat, action)
        except GameError as exc:  # the game moved on meanwhile (another try, a forfeit): nothing to do
            log.info("The computer's move in game %s was not taken: %s", game_id, exc)
            return False

    def _player(self, kind: str) -> Player:
        player = self.catalog.get(kind).player
        if player is None:
            raise LookupError(f"No computer player for {kind!r}.")
        return player

    def running(self) -> list[asyncio.Task[None]]:
        """The computers' moves under way."""
        return list(self._running.values())

    async def stop(self) -> None:
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.minds.stop()
