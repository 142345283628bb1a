"""The bot's one cache: the games being played, parsed (`GameCache`), and the players' DM links."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

from bot.service.model import Loaded
from bot.storage import DmLink, GameRow

CACHE_SIZE = 4096


def where_shown(known: GameRow, read: GameRow) -> GameRow:
    """``read`` (a row read back by a write, or from storage) with what ``known`` already knows of
    where the game is shown. The outbox stores a new board's id a moment after telling the cache, so
    a row read meanwhile may name an older board; a board's id grows with time (a snowflake), and a
    game never leaves its thread."""
    board = max(known.board_message_id or 0, read.board_message_id or 0) or None
    place = known.place_id if known.thread_id is not None else read.place_id
    lobby = read.lobby_message_id or known.lobby_message_id
    if (board, place, lobby) == (read.board_message_id, read.place_id, read.lobby_message_id):
        return read
    return replace(read, board_message_id=board, place_id=place, lobby_message_id=lobby)


def newer_link(known: DmLink, read: DmLink) -> DmLink:
    """A DM link as this process knows it and as storage has it: the one with the newer panel (a
    larger snowflake), which is the later news; with the same panel, DMs found closed by either."""
    mine, stored = known.panel_message_id or 0, read.panel_message_id or 0
    if mine != stored:
        return known if mine > stored else read
    return replace(read, blocked=known.blocked or read.blocked)


class GameCache:
    """The games being played, parsed (row and state), by id; and the live games of each channel.

    Invalidation: every write to a game goes through `GameService`, which puts the row the write
    returned (read back inside the write's own transaction); a row never replaces a newer version
    of itself. Message ids and the place (not a game change, no version bump) are updated in place by
    `GameService.set_messages` and when the outbox records what it did. A failed write evicts its
    game. Bounded: the least recently used games fall out first.

    The live games of a channel (those played there and those whose lobby card is there) are known
    only once read from storage (`know_at`); from then on every change keeps that list complete. A
    list that names a game fallen out of the cache is forgotten and read again.
    """

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._games: OrderedDict[int, Loaded] = OrderedDict()
        self._at: dict[int, set[int]] = {}  # channel or thread id -> its live games' ids
        self.epoch = 0  # counts changes to the lists above (a read from storage older than one is dropped)
        # Each player's DM link per game, as last read or recorded (DM links are written only when
        # the outbox records a panel sent or DMs found closed, and it tells the cache: `put_link`).
        self._links: OrderedDict[tuple[int, int], DmLink] = OrderedDict()
        # The rows of games that left the cache (evicted after a failed write, or the least recently
        # used), kept for where they are shown only: a board this process posted is stored a moment
        # later (shared, when the game's outbox lease is given up), so a row read back meanwhile
        # names an older board; without this, the next quiet move would edit that older board.
        self._gone: OrderedDict[int, GameRow] = OrderedDict()
        self._size = size

    def link(self, game_id: int, user_id: int) -> DmLink | None:
        return self._links.get((game_id, user_id))

    def put_link(self, link: DmLink) -> None:
        self._links[(link.game_id, link.user_id)] = link
        self._links.move_to_end((link.game_id, link.user_id))
        while len(self._links) > self._size:
            self._links.popitem(last=False)

    def forget_links_of(self, user_id: int) -> None:
        """Drop a person's DM links (their data was deleted: nothing of theirs stays, in memory either)."""
        for key in [key for key in self._links if key[1] == user_id]:
            del self._links[key]

    def get(self, game_id: int) -> Loaded | None:
        game = self._games.get(game_id)
        if game is not None:
            self._games.move_to_end(game_id)
        return game

    def live_at(self, channel_id: int) -> list[Loaded] | None:
        """The live games of a channel, or None when not known here."""
        ids = self._at.get(channel_id)
        if ids is None:
            return None
        games = [self._games.get(game_id) for game_id in sorted(ids)]
        known = [g for g in games if g is not None]
        if len(known) != len(games):
            del self._at[channel_id]
            return None
        return [g for g in known if g.row.live]

    def know_at(self, channel_id: int, games: Sequence[Loaded], epoch: int) -> list[Loaded]:
        """The live games of a channel: ``games`` as storage has them (read when the epoch was
        ``epoch``), with those the cache knows are there and storage does not yet (a game's thread
        is known here a moment before it is stored)."""
        ids = {g.id for g in games}
        here = list(games) + [
            g for g in self._games.values() if g.id not in ids and channel_id in g.row.places
        ]
        here = [g for g in here if channel_id in g.row.places]
        if epoch == self.epoch:
            self._at[channel_id] = {g.id for g in here}
        return sorted(here, key=lambda g: g.id)

    @staticmethod
    def _keys(row: GameRow | None) -> frozenset[int]:
        return row.places if row is not None else frozenset()

    def _index(self, old: GameRow | None, new: GameRow) -> None:
        before, after = self._keys(old), self._keys(new)
        if before == after:
            return
        self.epoch += 1
        for key in before - after:
            self._at.get(key, set()).discard(new.id)
        for key in after:
            ids = self._at.get(key)
            if ids is not None:
                ids.add(new.id)

    def put(self, game: Loaded) -> Loaded:
        cached = self._games.get(game.id)
        if cached is not None and cached.row.version > game.row.version:
            return cached
        known = cached.row if cached is not None else self._gone.pop(game.id, None)
        if known is not None:
            game = replace(game, row=where_shown(known, game.row))
        self._index(None if cached is None else cached.row, game.row)
        self._games[game.id] = game
        self._games.move_to_end(game.id)
        while len(self._games) > self._size:
            self._remember(self._games.popitem(last=False)[1].row)
        return game

    def evict(self, game_id: int) -> None:
        game = self._games.pop(game_id, None)
        if game is not None:
            self._remember(game.row)
            self.epoch += 1

    def _remember(self, row: GameRow) -> None:
        self._gone[row.id] = row
        self._gone.move_to_end(row.id)
        while len(self._gone) > self._size:
            self._gone.popitem(last=False)

    def set_messages(
        self,
        game_id: int,
        *,
        lobby_message_id: int | None,
        board_message_id: int | None,
        place_id: int | None = None,
    ) -> None:
        if lobby_message_id is None and board_message_id is None and place_id is None:
            return
        game = self._games.get(game_id)
        row = game.row if game is not None else self._gone.get(game_id)
        if row is None:
            return
        new = replace(
            row,
            lobby_message_id=lobby_message_id or row.lobby_message_id,
            board_message_id=board_message_id or row.board_message_id,
            place_id=place_id or row.place_id,
        )
        if game is None:  # (left the cache: kept for when it is read again)
            self._gone[game_id] = new
            return
        self._index(row, new)
        self._games[game_id] = replace(game, row=new)
