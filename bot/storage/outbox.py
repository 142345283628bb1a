"""The outbox: what committed changes still owe the world, durably, in one global order.

A move (or a lobby change, a cancel, a reminder) writes its effects (a `Storable`: post the board,
update a DM panel, ...) in the same transaction as the change itself, so either both are committed
or neither is. Whoever carries an item out calls `complete_effect`, which deletes it and records
what came of it (the board's message id, a DM panel, closed DMs) and queues its follow-ups, again in
one transaction. Deleting is the claim: of two workers that both carried out an item, only one
completes it, and only that one's follow-ups are written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot import clock
from bot.storage.driver import Q, Repository, Txn
from bot.storage.messages import mark_blocked, set_message_ids, set_panel
from bot.storage.rows import CompleteResult, OutboxItem, Storable, dumps, from_row

_COLUMNS = "id, game_id, kind, args, token, created_at, attempts, not_before"


def lock_game(game_id: int) -> Txn[None]:
    """Hold the game's row lock until the transaction ends (a change to nothing). Taken first by a
    transaction that also changes other rows the game's moves change (its waits), so that two
    transactions never wait for each other."""
    yield Q("UPDATE games SET version = version WHERE id = ?", (game_id,))


def insert_effects(
    game_id: int, effects: Sequence[Storable], *, locked: bool = False
) -> Txn[tuple[OutboxItem, ...]]:
    """Append the effects, in order, after every item already in the outbox (ids only grow).

    A game's items get their ids holding the game's row lock (taken here unless the transaction
    holds it already, ``locked``: it changed the row), so they commit in the order of their ids:
    a process that read the game's pending items has seen every item below the highest it saw
    (what `bot.table.outbox` relies on when processes share the database)."""
    if not effects:
        return ()
    if not locked:
        yield from lock_game(game_id)
    now = clock.now()
    items = []
    for effect in effects:
        rows = yield Q(
            f"INSERT INTO outbox (game_id, kind, args, token, created_at) VALUES (?, ?, ?, ?, ?) "
            f"RETURNING {_COLUMNS}",
            (game_id, effect.kind, dumps(dict(effect.args)), effect.token, now),
        )
        items.append(from_row(OutboxItem, rows[0]))
    return tuple(items)


@dataclass(frozen=True)
class Completion:
    """What carrying out one outbox item produced (see `Outbox.complete_effect`)."""

    item_id: int
    board_message_id: int | None = None
    lobby_message_id: int | None = None
    place_id: int | None = None  # the game's thread, once it has one
    dm_panel: tuple[int, int, int, int] | None = None  # (game_id, user_id, dm_channel_id, panel_id)
    dm_blocked: tuple[int, int] | None = None  # (game_id, user_id)
    then: tuple[Storable, ...] = ()


def _complete(c: Completion) -> Txn[CompleteResult]:
    rows = yield Q("DELETE FROM outbox WHERE id = ? RETURNING game_id", (c.item_id,))
    if not rows:
        return CompleteResult(completed=False)
    game_id = int(rows[0][0])
    yield from set_message_ids(
        game_id,
        lobby_message_id=c.lobby_message_id,
        board_message_id=c.board_message_id,
        place_id=c.place_id,
    )
    if c.dm_panel is not None:
        yield from set_panel(*c.dm_panel)
    newly_blocked = False
    if c.dm_blocked is not None:
        newly_blocked = yield from mark_blocked(*c.dm_blocked)
    items = yield from insert_effects(game_id, c.then)
    return CompleteResult(completed=True, newly_blocked=newly_blocked, effects=items)


class Outbox(Repository):
    async def add_effects(self, *, game_id: int, effects: Sequence[Storable]) -> list[OutboxItem]:
        return list(await self._db.write(insert_effects(game_id, effects)))

    async def complete_effect(
        self,
        *,
        item_id: int,
        board_message_id: int | None = None,
        lobby_message_id: int | None = None,
        dm_panel: tuple[int, int, int, int] | None = None,  # (game_id, user_id, dm_channel_id, panel_id)
        dm_blocked: tuple[int, int] | None = None,  # (game_id, user_id)
        then: Sequence[Storable] = (),
    ) -> CompleteResult:
        """One transaction: delete the item and record what carrying it out produced.

        If the item is already gone, nothing is written and ``completed`` is False. Otherwise the
        item's game gets the board / lobby message id given (no version bump), the DM link is set or
        marked closed, and ``then`` is queued for the same game after everything already queued.
        """
        completion = Completion(
            item_id,
            board_message_id=board_message_id,
            lobby_message_id=lobby_message_id,
            dm_panel=dm_panel,
            dm_blocked=dm_blocked,
            then=tuple(then),
        )
        return (await self.complete_effects(completions=(completion,)))[0]

    async def complete_effects(self, *, completions: Sequence[Completion]) -> list[CompleteResult]:
        """`complete_effect` for several items, in order, in one transaction."""

        def work() -> Txn[list[CompleteResult]]:
            results = []
            for completion in completions:
                results.append((yield from _complete(completion)))
            return results

        return await self._db.write(work())

    async def retry_effect(self, *, item_id: int, not_before: float) -> None:
        """Carrying the item out failed: count the attempt and try again at ``not_before``."""
        await self._write(
            "UPDATE outbox SET attempts = attempts + 1, not_before = ? WHERE id = ?",
            (not_before, item_id),
        )

    async def pending_effects(
        self, *, now: float, limit: int = 200, holder: str | None = None, after: int = 0
    ) -> list[OutboxItem]:
        """The items due at ``now``, in their global order, at most ``limit`` of them, from the one
        after item ``after`` (to read the next page). With ``holder`` (processes sharing the
        database), only those of games nobody else holds a live lease on."""
        if holder is None:
            rows = await self._read(
                f"SELECT {_COLUMNS} FROM outbox WHERE not_before <= ? AND id > ? ORDER BY id LIMIT ?",
                (now, after, limit),
            )
        else:
            rows = await self._read(
                f"SELECT {', '.join('o.' + c for c in _COLUMNS.split(', '))} FROM outbox o "
                "LEFT JOIN outbox_leases l ON l.game_id = o.game_id "
                "WHERE o.not_before <= ? AND o.id > ? "
                "AND (l.game_id IS NULL OR l.expires < ? OR l.holder = ?) "
                "ORDER BY o.id LIMIT ?",
                (now, after, now, holder, limit),
            )
        return [from_row(OutboxItem, r) for r in rows]

    # ---- leases: which process carries out a game's items (processes sharing the database) ----

    async def claim_outbox(
        self, *, game_id: int, holder: str, now: float, expires: float
    ) -> list[OutboxItem] | None:
        """Take the game's outbox lease for ``holder`` until ``expires`` (or renew it): granted when
        nobody holds it, the holder's lease has expired (that process died or stalled), or it is
        ``holder``'s already. Then every item of the game still pending, in order (the holder carries
        out all of them, whoever wrote them, so that a game's news keeps its order); None when
        another process holds a live lease."""

        def work() -> Txn[list[OutboxItem] | None]:
            granted = yield Q(
                "INSERT INTO outbox_leases (game_id, holder, expires) VALUES (?, ?, ?) "
                "ON CONFLICT (game_id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires "
                "WHERE outbox_leases.holder = excluded.holder OR outbox_leases.expires < ? "
                "RETURNING game_id",
                (game_id, holder, expires, now),
            )
            if not granted:
                return None
            rows = yield Q(f"SELECT {_COLUMNS} FROM outbox WHERE game_id = ? ORDER BY id", (game_id,))
            return [from_row(OutboxItem, r) for r in rows]

        return await self._db.write(work())

    async def release_outbox(
        self, *, game_id: int, holder: str, completions: Sequence[Completion] = ()
    ) -> list[CompleteResult]:
        """One transaction: record ``completions`` (as `complete_effects`) and give the game's lease
        up (if ``holder`` still holds it). An item written meanwhile by another process is carried
        out by that process, which waits for the lease (or by anyone's pass over pending items)."""

        def work() -> Txn[list[CompleteResult]]:
            results = []
            for completion in completions:
                results.append((yield from _complete(completion)))
            yield Q("DELETE FROM outbox_leases WHERE game_id = ? AND holder = ?", (game_id, holder))
            return results

        return await self._db.write(work())

    async def release_leases(self, *, holder: str) -> int:
        """Give up every outbox lease ``holder`` holds (a graceful stop): another process carries
        out those games' items at once. How many were released."""
        rows = await self._write("DELETE FROM outbox_leases WHERE holder = ? RETURNING game_id", (holder,))
        return len(rows)

    async def pending_of(self, *, item_ids: Sequence[int]) -> set[int]:
        """Which of ``item_ids`` are still in the outbox (not yet completed by anyone)."""
        if not item_ids:
            return set()
        marks = ", ".join("?" * len(item_ids))
        rows = await self._read(f"SELECT id FROM outbox WHERE id IN ({marks})", tuple(item_ids))
        return {int(r[0]) for r in rows}

    async def effects_of_game(self, *, game_id: int) -> list[OutboxItem]:
        rows = await self._read(f"SELECT {_COLUMNS} FROM outbox WHERE game_id = ? ORDER BY id", (game_id,))
        return [from_row(OutboxItem, r) for r in rows]

    async def next_effect_due(self) -> float | None:
        rows = await self._read("SELECT MIN(not_before) FROM outbox")
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    async def clear_token(self, *, item_id: int) -> None:
        """Forget the item's interaction token (expired, or no longer needed)."""
        await self._write("UPDATE outbox SET token = NULL WHERE id = ?", (item_id,))
