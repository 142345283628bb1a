"""Deferred answers still owed: a slow read-only command that answered "thinking..." and has not sent
its real answer yet (`bot.table.pending`).

An entry is written before the defer and deleted once the command is done. What a killed process
left is read back by that process at its restart: entries are kept under the name of the process
that wrote them (``holder``, the same after a restart; None when one process has the database alone,
which then owns every entry). An entry holds the interaction's webhook (application id and token,
valid 15 minutes: older entries are dropped by retention), who asked, in which language, and what
("/game analyse 12"): never more than the command itself said.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.driver import Repository
from bot.storage.rows import from_row


@dataclass(frozen=True)
class PendingAnswer:
    id: int
    application_id: int
    token: str
    user_id: int
    locale: str  # our language code (`bot.i18n.LANGUAGES`)
    asked: str
    holder: str | None
    created_at: float


_COLUMNS = "id, application_id, token, user_id, locale, asked, holder, created_at"


class PendingAnswers(Repository):
    async def note_pending_answer(
        self,
        *,
        application_id: int,
        token: str,
        user_id: int,
        locale: str,
        asked: str,
        holder: str | None,
        now: float,
    ) -> int:
        """A deferred answer noted as owed; its id."""
        rows = await self._write(
            "INSERT INTO pending_answers (application_id, token, user_id, locale, asked, holder, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (application_id, token, user_id, locale, asked, holder, now),
        )
        return int(rows[0][0])

    async def pending_answers(self, *, holder: str | None) -> list[PendingAnswer]:
        """The answers owed by the process ``holder`` (every one for None), oldest first."""
        where, args = ("", ()) if holder is None else (" WHERE holder = ?", (holder,))
        rows = await self._read(f"SELECT {_COLUMNS} FROM pending_answers{where} ORDER BY id", args)
        return [from_row(PendingAnswer, r) for r in rows]

    async def drop_pending_answer(self, *, entry_id: int) -> bool:
        """The entry deleted (the answer was given, or the person told to ask again); False when it
        was gone already."""
        rows = await self._write("DELETE FROM pending_answers WHERE id = ? RETURNING id", (entry_id,))
        return bool(rows)
