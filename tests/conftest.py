"""Shared fixtures: the loopback Discord emulator, a ready-made world, and the project's bot on it.

    async def test_something(emulator, scene, bot_harness):
        rec = await emulator.slash(scene.alice, scene.channel, "game status")
        assert (await rec.response()).type == 4

See tests/emulator/__init__.py for the emulator's API.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    # discord.player imports the stdlib's audioop, deprecated since 3.11 (warnings are errors here).
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import discord  # noqa: F401

from bot.registry import SCORE_RANKED
from bot.storage import Storage
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.world import Scene
from tests.pg import PostgresServer, Unavailable, unavailable


@pytest.fixture
async def emulator() -> AsyncIterator[DiscordEmulator]:
    """A started emulator; discord.py in this process points at it until the test ends."""
    emu = DiscordEmulator()
    await emu.start()
    try:
        with emu.patch_discord():
            yield emu
    finally:
        await emu.stop()
    assert emu.internal_errors == [], "the emulator failed:\n" + "\n".join(emu.internal_errors)


@pytest.fixture
def scene(emulator: DiscordEmulator) -> Scene:
    """One guild with #games, #lounge, a thread in #games, alice, bob, carol, dave and mod."""
    return emulator.add_scene()


# ---- the database: SQLite, or a throwaway PostgreSQL server ------------------------------------------
#
# A test that takes `database` (or `bot_db`, or a fixture built on them) gets a fresh database. Which
# one: ``--db`` (below). By default, SQLite for every test, and PostgreSQL as well for the tests marked
# ``both_dbs`` (the storage tests and a representative part of the end-to-end suite: a whole game of
# each kind, restarts, crashes, the outbox, races, deadlines, records), so CI runs the PostgreSQL half
# without running the whole suite twice. Tests that read the SQLite file itself are marked
# ``sqlite_only`` (or do not take `database`).

DB_CHOICES = ("default", "sqlite", "postgresql", "both")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--db",
        choices=DB_CHOICES,
        default="default",
        help="the databases the tests taking one run on: default (SQLite; PostgreSQL too for the tests "
        "marked both_dbs), sqlite, postgresql (every test that can), both (every test on each)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "db_kind" not in metafunc.fixturenames:
        return
    choice = metafunc.config.getoption("--db")
    if metafunc.definition.get_closest_marker("sqlite_only") is not None or choice == "sqlite":
        kinds = ["sqlite"]
    elif choice == "postgresql":
        kinds = ["postgresql"]
    elif choice == "both" or metafunc.definition.get_closest_marker("both_dbs") is not None:
        kinds = ["sqlite", "postgresql"]
    else:
        kinds = ["sqlite"]
    if kinds != ["sqlite"]:  # SQLite alone keeps the test's plain name
        metafunc.parametrize("db_kind", kinds)


@pytest.fixture
def db_kind() -> str:
    """The database this run of the test uses (parametrised by `pytest_generate_tests`)."""
    return "sqlite"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the session, started when a test first needs it."""
    server = PostgresServer()
    try:
        server.start()
    except Unavailable as exc:
        server.stop()
        unavailable(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def database(db_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A fresh, empty database for the test, as `Storage.open` (and ``QUETBOT_DB``) take it: a SQLite
    file path, or a PostgreSQL URL (a database of its own, dropped after the test)."""
    if db_kind == "sqlite":
        yield str(tmp_path / "quetbot.sqlite3")
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = await server.new_database()
    try:
        yield url
    finally:
        await server.drop_database(url)


@pytest.fixture
async def pg_url(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A fresh, empty PostgreSQL database (no schema yet), whatever ``--db`` says but ``sqlite``."""
    if request.config.getoption("--db") == "sqlite":
        pytest.skip("--db sqlite: no PostgreSQL")
    url = await postgres_server.new_database()
    try:
        yield url
    finally:
        await postgres_server.drop_database(url)


@pytest.fixture
async def storage(database: str) -> AsyncIterator[Storage]:
    """`database`, opened (migrated) as the bot opens it; closed after the test."""
    opened = await Storage.open(database, score_ranked=SCORE_RANKED)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def bot_db(database: str) -> str:
    """The bot's database (`database`): read it as a second process would with `tests.db.query`."""
    return database


@pytest.fixture
async def bot_harness(
    request: pytest.FixtureRequest, emulator: DiscordEmulator, scene: Scene, bot_db: str
) -> AsyncIterator[BotHarness]:
    """The project's bot, started on the emulator (after `scene` exists) and ready.

    Games are played where they are opened (the scene's server has threads off, as
    `/game settings threads:off` sets), except in tests marked ``threads``: there each game gets its
    own thread, as on a server with the default settings.
    """
    if request.node.get_closest_marker("threads") is None:
        storage = await Storage.open(bot_db, score_ranked=SCORE_RANKED)
        try:
            await storage.set_guild_setting(guild_id=scene.guild.id, key="threads", value=0)
        finally:
            await storage.close()
    draw_workers = 1 if request.node.get_closest_marker("drawn_in_worker") is not None else 0
    harness = BotHarness(emulator, project_bot_factory(bot_db, draw_workers=draw_workers))
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()


COMPUTER_PAUSE = 0.02  # seconds the `bots` fixture's computers wait before a move


@pytest.fixture
def emu(emulator: DiscordEmulator) -> DiscordEmulator:
    """The started emulator (`emulator`), by the short name the tests act through."""
    return emulator


@pytest.fixture
async def bots(emulator: DiscordEmulator, scene: Scene, bot_db: str) -> AsyncIterator[BotHarness]:
    """The bot, with computers that wait only `COMPUTER_PAUSE` seconds before their moves."""
    harness = BotHarness(emulator, project_bot_factory(bot_db, computer_pause=COMPUTER_PAUSE))
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()
