"""People's data at the storage level (bot/storage/privacy.py), on SQLite and PostgreSQL: the export
holds the person's games and none of another player's unrevealed secrets; forgetting someone leaves
their id in no cell of any table and (SQLite) nowhere in the file's bytes, moves nobody else's rating,
keeps every game replaying to its stored state, and takes them off the leaderboards; retention drops
old interaction tokens and typed answers."""

from __future__ import annotations

import random
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.registry import GAMES, RULES, SCORE_RANKED, choose
from bot.rules.base import FORFEIT
from bot.scheduler import RETENTION_EVERY, TOKEN_KEPT, Scheduler
from bot.service import Loaded, Services
from bot.storage import Effect, StaleVersion, Storage, sqlite_path
from bot.storage.driver import Q, Txn
from bot.storage.privacy import DELETED_NAME, is_deleted
from bot.table.outbox import Outbox
from tests.db import query

pytestmark = pytest.mark.both_dbs

ME = 1_234_567_890_123_456_789  # a Discord-sized id (8 bytes in SQLite's record format)
ANN, BEA = 1_111_111_111_111_111_111, 1_222_222_222_222_222_222
SECRET = [name for name, spec in GAMES.items() if spec.secret]


@pytest.fixture
async def service(database: str) -> AsyncIterator[Services]:
    storage = await Storage.open(database, score_ranked=SCORE_RANKED)
    yield Services.build(storage, RULES)
    await storage.close()


async def table(service: Services, kind: str, options: dict[str, int], users: list[int]) -> Loaded:
    game = (
        await service.lobby.open_lobby(
            kind=kind, guild_id=7, channel_id=70, host_id=users[0], host_name=f"n{users[0]}", options=options
        )
    ).game
    for user in users[1:]:
        game = (await service.lobby.join(game.id, user, f"n{user}")).game
    return (await service.lobby.start(game.id, users[0])).game


async def step(service: Services, game: Loaded, rng: random.Random, only: int | None = None) -> Loaded:
    """Each seat asked to act (or only ``only``) makes a move a computer would make."""
    for seat in sorted(game.rules.to_act(game.state)):
        if only is not None and seat != only:
            continue
        action = choose(game.row.kind, game.view(seat), "easy", rng)
        game = (await service.moves.act(game.id, game.row.seats[seat], action)).after
        if not game.row.live:
            break
    return game


async def play_out(service: Services, game: Loaded, rng: random.Random) -> Loaded:
    while game.row.live:
        game = await step(service, game, rng)
    return game


async def every_cell(storage: Storage) -> list[tuple[str, str, str]]:
    """(table, column, text) of every non-null cell of every table."""

    def work() -> Txn[list[tuple[str, str, str]]]:
        names = yield Q(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            if "Postgres" in type(storage.driver).__name__
            else "SELECT name FROM sqlite_master WHERE type = 'table'"
        )
        cells = []
        for (name,) in names:
            rows = yield Q(f"SELECT * FROM {name}")
            for row in rows:
                cells += [(str(name), str(i), str(value)) for i, value in enumerate(row) if value is not None]
        return cells

    return await storage.driver.read(work())


async def test_export_holds_the_callers_games_and_no_other_players_secret(service: Services) -> None:
    storage, rng = service.games.storage, random.Random(3)
    finished = await play_out(service, await table(service, "numbers", {"m": 3}, [ME, ANN]), rng)
    live = await table(service, "numbers", {"m": 3}, [ME, ANN])
    live = await step(service, live, rng, only=1)  # Ann picks, secretly; the round is not revealed
    public = await play_out(service, await table(service, "dots", {"size": 3}, [ANN, ME]), rng)
    await storage.set_user_setting(user_id=ME, key="locale", value="fr")
    await storage.set_user_setting(user_id=ANN, key="locale", value="de")

    data = await storage.export_user(user_id=ME, secret_kinds=SECRET)
    assert [g["game"] for g in data["games"]] == [finished.id, live.id, public.id]
    assert data["settings"] == {"locale": "fr"}
    assert {(r["server"], r["game"]) for r in data["ratings"]} == {("7", "numbers"), ("7", "dots")}
    by_id = {g["game"]: g for g in data["games"]}
    over = by_id[finished.id]
    assert over["server"] == "7" and over["players"] == [f"n{ME}", f"n{ANN}"] and over["your_seat"] == 0
    logged = await storage.moves(game_id=finished.id)
    assert len(over["moves"]) == len(logged)
    for shown, move in zip(over["moves"], logged, strict=True):  # their own, now the game is over
        assert ("action" in shown) == (move.seat == 0 or move.action.get("type") == "forfeit")
    pending = by_id[live.id]["moves"]
    (anns,) = [m for m in pending if m["seat"] == 1]
    assert anns == {"seq": anns["seq"], "seat": 1, "at": anns["at"], "hidden": True}  # not Ann's pick
    ann_pick = (await storage.moves(game_id=live.id))[0].action
    assert str(ann_pick) not in str(by_id[live.id])
    assert all("action" in m for m in by_id[public.id]["moves"])  # no secrets in Dots and Boxes
    assert "de" not in str(data["settings"])
    assert data["time_away"] is None and data["quiet_hours"] is None and data["more_time_given"] == []

    # Time away, quiet hours and more time are theirs too (issue 27).
    now = 1_800_000_000.0
    await storage.go_away(user_id=ME, days=2, now=now)
    await storage.set_quiet(user_id=ME, starts=22 * 60 + 30, ends=7 * 60, tz="Europe/Berlin", next_end=now)
    live = await service.games.get(live.id)
    assert [w.seat for w in await storage.waits_of_game(game_id=live.id)] == [0]  # (my pick is awaited)
    await storage.extend_wait(game_id=live.id, seat=0, giver_id=ANN, seconds=7200, now=now)
    data = await storage.export_user(user_id=ME, secret_kinds=SECRET)
    assert data["time_away"] == {"from": now, "until": now + 2 * 86400, "earlier_in_the_last_30_days": []}
    assert data["quiet_hours"] == {"from": "22:30", "to": "07:00", "timezone": "Europe/Berlin"}
    assert data["more_time_received"] == [{"game": live.id, "hours": 2.0, "at": now}]
    assert data["more_time_given"] == []
    anns = await storage.export_user(user_id=ANN, secret_kinds=SECRET)
    assert anns["more_time_given"] == [{"game": live.id, "hours": 2.0, "at": now}]
    assert anns["time_away"] is None and str(ME) not in str(anns["more_time_given"])


async def test_delete_leaves_the_id_in_no_cell_and_others_ratings_unchanged(
    service: Services, database: str
) -> None:
    storage, rng = service.games.storage, random.Random(5)
    games = [await play_out(service, await table(service, "numbers", {"m": 3}, [ME, ANN]), rng)]
    games.append(await play_out(service, await table(service, "dots", {"size": 3}, [ANN, ME]), rng))
    games.append(await play_out(service, await table(service, "dots", {"size": 3}, [ANN, BEA]), rng))
    live = await table(service, "dots", {"size": 4}, [ME, ANN, BEA])  # forfeited; goes on without them
    lobby = (
        await service.lobby.open_lobby(
            kind="dots", guild_id=7, channel_id=71, host_id=ME, host_name="me", options={}
        )
    ).game
    await service.lobby.join(lobby.id, ANN, "Ann")
    await storage.set_user_setting(user_id=ME, key="notify", value="dm")
    await storage.add_typed_reply(user_id=ME, text="3")
    await storage.mark_dm_blocked(game_id=live.id, user_id=ME)
    await storage.add_effects(game_id=live.id, effects=[Effect("dm_closed", {"user_id": ME}, token="tok")])
    before = await storage.rating_table()

    # What /game privacy delete does (bot/table/privacy.py): in one transaction, leave the live games
    # (a forfeit, a lobby left), then forget.
    live, lobby = await service.games.get(live.id), await service.games.get(lobby.id)
    draft = service.moves.prepare(live, ME, FORFEIT)
    leaving = [service.moves.writing(draft), service.lobby.leaving(lobby.row, ME)]
    placeholder, seated, written, _ = await storage.forget_user(user_id=ME, leaving=leaving)
    assert [w.row.id for w in written] == [live.id, lobby.id]
    assert is_deleted(placeholder) and placeholder > 0
    assert set(seated) >= {g.id for g in games[:2]} | {live.id}

    cells = await every_cell(storage)
    assert cells and not [c for c in cells if str(ME) in c[2]]
    after = await storage.rating_table()
    others = {k: v for k, v in before.items() if k[2] != ME}
    assert {k: v for k, v in after.items() if k[2] != placeholder} == others
    for kind in ("numbers", "dots"):
        board = await storage.leaderboard(guild_id=7, kind=kind)
        assert board and not [line for line in board if is_deleted(line.player_id) or line.player_id == ME]
    for game in [*games, live]:
        row = await service.games.storage.get_game(game_id=game.id)
        if game.id in seated:
            assert placeholder in row.seats and row.names[row.seats.index(placeholder)] == DELETED_NAME
        assert await Services.build(storage, RULES).history.replay(game.id) == service.games.load(row).state
    # The live game goes on without them.
    live_row = await storage.get_game(game_id=live.id)
    assert live_row.live and (await storage.live_games_of_user(user_id=placeholder)) != []
    assert (await storage.get_user_settings(user_id=ME)) == {}
    assert (await storage.export_user(user_id=ME))["games"] == []

    path = sqlite_path(database)
    if path is not None:  # and not in the file's bytes, nor in its WAL
        await storage.driver.read(_nothing())
        for raw in file_bytes(path):
            assert str(ME).encode() not in raw
            assert struct.pack(">q", ME) not in raw


def file_bytes(path: str) -> list[bytes]:
    """The database file's bytes and its WAL's."""
    return [Path(name).read_bytes() for name in (path, path + "-wal") if Path(name).exists()]


def _nothing() -> Txn[None]:
    yield Q("SELECT 1")


async def test_delete_owes_a_rename_to_each_thread_of_theirs(service: Services) -> None:
    """The effect given for threads is written, in the forgetting's transaction, for each game of
    theirs played in a thread of its own, after what their forfeit owes; not for a game in place nor
    for a game without them."""
    storage = service.games.storage
    threaded = await play_out(service, await table(service, "dots", {"size": 3}, [ME, ANN]), random.Random(3))
    live = await table(service, "dots", {"size": 3}, [ANN, ME])
    in_place = await table(service, "dots", {"size": 3}, [ME, BEA])
    others = await table(service, "dots", {"size": 3}, [ANN, BEA])
    for game in (threaded, live, others):
        await storage.set_messages(game_id=game.id, place_id=900 + game.id)
    draft = service.moves.prepare(await service.games.get(live.id), ME, FORFEIT)
    _, _, written, owed = await storage.forget_user(
        user_id=ME, leaving=[service.moves.writing(draft, [Effect("card")])], in_threads=Effect("rename")
    )
    assert [(i.game_id, i.kind, i.args) for i in owed] == [
        (threaded.id, "rename", {}),
        (live.id, "rename", {}),
    ]
    assert [i.kind for i in await storage.effects_of_game(game_id=live.id)] == ["card", "rename"]
    assert owed[1].id > written[0].effects[-1].id
    assert await storage.effects_of_game(game_id=in_place.id) == []
    assert await storage.effects_of_game(game_id=others.id) == []


async def test_retention_drops_old_tokens_and_typed_answers(service: Services, database: str) -> None:
    storage = service.games.storage
    game = await table(service, "dots", {"size": 3}, [ANN, BEA])
    await storage.add_effects(game_id=game.id, effects=[Effect("lobby", token="old-token")])
    await storage.add_typed_reply(user_id=ANN, text="hello")
    assert await storage.drop_stale_tokens(tokens_before=0.0, replies_before=0.0) == (0, 0)
    far = 4_000_000_000.0
    assert await storage.drop_stale_tokens(tokens_before=far, replies_before=far) == (1, 1)
    assert query(database, "SELECT COUNT(*) FROM outbox WHERE token IS NOT NULL") == [(0,)]
    assert query(database, "SELECT COUNT(*) FROM typed_replies") == [(0,)]


async def test_delete_is_one_transaction_with_the_forfeits(service: Services) -> None:
    """A game that moved on since its forfeit was prepared makes the whole deletion fail: nothing is
    forfeited, nothing forgotten (the person may try again)."""
    storage = service.games.storage
    first = await table(service, "dots", {"size": 3}, [ME, ANN])
    second = await table(service, "dots", {"size": 3}, [ANN, ME])
    drafts = [service.moves.prepare(game, ME, FORFEIT) for game in (first, second)]
    await step(service, second, random.Random(1))  # the second game moves on meanwhile
    with pytest.raises(StaleVersion):
        await storage.forget_user(user_id=ME, leaving=[service.moves.writing(d) for d in drafts])
    for game in (first, second):
        row = await storage.get_game(game_id=game.id)
        assert row.live and ME in row.seats  # the first game's forfeit was rolled back too
    assert [m.action for m in await storage.moves(game_id=first.id)] == []


async def test_the_deadline_pass_drops_tokens_within_their_15_minutes(service: Services) -> None:
    """Through the scheduler (bot/scheduler.py): a token older than its 14 minutes goes on the next
    pass, a younger one stays; the pass never sleeps longer than the minute between two looks."""
    storage = service.games.storage
    game = await table(service, "dots", {"size": 3}, [ANN, BEA])
    (old,) = await storage.add_effects(game_id=game.id, effects=[Effect("lobby", token="old-token")])
    (new,) = await storage.add_effects(game_id=game.id, effects=[Effect("lobby", token="new-token")])
    now = [old.created_at + TOKEN_KEPT + 1.0]
    await storage.write(_aged(new.id, now[0] - 60.0))  # (a minute old then)
    scheduler = Scheduler(
        storage,
        service.games,
        service.lobby,
        None,  # type: ignore[arg-type]  (no deadline falls due here)
        Outbox(storage),
        clock=lambda: now[0],
    )
    await scheduler.run_due()
    tokens = {i.id: i.token for i in await storage.effects_of_game(game_id=game.id)}
    assert tokens == {old.id: None, new.id: "new-token"}
    assert scheduler._longest_sleep() <= RETENTION_EVERY
    assert TOKEN_KEPT + RETENTION_EVERY <= 15 * 60  # gone within the 15 minutes PRIVACY.md promises


def _aged(item_id: int, created_at: float) -> Txn[None]:
    yield Q("UPDATE outbox SET created_at = ? WHERE id = ?", (created_at, item_id))
