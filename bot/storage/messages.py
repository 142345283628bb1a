"""Where a game is shown: its place (thread), lobby card and latest board (on the game row), and
each player's private channel for it (``dm_links``: DMs closed?, the latest DM panel).

None of these is a game change: no version bump, so writing them never makes a board stale.
"""

from __future__ import annotations

from bot.storage.driver import Q, Repository, Txn
from bot.storage.rows import DmLink


def set_message_ids(
    game_id: int,
    *,
    lobby_message_id: int | None = None,
    board_message_id: int | None = None,
    place_id: int | None = None,
) -> Txn[None]:
    assignments: list[str] = []
    args: list[int] = []
    if lobby_message_id is not None:
        assignments.append("lobby_message_id = ?")
        args.append(lobby_message_id)
    if board_message_id is not None:
        # The newest board wins (a message id grows with time), whichever completion commits last:
        # two of them for one game may commit out of order (PostgreSQL's pool, several processes).
        assignments.append(
            "board_message_id = CASE WHEN board_message_id > ? THEN board_message_id ELSE ? END"
        )
        args += [board_message_id, board_message_id]
    if place_id is not None:
        assignments.append("place_id = ?")
        args.append(place_id)
    if assignments:
        yield Q(f"UPDATE games SET {', '.join(assignments)} WHERE id = ?", (*args, game_id))


def read_link(game_id: int, user_id: int) -> Txn[DmLink]:
    rows = yield Q(
        "SELECT blocked, dm_channel_id, panel_message_id FROM dm_links WHERE game_id = ? AND user_id = ?",
        (game_id, user_id),
    )
    if not rows:
        return DmLink(
            game_id=game_id, user_id=user_id, blocked=False, dm_channel_id=None, panel_message_id=None
        )
    blocked, dm_channel_id, panel_message_id = rows[0]
    return DmLink(
        game_id=game_id,
        user_id=user_id,
        blocked=bool(blocked),
        dm_channel_id=dm_channel_id,
        panel_message_id=panel_message_id,
    )


def mark_blocked(game_id: int, user_id: int) -> Txn[bool]:
    """True the first time (the row answers only when it was inserted or switched to closed)."""
    rows = yield Q(
        "INSERT INTO dm_links (game_id, user_id, blocked) VALUES (?, ?, 1) "
        "ON CONFLICT (game_id, user_id) DO UPDATE SET blocked = 1 WHERE dm_links.blocked = 0 "
        "RETURNING 1",
        (game_id, user_id),
    )
    return bool(rows)


def set_panel(game_id: int, user_id: int, dm_channel_id: int, panel_message_id: int) -> Txn[None]:
    """A panel was delivered: the DMs are open, and this is the panel to take controls off next."""
    yield Q(
        "INSERT INTO dm_links (game_id, user_id, blocked, dm_channel_id, panel_message_id) "
        "VALUES (?, ?, 0, ?, ?) ON CONFLICT (game_id, user_id) DO UPDATE SET "
        "blocked = 0, dm_channel_id = excluded.dm_channel_id, "
        "panel_message_id = excluded.panel_message_id",
        (game_id, user_id, dm_channel_id, panel_message_id),
    )


class Messages(Repository):
    async def set_messages(
        self,
        *,
        game_id: int,
        lobby_message_id: int | None = None,
        board_message_id: int | None = None,
        place_id: int | None = None,
    ) -> None:
        """Remember where the lobby card, the latest board and the game's thread are (not a game
        change: no version bump)."""
        if lobby_message_id is None and board_message_id is None and place_id is None:
            return
        await self._db.write(
            set_message_ids(
                game_id,
                lobby_message_id=lobby_message_id,
                board_message_id=board_message_id,
                place_id=place_id,
            )
        )

    async def get_dm_link(self, *, game_id: int, user_id: int) -> DmLink:
        return await self._db.read(read_link(game_id, user_id))

    async def mark_dm_blocked(self, *, game_id: int, user_id: int) -> bool:
        """Record that the player's DMs are closed; True the first time (when to post the notice)."""
        return await self._db.write(mark_blocked(game_id, user_id))

    async def set_dm_panel(
        self, *, game_id: int, user_id: int, dm_channel_id: int, panel_message_id: int
    ) -> None:
        await self._db.write(set_panel(game_id, user_id, dm_channel_id, panel_message_id))
