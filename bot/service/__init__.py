"""The game framework below Discord: finding games, lobbies, moves and their history.

The table machinery calls this; it calls the pure rules and the storage. Every check that decides
*who* may do *what* lives here, so a button, a slash command and a DM reply are held to the same
rules. Every change is committed together with what it owes the world (outbox effects, planned by the
caller). Nothing here imports discord. One object per job:

- `Games` (games.py): the games as this process knows them (the cache, cache.py), each one's lock,
  every write, where a game is shown, the players' DM links;
- `Finder` (finder.py): which game a place and a person mean;
- `LobbyLife` (lobby.py): a lobby opened, joined, left, started; a game cancelled;
- `Moves` (moves.py): a move checked, applied and committed; a deadline's forfeit;
- `Histories` (history.py): a game replayed from its log.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.rules.base import AnyRules
from bot.service.cache import GameCache
from bot.service.finder import Finder
from bot.service.games import Changes, Games
from bot.service.history import Histories
from bot.service.lobby import LobbyLife
from bot.service.model import Changed, History, Loaded, MoveResult, Owed, Step
from bot.service.moves import Moves
from bot.storage import Storage

__all__ = [
    "Changed",
    "Changes",
    "Finder",
    "GameCache",
    "Games",
    "Histories",
    "History",
    "Loaded",
    "LobbyLife",
    "MoveResult",
    "Moves",
    "Owed",
    "Services",
    "Step",
]


@dataclass(frozen=True)
class Services:
    """The service layer's objects, built together over one storage (the composition root hands
    each table object the ones it uses)."""

    games: Games
    finder: Finder
    lobby: LobbyLife
    moves: Moves
    history: Histories

    @classmethod
    def build(
        cls,
        storage: Storage,
        rules: Mapping[str, AnyRules],
        *,
        shared: bool = False,
        changes: Changes | None = None,
    ) -> Services:
        games = Games(storage, rules, shared=shared, changes=changes)
        return cls(games, Finder(games), LobbyLife(games), Moves(games), Histories(games))
