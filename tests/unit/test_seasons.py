"""Seasons (issue 29): the numbering (bot/memory/seasons.py, pure), the storage of a server's seasons
and of the seasons that ended, with their posts' claims (bot/storage/seasons.py), the season a
leaderboard means and the post at a season's end (bot/table/seasons.py), on both databases."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any, cast

import discord
import pytest

from bot.errors import GameError
from bot.i18n import ENGLISH
from bot.i18n.audience import Audiences
from bot.memory.periods import index_key, index_start, period_index, period_key
from bot.memory.seasons import Run
from bot.registry import SCORE_RANKED
from bot.storage import Storage
from bot.table.catalog import Catalog
from bot.table.seasons import SeasonDesk, season_embed, season_shown
from tests.unit.test_records_storage import ANN, BEA, CY, Clock, finish_game

pytestmark = pytest.mark.both_dbs

GUILD = 1


def at(year: int, month: int, day: int, hour: int = 12) -> float:
    return datetime(year, month, day, hour, tzinfo=UTC).timestamp()


def test_months_and_quarters_are_counted_and_named() -> None:
    assert period_key("quarter", at(2026, 11, 15)) == "q2026-Q4"
    assert period_key("quarter", at(2027, 1, 1, 0)) == "q2027-Q1"
    assert index_key("month", period_index("month", at(2026, 12, 31, 23)) + 1) == "m2027-01"
    assert index_start("quarter", period_index("quarter", at(2026, 8, 9))) == at(2026, 7, 1, 0)


def test_a_run_begins_with_the_next_whole_month_or_quarter() -> None:
    monthly = Run.starting_after("month", at(2026, 11, 15), 1)
    assert monthly.season_at(at(2026, 11, 30, 23)) == 0  # not begun
    assert monthly.key(1) == "m2026-12" and monthly.starts(1) == at(2026, 12, 1, 0)
    assert monthly.ends(1) == at(2027, 1, 1, 0) and monthly.key(2) == "m2027-01"
    assert monthly.season_at(at(2027, 2, 3)) == 3 and monthly.ended(at(2027, 2, 3)) == 2
    quarterly = Run.starting_after("quarter", at(2026, 11, 15), 4)
    assert quarterly.key(4) == "q2027-Q1" and quarterly.key(5) == "q2027-Q2"
    assert quarterly.ends(4) == at(2027, 4, 1, 0) and quarterly.season_at(at(2027, 4, 1, 0)) == 5


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock(at(2025, 6, 15))
    monkeypatch.setattr(time, "time", fake)
    return fake


@pytest.fixture
async def storage(database: str, clock: Clock) -> AsyncIterator[Storage]:
    storage = await Storage.open(database, score_ranked=SCORE_RANKED)
    yield storage
    await storage.close()


async def test_seasons_count_the_games_of_their_month_and_end_once(storage: Storage, clock: Clock) -> None:
    await finish_game(storage, [BEA, ANN], {"winners": [0], "scores": [1, 0]})  # before seasons: no season
    chosen = await storage.set_seasons(guild_id=GUILD, mode="month", channel_id=77, now=clock.now)
    assert chosen.run is not None and chosen.run.key(1) == "m2025-07"
    with pytest.raises(GameError, match="Season 1 has not begun"):
        await season_shown(storage, GUILD, None, clock.now)
    clock.now = at(2025, 7, 3)
    await finish_game(storage, [ANN, BEA], {"winners": [0], "scores": [1, 0]})
    await finish_game(storage, [ANN, CY], {"winners": [0], "scores": [1, 0]})
    await finish_game(storage, [CY, BEA], {"winners": [0], "scores": [1, 0]}, kind="procession")
    current = await season_shown(storage, GUILD, None, clock.now)
    assert (current.number, current.period, current.over) == (1, "m2025-07", False)
    board = await storage.leaderboard(guild_id=GUILD, kind="dots", key=current.period)
    assert (board[0].player_id, board[0].games, board[0].wins) == (ANN, 2, 2)
    assert sum(line.games for line in board) == 4  # Bea's June game is not in it
    await storage.open_ended_seasons(now=clock.now)
    assert await storage.due_season_posts(now=clock.now, holder="a") == []

    # August: season 1 has ended, recorded once (by whichever pass first), its post claimed by one.
    now = at(2025, 8, 2)
    await asyncio.gather(storage.open_ended_seasons(now=now), storage.open_ended_seasons(now=now))
    (due,) = await storage.due_season_posts(now=now, holder="a")
    assert (due.season, due.period, due.channel_id, due.message_id) == (1, "m2025-07", 77, None)
    assert await storage.claim_season_post(guild_id=GUILD, season=1, holder="a", now=now, until=now + 120)
    assert not await storage.claim_season_post(guild_id=GUILD, season=1, holder="b", now=now, until=now + 120)
    assert await storage.due_season_posts(now=now, holder="b") == []
    assert await storage.claim_season_post(guild_id=GUILD, season=1, holder="a", now=now, until=now + 120)
    later = now + 121  # a's claim has expired: b may take it over
    assert await storage.claim_season_post(guild_id=GUILD, season=1, holder="b", now=later, until=later + 120)
    await storage.finish_season_post(guild_id=GUILD, season=1, message_id=555)
    assert await storage.due_season_posts(now=later, holder="b") == []
    assert not await storage.claim_season_post(guild_id=GUILD, season=1, holder="b", now=later, until=later)
    past = await season_shown(storage, GUILD, 1, now)
    assert (past.period, past.over) == ("m2025-07", True)
    won = {(w.season, w.kind) for w in await storage.seasons_won(guild_id=GUILD, player_id=ANN)}
    assert won == {(1, "dots")}
    cy = await storage.seasons_won(guild_id=GUILD, player_id=CY)
    assert [(w.season, w.kind, w.starts_at) for w in cy] == [(1, "procession", at(2025, 7, 1, 0))]

    # Quarters from mid-August: August (season 2, under way) ends with no champion; the next run
    # begins with October, season 3. Then off: past seasons stay, the current one is refused.
    changed = await storage.set_seasons(guild_id=GUILD, mode="quarter", channel_id=None, now=at(2025, 8, 10))
    assert changed.channel_id == 77 and changed.run is not None and changed.run.first_season == 3
    assert changed.run.key(3) == "q2025-Q4"
    with pytest.raises(GameError, match="no season 2 here"):
        await season_shown(storage, GUILD, 2, at(2025, 8, 11))
    await storage.set_seasons(guild_id=GUILD, mode=None, channel_id=None, now=at(2025, 8, 12))
    with pytest.raises(GameError, match="Seasons are off"):
        await season_shown(storage, GUILD, None, at(2025, 8, 12))
    assert (await season_shown(storage, GUILD, 1, at(2025, 8, 12))).period == "m2025-07"
    with pytest.raises(GameError, match="Seasons are off in this server"):
        await season_shown(storage, GUILD + 1, 1, at(2025, 8, 12))


class Sent:
    """A channel that keeps what is sent to it, as Discord would (one message per nonce)."""

    def __init__(self) -> None:
        self.posts: dict[str, discord.Embed] = {}
        self.sends = 0

    async def send(self, *, embed: discord.Embed, nonce: str, **_: Any) -> Any:
        self.sends += 1
        self.posts.setdefault(nonce, embed)
        return discord.Object(9000 + len(self.posts))


class Client:
    def __init__(self, channel: Sent) -> None:
        self.channel = channel

    def get_partial_messageable(self, channel_id: int, *, guild_id: int) -> Sent:
        assert (channel_id, guild_id) == (77, GUILD)
        return self.channel


class English:
    async def server(self, guild_id: int) -> Any:
        return ENGLISH


def season_desk(storage: Storage, channel: Sent, now: float) -> SeasonDesk:
    catalog = Catalog()
    return SeasonDesk(
        client=cast(discord.Client, Client(channel)),
        storage=storage,
        catalog=catalog,
        audiences=cast(Audiences, English()),
        clock=lambda: now,
    )


async def test_two_processes_post_a_seasons_end_once(storage: Storage, clock: Clock) -> None:
    await storage.set_seasons(guild_id=GUILD, mode="month", channel_id=77, now=clock.now)
    await storage.set_seasons(guild_id=GUILD + 1, mode="month", channel_id=78, now=clock.now)  # no games
    clock.now = at(2025, 7, 3)
    await finish_game(storage, [ANN, BEA], {"winners": [0], "scores": [1, 0]})
    channel = Sent()
    now = at(2025, 8, 1, 0) + 5
    first, second = season_desk(storage, channel, now), season_desk(storage, channel, now)
    await asyncio.gather(first.run_due(now, "a"), second.run_due(now, "b"))
    await first.run_due(now + 1, "a")
    await second.run_due(now + 500, "b")
    assert channel.sends == 1 and list(channel.posts) == [f"s{GUILD:x}.1"]
    (embed,) = channel.posts.values()
    assert embed.title == "🏆 Season 1 is over"
    assert f"champion <@{ANN}>" in (embed.description or "")
    assert [f.name for f in embed.fields] == ["dots"]
    assert str(embed.fields[0].value).startswith(f"1. <@{ANN}>: +")
    quiet = await storage.ended_season(guild_id=GUILD + 1, season=1)
    assert quiet is not None and quiet.message_id == 0  # a season with no game: recorded, not posted


def test_the_post_names_every_champion_and_fits_discord() -> None:
    from bot.storage.rows import BoardLine
    from bot.storage.seasons import EndedSeason

    ended = EndedSeason(GUILD, 4, "month", "m2025-07", at(2025, 7, 1, 0), at(2025, 8, 1, 0), 77, None)
    tied = [BoardLine(1, ANN, "Ann", 1.0, 2, 1, 0.5), BoardLine(1, BEA, "Bea", 1.0, 2, 1, 0.5)]
    rest = [BoardLine(3 + i, 100 + i, "x" * 32, 0.0, 1, 0, -0.2) for i in range(8)]
    embed = season_embed(ended, [(f"Game {k}", tied + rest) for k in range(5)], ENGLISH)
    assert f"champion <@{ANN}> and <@{BEA}>" in (embed.description or "")
    assert "1 Jul 2025 – 31 Jul 2025 (UTC)" in (embed.description or "")  # (English is en_GB)
    assert len(embed) <= 6000 and all(len(str(f.value)) <= 1024 for f in embed.fields)
