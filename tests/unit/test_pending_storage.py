"""Deferred answers owed, in storage (bot/storage/pending.py): each process reads back only its own
entries (all of them when it has the database alone); an entry goes once; retention drops those
whose token has expired; forgetting a person deletes theirs, and their export lists them without
the token."""

from __future__ import annotations

import pytest

from bot.storage import Storage

ANN, BOB = 11, 12
NOW = 1_700_000_000.0

pytestmark = pytest.mark.both_dbs


async def note(storage: Storage, user: int, asked: str, holder: str | None, at: float = NOW) -> int:
    return await storage.note_pending_answer(
        application_id=99,
        token=f"token-{asked}",
        user_id=user,
        locale="fr",
        asked=asked,
        holder=holder,
        now=at,
    )


async def test_each_process_reads_back_its_own_entries_and_each_goes_once(storage: Storage) -> None:
    a1 = await note(storage, ANN, "/game analyse 1", "host-a")
    b1 = await note(storage, BOB, "/game replay 2", "host-b")
    a2 = await note(storage, BOB, "/game mine", "host-a")
    mine = await storage.pending_answers(holder="host-a")
    assert [e.id for e in mine] == [a1, a2]
    assert (mine[0].application_id, mine[0].token, mine[0].user_id, mine[0].locale) == (
        99,
        "token-/game analyse 1",
        ANN,
        "fr",
    )
    assert (mine[0].asked, mine[0].holder, mine[0].created_at) == ("/game analyse 1", "host-a", NOW)
    assert [e.id for e in await storage.pending_answers(holder=None)] == [a1, b1, a2]  # (alone: all)
    assert await storage.drop_pending_answer(entry_id=a1) is True
    assert await storage.drop_pending_answer(entry_id=a1) is False
    assert [e.id for e in await storage.pending_answers(holder="host-a")] == [a2]


async def test_retention_drops_entries_whose_token_expired(storage: Storage) -> None:
    await note(storage, ANN, "/game hint 3", None, at=NOW - 20 * 60)
    kept = await note(storage, ANN, "/game puzzle", None, at=NOW)
    assert await storage.drop_stale_tokens(tokens_before=NOW - 14 * 60, replies_before=0.0) == (1, 0)
    assert [e.id for e in await storage.pending_answers(holder=None)] == [kept]


async def test_a_person_forgotten_leaves_no_entry_and_an_export_lists_theirs_without_token(
    storage: Storage,
) -> None:
    await note(storage, ANN, "/game analyse 4", None)
    bobs = await note(storage, BOB, "/game analyse 4", None)
    exported = await storage.export_user(user_id=ANN)
    assert exported["answers_owed"] == [{"asked": "/game analyse 4", "at": NOW}]
    assert "token" not in str(exported)
    await storage.forget_user(user_id=ANN)
    assert [e.id for e in await storage.pending_answers(holder=None)] == [bobs]
