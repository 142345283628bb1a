"""Crash safety, measured: games of all five kinds played through the loopback Discord emulator while the
bot's processes are killed with SIGKILL again and again and restarted on the same database.

    python bench/crash_safety.py [--quick] [--kills N] [--games N] [--seed N] [--keep]
                                 [--processes N] [--db sqlite|postgresql|postgresql://...]
    python bench/crash_safety.py --sweep [--game G ...] [--path TEXT] [--points all|ends|first] [--keep]

``--sweep`` runs the kill-point sweeps of bench/kill_sweep.py instead: every game and input path, the
bot killed right after each request it makes while handling one scripted interaction, and compared with
a run that was not killed (``--game`` and ``--path`` choose cases by game and by a part of their name;
``--points ends`` kills only after the first and the last request, as the tests do).

The emulator (tests/emulator) runs in this process and keeps its world (servers, channels, threads,
users, messages, synced commands) across the bot's lives; the bot runs as ``python bench/launch_bot.py``
(the real ``quetbot`` entry point pointed at the emulator). ``--games`` tables (channels and threads,
every kind in turn) play at once, each starting a new game when its game ends: the host opens the
lobby with ``/<game> new``, the others join and the host starts (by the card's buttons or by ``/game
join`` / ``/game start``), then every seat the game waits for makes a legal move chosen at random from
the state the bot stored (read from the database read-only), by an input path chosen at random: the
slash command, the board's buttons and menus (with Dots' private "Where does it end?" menu), the DM
panel's controls and forms, the panel the board's My move / My hand button shows, a typed DM reply.
At a random moment, while interactions are in flight,
a bot process is killed with SIGKILL; the emulator sees its gateway close, a new process IDENTIFYs on
the same database, and play goes on. After the last kill no new game starts and every game is played
to its end; then the bot is stopped and the database checked.

``--db``: ``sqlite`` (the default: a file in a temporary folder), ``postgresql`` (a throwaway server
started with tests/pg.py, as the tests do: Debian's ``postgresql`` package must be installed), or the
``postgresql://`` URL of an empty database.

``--processes N`` runs the bot as N processes, shards 0..N-1 of N (``quetbot --shard-count N --shards
k``), over the one database, and any of them is killed at random and restarted. The world then has one
server per shard, each table in one of them, so every process hosts games; and the games do what only
several processes make hard:

- secret moves (Up-Down-Stay, Numbers, The Numerical Card Game) are made by slash command in the
  game's place (to its server's shard), or from the player's DM panel (a button and its form, or a
  menu) or by a typed DM reply, which Discord sends to shard 0 whatever shard the game is on, so the
  process running shard 0 applies moves of games it does not host;
- every third table seats a computer player (``/game addbot level:easy`` in the lobby): its moves are
  due work, claimed in the database by one process;
- every other table plays with a 10-minute timeout, and the bench moves the time of every process
  (``QUETBOT_CLOCK_OFFSET_FILE``) by 310 or 610 seconds now and then: reminders (halfway) and forfeits
  (at the deadline) fall due, claimed by one process each. The time moves only while the world is
  quiet (no interaction in flight, no request to Discord for half a second): a jump then stands for
  time in which nothing happened. (Moved while a process is carrying out a game's announcements, it
  would expire that process's lease under it, as a process stalled for minutes would.) The players of
  these tables are told of their move by mention and DM (the setting ``/game notify mode:both``
  writes, written before the processes start), so reminders and "your move" DMs go to DM channels.

Checks, after the last game ended and the processes stopped:

- every move the bot acknowledged is in the move log (same game, seat and action; per seat in order).
  A move counts as acknowledged when the bot's answer reached the emulator and was not a refusal: the
  new board (Procession, Lines By The Dots), the private "✅ ..." answer (the secret games, by command
  or from the DM panel), or the DM panel showing the typed move taken;
- every lobby action it acknowledged (a lobby opened, a seat taken, a computer seated, a start) is in
  the database;
- every game is finished, and its move log, replayed from ``rules.new_game(len(seats), options, seed)``
  with ``bot.games.play``, reproduces the stored state (and the stored result): so no computer move,
  forfeit or player's move was applied twice or out of turn;
- nothing due was done twice, read from the emulator's records (bench/crash_twice.py): no two messages
  with one nonce, no game version with two boards, no game with two lobby cards, no forfeit notice
  twice, no wait reminded twice, no DM panel sent anew where an edit was due; and every timeout forfeit
  in the move logs was announced, and the outbox is empty (every effect carried out; the bench waits
  up to a minute for it);
- one board per version that the move log says shows one, none missing, none for a quiet move, in
  order; no board text lost what it said above its status line (the reveals); every game's card is
  there and offers no lobby control at the end;
- SQLite: ``PRAGMA integrity_check`` says ok; PostgreSQL (the throwaway server): ``amcheck`` finds every
  B-tree index consistent.

Interactions in flight at a kill get no answer: they are not acknowledged (a player would retry), and a
move committed just before the kill but never answered is counted apart. The script exits non-zero if
anything acknowledged was lost, a replay differs, anything was done twice, or a game could not be
finished. ``--quick`` (CI) plays 10 tables through 5 kills: about 20 seconds for one process on
SQLite, under a minute for two processes on PostgreSQL (the server's start included).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import re
import shutil
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

with warnings.catch_warnings():
    # discord.player imports the stdlib's audioop, deprecated since 3.11.
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import discord  # noqa: F401

from bench.crash_twice import KINDS as TWICE_KINDS  # noqa: E402
from bench.crash_twice import Doubles, board_of, custom_ids, find_doubles, first_form  # noqa: E402
from bench.launch_bot import start_bot  # noqa: E402
from bot.registry import GAMES as SPECS  # noqa: E402
from bot.registry import RULES, SCORE_RANKED  # noqa: E402
from bot.rules import play  # noqa: E402
from bot.rules.base import forfeit_of  # noqa: E402
from bot.storage import sqlite_path  # noqa: E402
from bot.table.present import News  # noqa: E402
from bot.table.replies import mention  # noqa: E402
from tests.e2e.driver import live_control, private_menu  # noqa: E402
from tests.emulator import DiscordEmulator, EmulatorError  # noqa: E402
from tests.emulator.models import (  # noqa: E402
    CallbackType,
    Channel,
    InteractionRecord,
    MessageRecord,
    User,
    shard_of,
)

TOKEN = "crash.bot.token"
KINDS = ("procession", "dots", "updown", "numbers", "divisors")
SECRET = frozenset({"updown", "numbers", "divisors"})  # moves answered privately
GAME_NUMBER = re.compile(r"game #(\d+)")
SEAT_NUMBER = re.compile(r"game #(\d+): (\d+) players are in")  # the joiner is the last of them
PANEL_HEADER = re.compile(r"\*\*[^*\n]+\*\* · game #(\d+) in <#\d+>")
SAVED = "Your move is saved"  # a move's board handed to the channel (late, or by another process)
TIMEOUT_FORFEIT = {"type": "forfeit", "reason": "timeout"}
SHORT_TIMEOUT = "10m"
JUMPS = (310, 310, 610)  # seconds the clock moves: past a 10-minute timeout's reminder, or its deadline
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d |==== ")  # a log record's first line


def canonical(value: Any) -> Any:
    """A JSON value as the database holds it (tuples become lists)."""
    return json.loads(json.dumps(value))


def slash_move(kind: str, choice: dict[str, Any], *, rank_label: bool = False) -> tuple[str, dict[str, Any]]:
    """The slash command (and its options) that makes the move ``choice`` (a legal action's JSON);
    with ``rank_label``, an Up-Down-Stay card by its label (``Q``) instead of its value."""
    if kind == "procession":
        return "procession flip", {"position": choice["position"]}
    if kind == "dots":
        options = {"to": choice["to"]}
        if choice["from"] is not None:
            options["from"] = choice["from"]
        return "dots line", options
    if kind == "updown" and choice["type"] == "predict":
        return "updown predict", {"letters": choice["letters"]}
    if kind == "updown":
        rank = choice["rank"]
        return "updown play", {"card": RULES["updown"].rank_label(rank) if rank_label else str(rank)}
    if kind == "numbers":
        return "numbers pick", {"number": choice["number"]}
    return "divisors pick", {"card": choice["card"]}


# ---- the database ----------------------------------------------------------------------------------


class Database:
    """Where the bot's data lives for the run: a SQLite file in the work folder, a database of a
    throwaway PostgreSQL server (tests/pg.py), or a given PostgreSQL URL (of an empty database)."""

    def __init__(self, choice: str, workdir: Path) -> None:
        self.choice, self.workdir = choice, workdir
        self.url = ""  # as QUETBOT_DB takes it
        self.server: Any = None  # tests.pg.PostgresServer, when the bench started one

    @property
    def sqlite_file(self) -> Path | None:
        path = sqlite_path(self.url)
        return None if path is None else Path(path)

    @property
    def label(self) -> str:
        if self.sqlite_file is not None:
            return "SQLite"
        return "PostgreSQL (throwaway server)" if self.server is not None else "PostgreSQL"

    async def open(self) -> None:
        if self.choice == "sqlite":
            self.url = str(self.workdir / "quetbot.sqlite3")
        elif self.choice == "postgresql":
            from tests.pg import PostgresServer

            self.server = PostgresServer()
            try:
                await asyncio.to_thread(self.server.start)
            except Exception as exc:  # (tests.pg.Unavailable: not installed, or it would not start)
                await asyncio.to_thread(self.server.stop)
                self.server = None
                raise RuntimeError(f"no throwaway PostgreSQL server: {exc}") from exc
            self.url = await self.server.new_database()
        else:
            self.url = self.choice

    async def close(self) -> None:
        if self.server is not None:
            await asyncio.to_thread(self.server.stop)
            self.server = None


class Reader:
    """Reads the bot's database, read-only, each read one snapshot: what the players know of each game.

    SQLite: each read opens its own connection and closes it before returning (no await in between), so
    no connection of ours is open when a bot process is killed and restarted: the new process finds the
    database exactly as a crash leaves it and runs SQLite's own recovery of the WAL. PostgreSQL: a small
    pool of connections of our own, each read a read-only REPEATABLE READ transaction.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self.pool: Any = None

    async def open(self) -> None:
        if self.db.sqlite_file is None and self.pool is None:
            import asyncpg

            self.pool = await asyncpg.create_pool(self.db.url, min_size=1, max_size=4)

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            self.pool = None

    async def read(self, statements: Sequence[tuple[str, tuple[Any, ...]]]) -> list[list[tuple[Any, ...]]]:
        """The rows of each statement (the bot's dialect: ``?`` placeholders), all in one snapshot."""
        path = self.db.sqlite_file
        if path is not None:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10, isolation_level=None)
            try:
                conn.execute("BEGIN")
                return [conn.execute(sql, args).fetchall() for sql, args in statements]
            finally:
                conn.close()
        from bot.storage.postgres import postgres_statement

        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            out = []
            for sql, args in statements:
                text, values = postgres_statement(sql, args)
                out.append([tuple(r) for r in await conn.fetch(text, *values)])
            return out

    async def _game(self, where: str, args: tuple[Any, ...]) -> GameInfo | None:
        first = f"SELECT id FROM games WHERE {where} ORDER BY id LIMIT 1"
        games, seats = await self.read(
            [
                (
                    "SELECT id, kind, status, host_id, options, seed, state, place_id, version "
                    f"FROM games WHERE id = ({first})",
                    args,
                ),
                (f"SELECT user_id FROM seats WHERE game_id = ({first}) ORDER BY position", args),
            ]
        )
        if not games:
            return None
        row = games[0]
        return GameInfo(
            id=int(row[0]),
            kind=str(row[1]),
            status=str(row[2]),
            host_id=int(row[3]),
            options=json.loads(row[4]),
            seed=int(row[5]),
            state=None if row[6] is None else json.loads(row[6]),
            seats=[int(r[0]) for r in seats],
            place_id=int(row[7] or 0),
            version=int(row[8]),
        )

    async def live_game(self, channel_id: int) -> GameInfo | None:
        return await self._game("channel_id = ? AND status IN ('lobby', 'active')", (channel_id,))

    async def game(self, game_id: int) -> GameInfo | None:
        return await self._game("id = ?", (game_id,))

    async def integrity(self) -> str:
        """SQLite's ``PRAGMA integrity_check``; on PostgreSQL, ``amcheck``'s check of every B-tree
        index of the bot's tables (on the throwaway server only: it installs the extension)."""
        path = self.db.sqlite_file
        if path is not None:
            if not path.exists():
                return "no database"
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
            finally:
                conn.close()
        if self.db.server is None:
            return "not checked (a given PostgreSQL database)"
        try:
            async with self.pool.acquire() as conn:
                await conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
                rows = await conn.fetch(
                    "SELECT c.relname, bt_index_check(c.oid, true) FROM pg_index i "
                    "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE a.amname = 'btree' AND n.nspname = 'public'"
                )
        except Exception as exc:  # amcheck reports a corrupt index by raising
            return f"amcheck: {str(exc)[:200]}"
        return f"ok ({len(rows)} indexes, amcheck)"


# ---- the bot as processes -----------------------------------------------------------------------------


class BotProcess:
    """``bench/launch_bot.py`` on the emulator and the database, as one shard of ``count`` (or the whole
    bot, unsharded); started, SIGKILLed, restarted."""

    def __init__(
        self,
        emu: DiscordEmulator,
        db: str,
        log: Path,
        *,
        shard: int | None = None,
        count: int | None = None,
        guild_id: int | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.emu, self.db, self.log = emu, db, log
        self.shard, self.count, self.guild_id = shard, count, guild_id
        self.extra_env = extra_env or {}
        self.proc: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None
        self.up = asyncio.Event()  # set while the process is ready
        self.epoch = 0  # which life of this process the interactions went to
        self.kills = 0
        self.ready_times: list[float] = []

    @property
    def name(self) -> str:
        return "the bot" if self.shard is None else f"shard {self.shard}"

    async def start(self) -> float:
        """Start a process; seconds until it printed BENCH-READY."""
        with self.log.open("ab") as log:
            log.write(f"\n==== {self.name} started at {time.strftime('%H:%M:%S')} ====\n".encode())
        options = (
            [] if self.shard is None else ["--shard-count", str(self.count), "--shards", str(self.shard)]
        )
        self.proc, ready = await start_bot(
            "quetbot",
            emu=self.emu,
            token=TOKEN,
            db=self.db,
            guild_id=self.guild_id,
            log=self.log,
            options=options,
            extra_env=self.extra_env,
        )
        assert self.proc.stdout is not None
        self._drain = asyncio.create_task(self._drain_stdout(self.proc.stdout))
        self.ready_times.append(ready)
        self.epoch += 1
        self.up.set()
        return ready

    @staticmethod
    async def _drain_stdout(stream: asyncio.StreamReader) -> None:
        while await stream.readline():
            pass

    def gone(self) -> bool:
        """Whether the emulator has no live gateway session of this process any more."""
        gateway = self.emu.gateway
        if self.shard is None:
            return not gateway.connected
        # (A session outlives its connection, for a RESUME: the connection is what goes.)
        sessions = gateway.sessions_of_shard(self.shard, self.count or 1)
        return all(s.connection is None for s in sessions)

    async def kill(self) -> None:
        """SIGKILL, this process only (by its pid), and reap it."""
        self.up.clear()
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        await proc.wait()
        if self._drain is not None:
            self._drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._drain
            self._drain = None

    async def stop(self) -> None:
        """A clean stop (SIGINT), for the end of the run."""
        proc = self.proc
        if proc is None:
            return
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 15)
        await self.kill()


# ---- the world and what was acknowledged --------------------------------------------------------------


@dataclass
class GameInfo:
    id: int
    kind: str
    status: str
    host_id: int
    options: dict[str, Any]
    seed: int
    state: dict[str, Any] | None
    seats: list[int]
    place_id: int = 0  # where the game is played: its thread, or the table's channel
    version: int = 0


@dataclass
class Table:
    """One table: where it plays, which game, who may sit there, and how its games are played."""

    channel: Channel
    kind: str
    users: list[User]
    computer: bool = False  # a computer player (easy) takes a seat in each game
    timeout: str | None = None  # the games' move timeout (None: the default, a day)
    dm_moves: bool = False  # secret moves also from the panels (DM, or My move) and by typed DM replies


@dataclass(frozen=True)
class Ack:
    """A move the bot acknowledged, and how it was made (command, panel, typed)."""

    game_id: int
    seat: int
    action: dict[str, Any]
    path: str = "command"


@dataclass(frozen=True)
class LobbyAck:
    """A lobby action the bot acknowledged: ``new`` (game id), ``join`` (game id, seat), ``addbot``
    (game id, seat: a computer), ``start``."""

    verb: str
    game_id: int
    user_id: int
    seat: int | None = None  # (a join by button: the card does not say which seat)
    path: str = "command"


@dataclass
class Tally:
    acks: list[Ack] = field(default_factory=list)
    lobby_acks: list[LobbyAck] = field(default_factory=list)
    interactions: int = 0
    unanswered: int = 0  # no callback: in flight at a kill
    late: int = 0  # no callback within Discord's 3 s with the same bot process up
    latencies: list[float] = field(default_factory=list)  # seconds to the answer
    refusals: Counter[str] = field(default_factory=Counter)  # answered, but not a success
    typed_sent: int = 0  # moves typed in DMs
    typed_unanswered: int = 0  # no answer seen (a process was killed meanwhile)
    typed_late: int = 0  # no answer within `TYPED_WAIT`, nothing killed
    typed_unsure: int = 0  # answered with a note that does not name the move (not counted as acknowledged)
    paths: Counter[str] = field(default_factory=Counter)  # interactions sent, by input path
    games_started: Counter[str] = field(default_factory=Counter)
    games_finished: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


class Stuck(Exception):
    """A table made no progress for too long with the bot up."""


TYPED_WAIT = 6.0  # seconds a typed move's answer (its DM panel, carried out by the outbox) may take


# ---- the run ---------------------------------------------------------------------------------------


class CrashRun:
    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.multi = args.processes is not None
        self.rng = random.Random(args.seed)
        self.workdir = workdir
        self.db = Database(args.db, workdir)
        self.emu = DiscordEmulator(validate_schema=False, token=TOKEN)
        self.tally = Tally()
        self.procs: list[BotProcess] = []
        self.reader = Reader(self.db)
        self.go = asyncio.Event()  # cleared while the clock is moved: nobody acts
        self.go.set()
        self.pending: dict[int, tuple[BotProcess, int, InteractionRecord]] = {}  # id -> (process, epoch, rec)
        self.typed_in_flight = 0
        self.final = False  # after the last kill: finish the games in play, start no new one
        self.kills = 0
        self.in_flight_at_kills: list[int] = []
        self.gateway_closes_seen = 0
        self.kills_leaving_wal = 0
        self.clock_file = workdir / "clock-offset"
        self.offset = 0
        self.jumps = 0
        self.jumps_skipped = 0
        self.nonce_repeats = 0  # posts Discord answered with the message their nonce made before
        self.dm_log: dict[int, list[MessageRecord]] = defaultdict(list)  # DM channel -> its messages
        self.posts: dict[int, list[MessageRecord]] = defaultdict(list)  # channel -> the bot's messages
        self.dms: dict[int, Channel] = {}  # user id -> their DM channel
        self.typed_used: dict[tuple[int, int], set[str]] = defaultdict(set)  # (game, seat) -> texts typed
        self.guilds: list[Any] = []
        self.t0 = self.started_at = self.final_at = self.ended_at = 0.0  # time.monotonic() of the phases

    # ---- the world ------------------------------------------------------------------------------

    def build_world(self) -> list[Table]:
        emu = self.emu
        if not self.multi:
            guild = emu.add_guild("Crash Test Server")
            self.guilds = [guild]
            channels: list[Channel] = []
            parents: list[Channel] = []
            for i in range(self.args.games):
                if i % 2 == 1 and parents:
                    channels.append(emu.add_thread(parents[-1], f"table-{i + 1}"))
                else:
                    parent = emu.add_text_channel(guild, f"table-{i + 1}")
                    parents.append(parent)
                    channels.append(parent)
            # Each table has players of its own, so a typed DM answer always belongs to one game.
            return [
                Table(
                    channel,
                    KINDS[i % len(KINDS)],
                    [emu.add_user(f"t{i + 1}p{j + 1}", guilds=[guild]) for j in range(3)],
                    dm_moves=KINDS[i % len(KINDS)] in SECRET,
                )
                for i, channel in enumerate(channels)
            ]
        # One server per shard; table i in server i % N (a thread of the server's previous channel
        # every other time round). Each table has players of its own (three, the most a game here
        # seats), so a typed DM answer always belongs to one game.
        count = self.args.processes
        self.guilds = [emu.add_guild(f"Crash Shard {k}", shard=(k, count)) for k in range(count)]
        last: dict[int, Channel] = {}
        tables = []
        for i in range(self.args.games):
            k = i % count
            guild = self.guilds[k]
            if (i // count) % 2 == 1 and k in last:
                channel = emu.add_thread(last[k], f"table-{i + 1}")
            else:
                channel = last[k] = emu.add_text_channel(guild, f"table-{i + 1}")
            users = [emu.add_user(f"t{i + 1}p{j + 1}", guilds=[guild]) for j in range(3)]
            kind = KINDS[i % len(KINDS)]
            tables.append(
                Table(
                    channel,
                    kind,
                    users,
                    computer=i % 3 == 1,
                    timeout=SHORT_TIMEOUT if i % 2 == 0 else None,
                    dm_moves=kind in SECRET,
                )
            )
        return tables

    def watch_messages(self) -> None:
        """Index DM traffic as the emulator creates it (its own lookups scan every message), drop the
        bytes of uploaded images once stored (nothing reads them; a long run would hold them all), and
        count the posts Discord answered with an earlier message of the same nonce."""
        emu = self.emu
        create, nonce_message = emu.create_message, emu.nonce_message

        def create_message(*args: Any, **kwargs: Any) -> MessageRecord:
            message = create(*args, **kwargs)
            if message.attachments:
                message.attachments = [replace(a, data=b"") for a in message.attachments]
            if message.channel.is_dm:
                self.dm_log[message.channel.id].append(message)
            elif message.author.id == emu.bot_user.id:
                self.posts[message.channel.id].append(message)
            return message

        def repeated(*args: Any, **kwargs: Any) -> MessageRecord | None:
            found = nonce_message(*args, **kwargs)
            if found is not None:
                self.nonce_repeats += 1
            return found

        emu.create_message = create_message  # type: ignore[method-assign]
        emu.nonce_message = repeated  # type: ignore[method-assign]

    def proc_for(self, channel: Channel) -> BotProcess:
        """The process Discord sends this channel's events to: its server's shard; shard 0 for DMs."""
        if not self.multi or channel.guild is None:
            return self.procs[0]
        return self.procs[shard_of(channel.guild.id, len(self.procs))]

    def dm_of(self, user: User) -> Channel:
        channel = self.dms.get(user.id)
        if channel is None:
            channel = self.dms[user.id] = self.emu.open_dm(user)
        return channel

    # ---- the bot's lives ------------------------------------------------------------------------

    def make_processes(self) -> None:
        if not self.multi:
            log = self.workdir / "bot.log"
            self.procs = [BotProcess(self.emu, self.db.url, log, guild_id=self.guilds[0].id)]
            return
        count = self.args.processes
        env = {
            "QUETBOT_CLOCK_OFFSET_FILE": str(self.clock_file),
            "QUETBOT_COMPUTER_PAUSE": "0.3",
            # Computers think in a thread of the bot's process: a SIGKILL then leaves no worker behind.
            "QUETBOT_COMPUTER_WORKERS": "0",
        }
        self.procs = [
            BotProcess(
                self.emu, self.db.url, self.workdir / f"bot-{k}.log", shard=k, count=count, extra_env=env
            )
            for k in range(count)
        ]

    def in_flight(self, proc: BotProcess | None = None) -> int:
        """Interactions sent to ``proc``'s current life (any process's) and not answered yet."""
        n = sum(
            1
            for p, epoch, rec in self.pending.values()
            if (proc is None or p is proc) and epoch == p.epoch and rec.callback is None
        )
        if proc is None or proc is self.procs[0]:
            n += self.typed_in_flight
        return n

    async def kill(self, proc: BotProcess) -> None:
        self.in_flight_at_kills.append(self.in_flight(proc))
        await proc.kill()
        self.kills += 1
        proc.kills += 1
        wal = (
            self.db.sqlite_file.with_name(self.db.sqlite_file.name + "-wal") if self.db.sqlite_file else None
        )
        if wal is not None and wal.exists() and wal.stat().st_size > 0:
            self.kills_leaving_wal += 1  # the next process recovers it
        # The emulator must see the gateway close before the next process connects.
        try:
            await self.emu.wait_until(proc.gone, 10.0, "the gateway to close")
            self.gateway_closes_seen += 1
        except EmulatorError as exc:
            self.tally.problems.append(f"kill {self.kills}: {exc}")
        # Keep the emulator's memory flat: the request log holds every uploaded board.
        self.emu.requests.clear()

    async def killer(self) -> None:
        lo, hi = self.args.uptime
        for _ in range(self.args.kills):
            await asyncio.sleep(self.rng.uniform(lo, hi))
            proc = self.rng.choice(self.procs)
            # A random moment, but one with interactions in flight (there almost always are).
            with contextlib.suppress(EmulatorError):
                await self.emu.wait_until(
                    lambda p=proc: self.in_flight(p) > 0, 2.0, "an interaction in flight"
                )
            await asyncio.sleep(self.rng.uniform(0, 0.03))
            await self.kill(proc)
            if self.multi:  # down a moment: the others go on meanwhile
                await asyncio.sleep(self.rng.uniform(0, 0.5))
            await proc.start()
        self.final = True
        self.final_at = time.monotonic()

    # ---- moving the time ------------------------------------------------------------------------

    def quiet(self, seconds: float) -> bool:
        """No request of the bot in flight and none for ``seconds`` (the emulator's own measure of
        activity; `wait_idle` would also wait for interactions a killed process left deferred)."""
        emu = self.emu
        idle = asyncio.get_running_loop().time() - emu._last_activity
        return emu._in_flight == 0 and idle >= seconds

    async def clock_mover(self) -> None:
        """Now and then, while the world is quiet, move every process's clock past the halfway
        reminder or the deadline of the 10-minute tables' waits."""
        lo, hi = self.args.jump_every
        while not self.final:
            await asyncio.sleep(self.rng.uniform(lo, hi))
            if self.final:
                return
            self.go.clear()
            try:
                try:
                    await self.emu.wait_until(
                        lambda: self.in_flight() == 0 and not self.pending and self.quiet(0.5),
                        8.0,
                        "a quiet moment",
                    )
                except EmulatorError:
                    self.jumps_skipped += 1
                    continue
                self.offset += self.rng.choice(JUMPS)
                self.clock_file.write_text(str(self.offset))
                self.jumps += 1
                # A moment for the processes' passes (every second) to find what fell due before the
                # players go on; sometimes none, so the players race the deadlines.
                await asyncio.sleep(self.rng.choice((0.0, 1.2, 2.5)))
            finally:
                self.go.set()

    # ---- one interaction ------------------------------------------------------------------------

    async def interact(
        self, channel: Channel, start: Callable[[], Awaitable[InteractionRecord]], what: str
    ) -> InteractionRecord | None:
        """Start an interaction once its process is up; the record once answered, None if never
        answered. A deferred answer is waited for (the board a move's interaction waits for)."""
        proc = self.proc_for(channel)
        await self.go.wait()
        await proc.up.wait()
        epoch = proc.epoch
        try:
            rec = await start()
        except EmulatorError as exc:
            self.tally.refusals[f"emulator: {what}: {str(exc)[:60]}"] += 1
            return None
        self.tally.interactions += 1
        self.tally.paths[what] += 1
        self.pending[rec.id] = (proc, epoch, rec)
        try:
            # Answered, or past the 3 s deadline; a kill leaves it unanswered (the deadline passes).
            with contextlib.suppress(EmulatorError):
                await self.emu.wait_until(
                    lambda: rec.callback is not None or proc.epoch != epoch,
                    self.emu.interaction_deadline + 0.5,
                    "an answer",
                )
            if rec.callback is not None and rec.callback.type == CallbackType.DEFERRED_CHANNEL_MESSAGE:
                with contextlib.suppress(EmulatorError):
                    await self.emu.wait_until(
                        lambda: (
                            (rec.original is not None and not rec.original.loading) or proc.epoch != epoch
                        ),
                        15.0,
                        "the deferred answer",
                    )
        finally:
            self.pending.pop(rec.id, None)
        if rec.callback is None:
            if proc.epoch == epoch and proc.up.is_set():
                self.tally.late += 1
            else:
                self.tally.unanswered += 1
            return None
        self.tally.latencies.append(rec.callback.latency)
        return rec

    @staticmethod
    def answer_text(rec: InteractionRecord) -> str:
        """What the answer says: the callback's content, or the deferred answer's final text."""
        assert rec.callback is not None
        if rec.callback.type == CallbackType.DEFERRED_CHANNEL_MESSAGE:
            return rec.original.content if rec.original is not None and not rec.original.loading else ""
        return str(rec.callback.data.get("content") or "")

    async def slash(
        self, user: User, channel: Channel, command: str, options: dict[str, Any]
    ) -> InteractionRecord | None:
        lobby = command.startswith("game ") or command.endswith(" new")
        what = f"/{command}" if lobby else "slash command (move)"
        return await self.interact(channel, lambda: self.emu.slash(user, channel, command, options), what)

    async def use(
        self,
        user: User,
        message: MessageRecord,
        component: dict[str, Any],
        what: str,
        value: str | None = None,
    ) -> InteractionRecord | None:
        """Click a button of ``message`` or (``value``) pick in one of its menus."""
        cid = str(component["custom_id"])
        if value is None:
            return await self.interact(message.channel, lambda: self.emu.click(user, message, cid), what)
        return await self.interact(
            message.channel, lambda: self.emu.select(user, message, cid, [value]), what
        )

    def refused(self, what: str, rec: InteractionRecord) -> None:
        self.tally.refusals[f"{what}: {self.answer_text(rec)[:70]}"] += 1

    # ---- the players ----------------------------------------------------------------------------

    async def table(self, table: Table, rng: random.Random) -> None:
        kind, channel, pool = table.kind, table.channel, table.users
        by_id = {u.id: u for u in pool}
        rules = RULES[kind]
        players: list[User] = []
        game_id: int | None = None
        idle = 0
        loop = asyncio.get_running_loop()
        last_change, last_version = loop.time(), -1
        home = self.proc_for(channel)
        while True:
            await self.go.wait()
            # (SQLite, one process: no connection of ours while it is down, see `Reader`)
            await home.up.wait()
            await asyncio.sleep(rng.uniform(0, self.args.think))
            info = await self.reader.live_game(channel.id)
            if info is None:
                if game_id is not None:  # our game is over
                    done = await self.reader.game(game_id)
                    if done is None or done.status != "finished":
                        self.tally.problems.append(
                            f"game #{game_id} ({kind}) left play as {done.status if done else 'missing'}"
                        )
                    else:
                        self.tally.games_finished[kind] += 1
                    game_id, players = None, []
                    idle = 0
                if self.final:
                    return
                players = rng.sample(pool, self.humans_for(table, rng))
                progressed = await self.open_lobby(table, players[0], rng)
            elif info.status == "lobby":
                if game_id != info.id:
                    game_id = info.id
                    self.tally.games_started[kind] += 1
                    if not players or players[0].id != info.host_id:
                        # A lobby we did not see opening (its answer was lost to a kill).
                        host = by_id[info.host_id]
                        others = [u for u in pool if u is not host]
                        players = [host, *rng.sample(others, self.humans_for(table, rng) - 1)]
                missing = [u for u in players if u.id not in info.seats]
                if missing:
                    progressed = await self.lobby_action(channel, missing[0], "join", info.id, rng)
                elif table.computer and not any(uid < 0 for uid in info.seats):
                    progressed = await self.add_computer(channel, by_id[info.host_id], info.id)
                else:
                    progressed = await self.lobby_action(channel, by_id[info.host_id], "start", info.id, rng)
            else:
                if game_id != info.id:  # started before we saw its lobby
                    game_id = info.id
                    self.tally.games_started[kind] += 1
                assert info.state is not None
                state = rules.State.from_dict(info.state)
                seats = sorted(rules.to_act(state))
                if not seats:
                    self.tally.problems.append(f"game #{info.id} ({kind}) is active but waits for nobody")
                    return
                humans = [s for s in seats if info.seats[s] > 0]
                if info.version != last_version:
                    last_change, last_version = loop.time(), info.version
                if not humans:  # the computers' moves (the bot's own due work)
                    if loop.time() - last_change > self.args.stuck_after:
                        raise Stuck(f"{kind} in {channel.name}: game #{info.id} waits for its computer")
                    await asyncio.sleep(0.1)
                    continue
                # The game is played in its place: its thread (started from the lobby card), or the
                # channel itself.
                place = self.emu.channels.get(info.place_id, channel)
                results = await asyncio.gather(
                    *(
                        self.move(table, place, info, state, seat, by_id[info.seats[seat]], rng)
                        for seat in humans
                    )
                )
                progressed = any(results)
            idle = 0 if progressed else idle + 1
            if idle >= 25:
                raise Stuck(f"{kind} in {channel.name}: no progress in 25 tries (game #{game_id})")
            if not progressed:
                await asyncio.sleep(rng.uniform(0.05, 0.1))

    @staticmethod
    def humans_for(table: Table, rng: random.Random) -> int:
        seated = 2 if table.kind == "numbers" else rng.randint(2, 3)
        return seated - 1 if table.computer else seated

    def options_for(self, table: Table, rng: random.Random) -> dict[str, Any]:
        quick, kind = self.args.quick, table.kind
        if kind == "procession":
            options: dict[str, Any] = {"n": rng.randint(4, 6 if quick else 8)}
        elif kind == "dots":
            options = {"size": rng.randint(3, 4 if quick else 5)}
        elif kind == "numbers":
            options = {"m": 3 if quick else rng.randint(3, 4)}
        elif kind == "divisors":
            options = {"m": rng.randint(3, 5 if quick else 7)}
        else:
            options = {}
        if table.timeout is not None:
            options["timeout"] = table.timeout
        return options

    async def open_lobby(self, table: Table, host: User, rng: random.Random) -> bool:
        command = f"{table.kind} new"
        rec = await self.slash(host, table.channel, command, self.options_for(table, rng))
        if rec is None:
            return False
        content = self.answer_text(rec)
        found = GAME_NUMBER.search(content)
        assert rec.callback is not None
        if rec.callback.ephemeral or "Lobby:" not in content or found is None:
            self.refused(f"/{command}", rec)
            return False
        self.tally.lobby_acks.append(LobbyAck("new", int(found[1]), host.id))
        return True

    def card(self, channel: Channel, game_id: int) -> MessageRecord | None:
        """The game's card (its lobby message) in the table's channel, if posted."""
        join = f"q:{game_id}:-:join"
        for message in reversed(self.posts.get(channel.id, [])):
            if join in custom_ids(first_form(message)):
                return message
        return None

    async def lobby_action(
        self, channel: Channel, user: User, verb: str, game_id: int, rng: random.Random
    ) -> bool:
        """Join or start: by the card's button, or by ``/game join`` / ``/game start``."""
        card = self.card(channel, game_id) if rng.random() < 0.5 else None
        button = live_control(card, verb) if card is not None else None
        if card is not None and button is not None and button["custom_id"] == f"q:{game_id}:-:{verb}":
            rec = await self.use(user, card, button, f"{verb.capitalize()} button (lobby card)")
            if rec is None:
                return False
            assert rec.callback is not None
            if rec.callback.type not in (CallbackType.UPDATE_MESSAGE, CallbackType.DEFERRED_UPDATE_MESSAGE):
                self.refused(f"{verb} button", rec)
                return False
            self.tally.lobby_acks.append(LobbyAck(verb, game_id, user.id, path="button"))
            return True
        rec = await self.slash(user, channel, f"game {verb}", {})
        if rec is None:
            return False
        content = self.answer_text(rec)
        if verb == "join":
            found = SEAT_NUMBER.search(content)
            if found is None or int(found[1]) != game_id:
                self.refused("/game join", rec)
                return False
            self.tally.lobby_acks.append(LobbyAck("join", game_id, user.id, int(found[2]) - 1))
            return True
        if f"Game #{game_id} has started" not in content:
            self.refused("/game start", rec)
            return False
        self.tally.lobby_acks.append(LobbyAck("start", game_id, user.id))
        return True

    async def add_computer(self, channel: Channel, host: User, game_id: int) -> bool:
        rec = await self.slash(host, channel, "game addbot", {"level": "easy"})
        if rec is None:
            return False
        found = SEAT_NUMBER.search(self.answer_text(rec))
        if found is None or int(found[1]) != game_id:
            self.refused("/game addbot", rec)
            return False
        self.tally.lobby_acks.append(LobbyAck("addbot", game_id, host.id, int(found[2]) - 1))
        return True

    async def move(
        self,
        table: Table,
        place: Channel,
        info: GameInfo,
        state: Any,
        seat: int,
        user: User,
        rng: random.Random,
    ) -> bool:
        """One legal move for ``seat``, chosen at random, by an input path chosen at random: the game's
        slash command in its place; the board's buttons or menus (Procession, Lines By The Dots, whose
        start-dot menu answers with the private "Where does it end?" menu); for the secret games, the
        DM panel's controls and forms, the panel the board's **My move** / **My hand** button shows
        privately, or a typed DM reply. A path that offers no control for the move now (its board or
        panel not shown yet) falls back to the slash command."""
        kind = info.kind
        rules = RULES[kind]
        legal = [a for a in rules.legal_actions(state, seat) if a["type"] not in ("forfeit", "drop")]
        if not legal:
            self.tally.problems.append(f"game #{info.id} ({kind}): seat {seat} must act but has no move")
            return False
        choice = dict(rng.choice(legal))
        if kind == "updown" and choice["type"] == "predict":
            size = rng.randint(1, min(4, state.max_letters))
            choice["letters"] = "".join(rng.choice("UDS") for _ in range(size))
        paths = ["command"]
        if kind not in SECRET:
            paths.append("board")
        elif table.dm_moves:
            paths += ["panel", "mine", "typed"]
        path = rng.choice(paths)
        done: bool | None = None
        if path == "board":
            done = await self.board_move(place, info, seat, user, choice)
        elif path == "panel":
            panel = self.dm_panel(user, info.id)
            done = None if panel is None else await self.panel_move(info, seat, user, choice, panel)
        elif path == "mine":
            done = await self.mine_move(place, info, seat, user, choice)
        elif path == "typed":
            done = await self.typed_move(info, seat, user, choice, rng)
        if done is not None:
            return done
        return await self.command_move(place, info, seat, user, choice, rng)

    def board(self, place: Channel, info: GameInfo) -> MessageRecord | None:
        """The board of the game's current version in its place, if posted (and still offering moves)."""
        for message in reversed(self.posts.get(place.id, [])):
            if message.ephemeral or board_of(first_form(message)) != (info.id, info.version):
                continue
            return message if any(c.get("custom_id") for c in message.all_components()) else None
        return None

    async def board_move(
        self, place: Channel, info: GameInfo, seat: int, user: User, choice: dict[str, Any]
    ) -> bool | None:
        """The move from the board: Procession's position button; a line of Lines By The Dots from
        the board's end menu, or from its start menu and then the private "Where does it end?" menu.
        Answered by taking the board's (or the private menu's) controls off."""
        board = self.board(place, info)
        if board is None:
            return None
        if info.kind == "procession":
            position = str(choice["position"])
            found = [b for b in board.buttons() if b.get("label") == position and not b.get("disabled")]
            if not found:
                return None
            rec = await self.use(user, board, found[0], "board button")
            what = "board button"
        elif choice["from"] is None:
            menu = live_control(board, "to", choice["to"])
            if menu is None:
                return None
            rec = await self.use(user, board, menu, "board menu (end)", choice["to"])
            what = "board end menu"
        else:
            menu = live_control(board, "from", choice["from"])
            if menu is None:
                return None
            opened = await self.use(user, board, menu, "board menu (start)", choice["from"])
            if opened is None:
                return False
            picker = private_menu(opened)
            if picker is None:
                self.refused("board start menu", opened)
                return False
            ends = live_control(picker, "to", choice["to"])
            if ends is None:
                self.tally.problems.append(f"game #{info.id}: the private menu does not offer {choice['to']}")
                return False
            rec = await self.use(user, picker, ends, "private end menu", choice["to"])
            what = "private end menu"
        if rec is None:
            return False
        assert rec.callback is not None
        if rec.callback.type is not CallbackType.UPDATE_MESSAGE:
            if not rec.callback.ephemeral and board_of(first_form(rec.original)) if rec.original else False:
                # Saved, but answered as a command is (with the new board), not by taking the clicked
                # board's controls off.
                self.tally.problems.append(f"game #{info.id}: a {what} click answered with a new board")
            else:
                self.refused(what, rec)
                return False
        self.tally.acks.append(Ack(info.id, seat, choice, "board"))
        return True

    async def mine_move(
        self, place: Channel, info: GameInfo, seat: int, user: User, choice: dict[str, Any]
    ) -> bool | None:
        """The move from the panel the board's My move / My hand button shows the player privately."""
        board = self.board(place, info)
        mine = live_control(board, "mine") if board is not None else None
        if board is None or mine is None:
            return None
        rec = await self.use(user, board, mine, "My move button (board)")
        if rec is None:
            return False
        panel = rec.original
        if panel is None or not panel.ephemeral:
            self.refused("My move button", rec)
            return False
        return await self.panel_move(info, seat, user, choice, panel, path="mine")

    async def command_move(
        self,
        place: Channel,
        info: GameInfo,
        seat: int,
        user: User,
        choice: dict[str, Any],
        rng: random.Random,
    ) -> bool:
        kind = info.kind
        by_label = kind == "updown" and rng.random() >= 0.5
        command, options = slash_move(kind, choice, rank_label=by_label)
        rec = await self.slash(user, place, command, options)
        if rec is None:
            return False
        assert rec.callback is not None
        content = self.answer_text(rec)
        if kind in SECRET:
            ok = rec.callback.ephemeral and "✅" in content
        else:
            # The new board, or (its board handed to the channel) the word that the move is saved.
            ok = (not rec.callback.ephemeral and rec.callback.type == CallbackType.CHANNEL_MESSAGE) or (
                SAVED in content
            )
        if not ok:
            self.refused(f"/{command}", rec)
            return False
        self.tally.acks.append(Ack(info.id, seat, choice))
        return True

    # ---- moves from DMs (several processes: they reach shard 0) ----------------------------------

    def dm_panel(self, user: User, game_id: int) -> MessageRecord | None:
        """The newest DM panel of the game the bot sent ``user``."""
        bot_id = self.emu.bot_user.id
        for message in reversed(self.dm_log.get(self.dm_of(user).id, [])):
            if message.author.id != bot_id or message.deleted:
                continue
            found = PANEL_HEADER.match(message.content)
            if found is not None and int(found[1]) == game_id:
                return message
        return None

    async def panel_move(
        self,
        info: GameInfo,
        seat: int,
        user: User,
        choice: dict[str, Any],
        panel: MessageRecord,
        *,
        path: str = "panel",
    ) -> bool | None:
        """The move from a panel of the player's (their DM panel, or the one shown privately under the
        board): its button and the form it opens (Numbers' pick, a prediction), or its menu (a card).
        None when the panel offers no such control now."""
        gid, kind = info.id, info.kind
        if kind == "numbers":
            verb, form = "pick", {"number": str(choice["number"])}
        elif kind == "updown" and choice["type"] == "predict":
            verb, form = "predict", {"letters": choice["letters"]}
        elif kind == "updown":
            verb, form, value = "play", None, str(choice["rank"])
        else:
            verb, form, value = "pick", None, str(choice["card"])
        cid = f"q:{gid}:-:{verb}"
        component = panel.component(cid)
        if component is None:
            return None
        where = "DM panel" if path == "panel" else "private panel"
        if form is None:
            if value not in [o.get("value") for o in component.get("options") or []]:
                return None
            rec = await self.use(user, panel, component, f"{where} menu", value)
        else:
            opened = await self.use(user, panel, component, f"{where} button")
            if opened is None:
                return False
            if opened.modal is None:
                self.refused(f"{where} {verb} button", opened)
                return False
            rec = await self.interact(
                panel.channel, lambda: self.emu.submit_modal(user, opened, values=form), f"{where} form"
            )
        if rec is None:
            return False
        if "✅" not in self.answer_text(rec):
            self.refused(f"{where} {verb}", rec)
            return False
        self.tally.acks.append(Ack(gid, seat, choice, path))
        return True

    async def typed_move(
        self, info: GameInfo, seat: int, user: User, choice: dict[str, Any], rng: random.Random
    ) -> bool | None:
        """The move typed as a DM reply. Its answer is the DM panel with a note naming the move (an
        edit, or a new panel), carried out by whichever process holds the game's announcements. So
        that a note of an earlier move (carried out again after a crash) is never taken for this
        move's, a seat never types the same text twice in a game; None when it would have to."""
        if info.kind == "numbers":
            text = str(choice["number"])
            expect = re.compile(rf"✅ (?:Your pick|You picked) \*\*{choice['number']}\*\* ")
        elif info.kind == "divisors":
            # The note names the card while the other pick is awaited; the pick that reveals says "both
            # cards are in", as a note of an earlier round (carried out again) may: answered, but not
            # counted as acknowledged.
            text = str(choice["card"])
            expect = re.compile(rf"✅ Your card \*\*{text}\*\* is in")
            unsure = "✅ Both cards are in."
        elif choice["type"] == "predict":
            text = choice["letters"]
            expect = re.compile(rf"✅ Your prediction `{text}` is in")
        else:
            label = RULES["updown"].rank_label(choice["rank"])
            text = label if rng.random() < 0.5 else str(choice["rank"])
            expect = re.compile(rf"✅ You placed {re.escape(label)}[♣♦♥♠]")
        if info.kind != "divisors":
            unsure = "\0"  # (never in a note)
        used = self.typed_used[(info.id, seat)]
        if text in used:
            return None
        used.add(text)
        proc = self.procs[0]
        await self.go.wait()
        await proc.up.wait()
        dm = self.dm_of(user)
        bot_id = self.emu.bot_user.id
        mark = {m.id: len(m.history) for m in self.dm_log[dm.id] if m.author.id == bot_id}
        kills = self.kills
        self.typed_in_flight += 1
        self.tally.typed_sent += 1
        try:
            await self.emu.send_dm(user, text)

            def answer() -> str | None:
                for m in self.dm_log[dm.id]:
                    if m.author.id != bot_id or (m.id in mark and len(m.history) == mark[m.id]):
                        continue
                    if expect.search(m.content):
                        return "taken"
                    if unsure in m.content:
                        return "unsure"
                    if m.id not in mark and not PANEL_HEADER.match(m.content) and m.content[:1] not in "⏰🔔":
                        return m.content  # a new DM that is neither a panel nor a notice: a refusal
                return None

            try:
                said = await self.emu.wait_until(answer, TYPED_WAIT, "the answer to a typed move")
            except EmulatorError:
                said = None
        finally:
            self.typed_in_flight -= 1
        if said is None:
            if self.kills != kills:
                self.tally.typed_unanswered += 1
            else:
                self.tally.typed_late += 1
            return False
        if said == "unsure":
            self.tally.typed_unsure += 1
            return True
        if said != "taken":
            self.tally.refusals[f"typed DM: {said[:70]}"] += 1
            return False
        self.tally.acks.append(Ack(info.id, seat, choice, "typed"))
        return True

    # ---- the whole run --------------------------------------------------------------------------

    async def choose_notifications(self, tables: list[Table]) -> None:
        """The players of the 10-minute tables are told of their move by mention and by DM, as
        ``/game notify mode:both`` records it. Written before the processes start, which read these
        choices when they start (a choice made later reaches the other processes at their restart)."""
        from bot.storage import Storage

        storage = await Storage.open(self.db.url, score_ranked=SCORE_RANKED)
        try:
            for user in (u for t in tables if t.timeout is not None for u in t.users):
                await storage.set_user_setting(user_id=user.id, key="notify", value="both")
        finally:
            await storage.close()

    async def run(self) -> int:
        t0 = self.t0 = time.monotonic()
        emu = self.emu
        await emu.start()
        self.watch_messages()
        tables_built = self.build_world()
        tasks: list[asyncio.Task[None]] = []
        helpers: list[asyncio.Task[None]] = []
        try:
            await self.db.open()
            self.make_processes()
            if self.multi:
                await self.choose_notifications(tables_built)
            await self.procs[0].start()  # (shard 0 syncs the commands: the others find them synced)
            await asyncio.gather(*(proc.start() for proc in self.procs[1:]))
            await self.reader.open()
            self.started_at = time.monotonic()
            for table in tables_built:
                rng = random.Random(self.rng.getrandbits(64))
                tasks.append(asyncio.create_task(self.table(table, rng), name=table.channel.name))
            helpers.append(asyncio.create_task(self.killer(), name="killer"))
            if self.multi:
                helpers.append(asyncio.create_task(self.clock_mover(), name="clock"))
            waiting: set[asyncio.Task[None]] = {*helpers, *tasks}
            end = asyncio.get_running_loop().time() + self.args.timeout
            while waiting:
                left = end - asyncio.get_running_loop().time()
                done, waiting = await asyncio.wait(
                    waiting, timeout=max(left, 0), return_when=asyncio.FIRST_EXCEPTION
                )
                if not done:
                    raise Stuck(f"the games were not over after {self.args.timeout:.0f} s")
                for task in done:
                    task.result()
            self.ended_at = time.monotonic()
            # Let the bot finish what the last moves started (boards, DM panels) before stopping it:
            # its outbox empty (what a killed life left behind included), then no request for a second.
            await self.outbox_emptied(60.0)
            with contextlib.suppress(EmulatorError):
                await emu.wait_until(lambda: self.quiet(1.0), 20.0, "the bot to finish")
        except (Stuck, RuntimeError, OSError) as exc:
            self.tally.problems.append(f"run aborted: {exc}")
        finally:
            others = [*tasks, *helpers]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)
            await asyncio.gather(*(proc.stop() for proc in self.procs))
            await emu.stop()
        played = time.monotonic() - t0
        try:
            found = await self.verify() if self.db.url else {"integrity": "no database"}
        finally:
            await self.reader.close()
            await self.db.close()
        return self.report(found, played)

    async def outbox_emptied(self, within: float) -> None:
        """Wait (at most ``within`` seconds) until the bot's outbox holds nothing."""
        end = asyncio.get_running_loop().time() + within
        while asyncio.get_running_loop().time() < end:
            ((left,),) = (await self.reader.read([("SELECT COUNT(*) FROM outbox", ())]))[0]
            if not left:
                return
            await asyncio.sleep(0.5)

    # ---- checking the database and the emulator's records ---------------------------------------

    async def verify(self) -> dict[str, Any]:
        out: dict[str, Any] = {"lost": [], "lobby_lost": [], "mismatches": [], "unfinished": []}
        try:
            await self.reader.open()
            games_rows, seat_rows, move_rows, outbox_rows = await self.reader.read(
                [
                    (
                        "SELECT id, kind, status, options, seed, state, result, version, lobby_message_id, "
                        "place_id "
                        "FROM games ORDER BY id",
                        (),
                    ),
                    ("SELECT game_id, user_id FROM seats ORDER BY game_id, position", ()),
                    ("SELECT game_id, seat, action FROM moves ORDER BY game_id, seq", ()),
                    ("SELECT game_id, kind FROM outbox ORDER BY id", ()),
                ]
            )
            out["undone"] = [f"game #{gid}: {kind}" for gid, kind in outbox_rows]
            out["integrity"] = await self.reader.integrity()
        except Exception as exc:  # no database at all (the first process never started), or unreadable
            out["integrity"] = f"unreadable: {str(exc)[:200]}"
            return out
        games = {int(r[0]): r for r in games_rows}
        seats: dict[int, list[int]] = defaultdict(list)
        for gid, uid in seat_rows:
            seats[int(gid)].append(int(uid))
        moves: dict[int, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
        for gid, seat, action in move_rows:
            moves[int(gid)].append((int(seat), json.loads(action)))
        out["games"] = len(games)
        out["moves"] = sum(len(m) for m in moves.values())
        out["computer_moves"] = sum(1 for g, m in moves.items() for s, _ in m if seats[g][s] < 0)
        out["timeouts"] = sum(1 for m in moves.values() for _, a in m if a == TIMEOUT_FORFEIT)

        # Every acknowledged move is in the log: per (game, seat), the acknowledged actions appear in
        # the logged actions of that seat, in order (a seat has one interaction in flight at a time).
        acked: dict[tuple[int, int], list[Ack]] = defaultdict(list)
        for ack in self.tally.acks:
            acked[(ack.game_id, ack.seat)].append(ack)
        matched = 0
        for (gid, seat), acks in acked.items():
            logged = [canonical(a) for s, a in moves.get(gid, []) if s == seat]
            i = 0
            for ack in acks:
                want = canonical(ack.action)
                while i < len(logged) and logged[i] != want:
                    i += 1
                if i == len(logged):
                    out["lost"].append(ack)
                else:
                    matched += 1
                    i += 1
        out["unanswered_commits"] = out["moves"] - matched - out["computer_moves"] - out["timeouts"]

        for lob in self.tally.lobby_acks:
            row = games.get(lob.game_id)
            ok = row is not None
            taken = seats[lob.game_id][lob.seat : lob.seat + 1] if lob.seat is not None else []
            if ok and lob.verb == "join":
                ok = taken == [lob.user_id] if lob.seat is not None else lob.user_id in seats[lob.game_id]
            if ok and lob.verb == "addbot":
                ok = len(taken) == 1 and taken[0] < 0
            if ok and lob.verb == "start":
                ok = row is not None and row[2] != "lobby" and row[5] is not None
            if not ok:
                out["lobby_lost"].append(lob)

        # Every game is over, and its move log replays to the stored state and result.
        for gid, (_, kind, status, options, seed, state, result, *_) in sorted(games.items()):
            if status != "finished":
                out["unfinished"].append(f"game #{gid} ({kind}) is {status}")
                continue
            rules = RULES[kind]
            try:
                replayed = rules.new_game(len(seats[gid]), json.loads(options), int(seed))
                for seat, action in moves.get(gid, []):
                    replayed = play(rules, replayed, seat, action)
                stored = rules.State.from_dict(json.loads(state))
                outcome = rules.outcome(replayed)
                same = (
                    replayed == stored
                    and canonical(replayed.to_dict()) == json.loads(state)
                    and outcome is not None
                    and canonical(outcome.to_dict()) == json.loads(result)
                )
            except Exception as exc:  # a log that does not even replay is a mismatch too
                out["mismatches"].append(f"game #{gid} ({kind}): replay failed: {exc!r}")
                continue
            if not same:
                out["mismatches"].append(
                    f"game #{gid} ({kind}): the replayed state differs from the stored one"
                )

        # Nothing due done twice, as Discord saw it; and every forfeit at a deadline announced.
        doubles = find_doubles(self.emu.messages.values(), self.emu.bot_user.id)
        out["doubles"] = doubles
        out["unannounced_timeouts"] = self.unannounced_timeouts(moves, seats)
        out.update(self.check_boards(games, seats, moves))
        return out

    def shown_boards(self, cards: set[int]) -> dict[int, list[tuple[int, MessageRecord]]]:
        """Each game's boards as the channels show them, in the order they were posted: (version,
        message). A board answering a command may first be "thinking": its first form naming a
        version is the board."""
        out: dict[int, list[tuple[int, MessageRecord]]] = defaultdict(list)
        posts = sorted((m for ms in self.posts.values() for m in ms if not m.ephemeral), key=lambda m: m.seq)
        for message in posts:
            if message.id in cards or any(cid.endswith(":-:join") for cid in custom_ids(first_form(message))):
                continue  # a card: it shows the final board at the end
            board = next((b for v in message.versions if (b := board_of(v)) is not None), None)
            if board is not None:
                out[board[0]].append((board[1], message))
        return out

    def bare_board(self, gid: int, place: int, version: int, boards: list[tuple[int, MessageRecord]]) -> bool:
        """Whether the game's place shows a post of the game with neither image nor controls where
        the board of ``version`` belongs (after the board before it, before the one after it): a
        board of Lines By The Dots between the two lines of a turn has no image, and posted late
        (a newer version saved meanwhile) no controls, so nothing in it names its version."""
        before = max((m.seq for v, m in boards if v < version), default=0)
        after = min((m.seq for v, m in boards if v > version), default=1 << 62)
        return any(
            before < m.seq < after
            and not m.ephemeral
            and f"game #{gid}" in first_form(m).content
            and not first_form(m).attachments
            and not custom_ids(first_form(m))
            for m in self.posts.get(place, [])
        )

    def check_boards(
        self,
        games: dict[int, tuple[Any, ...]],
        seats: dict[int, list[int]],
        moves: dict[int, list[tuple[int, dict[str, Any]]]],
    ) -> dict[str, Any]:
        """Boards and cards, against the move logs:

        - one board per version that the log says shows one (the start, and every move that is not
          a quiet secret choice), none missing, none for a quiet move, posted in order of versions;
        - no board's text lost its earlier lines: a quiet move edits the current board's text below
          what it said above its status line (the reveals), which must stay;
        - each game has its card, and at the end the card offers no lobby control (Join, Start)."""
        # A game's card is the message the bot recorded as its lobby message (posted late, after a
        # kill, it may show the game already started: no Join button in its first form).
        cards = {gid: self.emu.messages.get(int(row[8])) for gid, row in games.items() if row[8] is not None}
        shown = self.shown_boards({m.id for m in cards.values() if m is not None})
        missing: list[str] = []
        extra: list[str] = []
        disorder: list[str] = []
        texts_lost: list[str] = []
        cards_broken: list[str] = []
        boards_checked = texts_checked = cards_checked = 0
        for gid, row in sorted(games.items()):
            kind, status, version = str(row[1]), str(row[2]), int(row[7])
            card = cards.get(gid)
            if card is None or card.deleted:
                cards_broken.append(f"game #{gid} ({kind}): no card")
            else:
                cards_checked += 1
                left = [v for v in ("join", "start", "leave") if live_control(card, v) is not None]
                if status == "finished" and left:
                    cards_broken.append(f"game #{gid} ({kind}): the card still offers {', '.join(left)}")
            if status != "finished":
                continue
            rules = RULES[kind]
            quiet = SPECS[kind].present.quiet
            log = moves.get(gid, [])
            start = version - len(log)
            expected = [start]
            state = rules.new_game(len(seats[gid]), json.loads(row[3]), int(row[4]))
            for i, (seat, action) in enumerate(log):
                after = play(rules, state, seat, action)
                news = News(
                    seat, rules.view_for(state, None), rules.view_for(after, None), forfeit_of(action)
                )
                if not quiet(news):
                    expected.append(start + i + 1)
                state = after
            got = [v for v, _ in shown.get(gid, [])]
            boards_checked += len(got)
            lacking = sorted(set(expected) - set(got))
            if lacking and row[9] is not None:
                lacking = [v for v in lacking if not self.bare_board(gid, int(row[9]), v, shown.get(gid, []))]
            if lacking:
                missing.append(f"game #{gid} ({kind}): no board of version(s) {lacking}")
            if set(got) - set(expected):
                extra.append(
                    f"game #{gid} ({kind}): boards of quiet version(s) {sorted(set(got) - set(expected))}"
                )
            if got != sorted(got):
                disorder.append(f"game #{gid} ({kind}): boards posted in the order {got}")
            for v, message in shown.get(gid, []):
                first = next(m for m in message.versions if board_of(m) is not None).content
                above = first.rsplit("\n", 1)[0]
                texts_checked += 1
                if not message.content.startswith(above):
                    texts_lost.append(
                        f"game #{gid} ({kind}) board of version {v}: {first!r} became {message.content!r}"
                    )
        return {
            "boards_missing": missing,
            "boards_extra": extra,
            "boards_disorder": disorder,
            "texts_lost": texts_lost,
            "cards_broken": cards_broken,
            "boards_checked": boards_checked,
            "texts_checked": texts_checked,
            "cards_checked": cards_checked,
        }

    def unannounced_timeouts(
        self, moves: dict[int, list[tuple[int, dict[str, Any]]]], seats: dict[int, list[int]]
    ) -> list[str]:
        """The timeout forfeits in the move logs with no "... ran out of time" news in their game."""
        said: set[tuple[int, int]] = set()
        bot_id = self.emu.bot_user.id
        for message in self.emu.messages.values():
            if (
                message.author.id != bot_id
                or message.channel.guild is None
                or "ran out of time" not in (first := message.versions[0].content)
            ):
                continue
            game = GAME_NUMBER.search(first)
            if game is None:
                continue
            for uid in seats.get(int(game[1]), []):
                if f"{mention(uid)} ran out of time" in first:
                    said.add((int(game[1]), uid))
        missing = []
        for gid, log in moves.items():
            for seat, action in log:
                if action == TIMEOUT_FORFEIT and (gid, seats[gid][seat]) not in said:
                    missing.append(f"game #{gid}: seat {seat}'s timeout was never announced")
        return missing

    # ---- the report -----------------------------------------------------------------------------

    def logged_errors(self) -> Counter[str]:
        """The bot's ERROR log lines, by message, each with the exception its traceback ends with."""
        errors: Counter[str] = Counter()
        for log in sorted({p.log for p in self.procs}):
            if not log.exists():
                continue
            lines = [ANSI.sub("", raw) for raw in log.read_text(errors="replace").splitlines()]
            for i, text in enumerate(lines):
                if " ERROR " not in text:
                    continue
                message = text.split(" ERROR ", 1)[1].strip()[:100]
                # The traceback follows, up to the next log line (which starts with its date).
                block = list(itertools.takewhile(lambda t: not LOG_LINE.match(t), lines[i + 1 :]))
                raised = next((t.strip() for t in reversed(block) if t.strip()), "")
                errors[f"{message} | {raised[:160]}" if raised else message] += 1
        return errors

    def report(self, found: dict[str, Any], played: float) -> int:
        t = self.tally
        errors = self.logged_errors()
        finished = sum(t.games_finished.values())
        by_kind = ", ".join(f"{k} {t.games_finished[k]}" for k in KINDS)
        ready = [r for p in self.procs for r in p.ready_times[1:]] or [
            r for p in self.procs for r in p.ready_times
        ]
        identifies = sum(1 for e in self.emu.gateway.log if e.kind == "identify")
        lost, lobby_lost = found.get("lost", []), found.get("lobby_lost", [])
        mismatches, unfinished = found.get("mismatches", []), found.get("unfinished", [])
        doubles: Doubles = found.get("doubles") or Doubles()
        unannounced = found.get("unannounced_timeouts", [])
        undone = found.get("undone", [])
        boards_missing, boards_extra = found.get("boards_missing", []), found.get("boards_extra", [])
        boards_disorder, texts_lost = found.get("boards_disorder", []), found.get("texts_lost", [])
        cards_broken = found.get("cards_broken", [])
        shown_problems = [*boards_missing, *boards_extra, *boards_disorder, *texts_lost, *cards_broken]
        refusals = sum(t.refusals.values())
        paths = Counter(a.path for a in t.acks)

        def line(label: str, value: object) -> None:
            print(f"  {label:<38} {value}")

        where = (
            f"{len(self.procs)} processes (shards 0-{len(self.procs) - 1} of {len(self.procs)})"
            if self.multi
            else "the bot"
        )
        tables = f"{self.args.games} tables"
        print(f"Crash safety: {tables}, {where} on {self.db.label}, SIGKILLed {self.kills} times")
        line(
            "kills (SIGKILL)",
            f"{self.kills} (interactions in flight at the kills: {sum(self.in_flight_at_kills)})",
        )
        if self.multi:
            line("  by process", ", ".join(f"{p.name}: {p.kills}" for p in self.procs))
        line("gateway closes seen by the emulator", f"{self.gateway_closes_seen} of {self.kills}")
        if self.db.sqlite_file is not None:
            line("kills leaving a WAL to recover", f"{self.kills_leaving_wal} of {self.kills}")
        line(
            "bot processes started (IDENTIFYs)",
            f"{sum(len(p.ready_times) for p in self.procs)} ({identifies})",
        )
        if ready:
            line("start to BENCH-READY", f"median {statistics.median(ready):.2f} s, max {max(ready):.2f} s")
        line("games played to the end", f"{finished}: {by_kind}")
        line("games in the database", found.get("games", 0))
        line("interactions sent", t.interactions)
        for what, count in sorted(t.paths.items(), key=lambda kv: (-kv[1], kv[0])):
            line(f"  {what}", count)
        line("  unanswered (in flight at a kill)", t.unanswered)
        line("  unanswered within 3 s, bot up", t.late)
        if t.latencies:
            lat = sorted(t.latencies)
            p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
            line(
                "  time to the answer",
                f"median {statistics.median(lat) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms",
            )
        line("  refused (answered, not a success)", refusals)
        line("moves typed in DMs", t.typed_sent)
        line("  no answer seen, a process killed", t.typed_unanswered)
        line(f"  no answer within {TYPED_WAIT:.0f} s, none killed", t.typed_late)
        line("  answered 'both cards are in' (not counted)", t.typed_unsure)
        if self.multi:
            line("clock moves (310 or 610 s)", f"{self.jumps} (skipped, never quiet: {self.jumps_skipped})")
        lobby_paths = Counter(f"{a.verb} by {a.path}" for a in t.lobby_acks)
        line(
            "lobby actions acknowledged",
            f"{len(t.lobby_acks)} ({', '.join(f'{k} {v}' for k, v in sorted(lobby_paths.items()))})",
        )
        line(
            "moves acknowledged", f"{len(t.acks)} ({', '.join(f'{k} {v}' for k, v in sorted(paths.items()))})"
        )
        line("moves in the log", found.get("moves", 0))
        if self.multi:
            line("  by computers", found.get("computer_moves", 0))
            line("  forfeits at a deadline", found.get("timeouts", 0))
        line("  committed, never answered", found.get("unanswered_commits", 0))
        line("posts repeated, answered by their nonce", self.nonce_repeats)
        seen = ", ".join(f"{k} {doubles.seen[k]}" for k in TWICE_KINDS)
        line("traces checked for doubles", seen)
        line("old boards still offering moves", len(doubles.stale_controls))
        line(
            "boards, texts, cards checked",
            ", ".join(str(found.get(k, 0)) for k in ("boards_checked", "texts_checked", "cards_checked")),
        )
        line("MOVES LOST", len(lost))
        line("LOBBY ACTIONS LOST", len(lobby_lost))
        line("REPLAY MISMATCHES", len(mismatches))
        line("DONE TWICE", doubles.total)
        line("BOARDS MISSING", len(boards_missing))
        line("BOARDS FOR QUIET MOVES", len(boards_extra))
        line("BOARDS OUT OF ORDER", len(boards_disorder))
        line("BOARD TEXTS THAT LOST LINES", len(texts_lost))
        line("CARDS MISSING OR STILL OPEN", len(cards_broken))
        line("FORFEITS NEVER ANNOUNCED", len(unannounced))
        line("EFFECTS LEFT IN THE OUTBOX", len(undone))
        line("UNFINISHED GAMES", len(unfinished))
        line("integrity", found.get("integrity"))
        line("errors in the bot's logs", sum(errors.values()))
        if self.ended_at:
            phases = (
                f"setup {self.started_at - self.t0:.1f} s, kills {self.final_at - self.started_at:.1f} s, "
                f"the last games {self.ended_at - self.final_at:.1f} s"
            )
            line("duration", f"{played:.1f} s ({phases})")
        else:
            line("duration", f"{played:.1f} s")
        for key, count in t.refusals.most_common(8):
            print(f"    refused x{count}: {key}")
        for key, count in errors.most_common(8):
            print(f"    bot log x{count}: {key}")  # (the message | the exception)
        for ack in lost[:20]:
            print(f"    LOST: game #{ack.game_id} seat {ack.seat} ({ack.path}) {json.dumps(ack.action)}")
        for lob in lobby_lost[:20]:
            print(f"    LOBBY ACTION LOST: {lob}")
        for kind, texts in doubles.found.items():
            for text in texts[:10]:
                print(f"    TWICE ({kind}): {text}")
        for text in doubles.stale_controls[:10]:
            print(f"    stale: {text}")
        if undone:
            print(f"    left in the outbox: {', '.join(undone[:10])}" + (", ..." if len(undone) > 10 else ""))
        for text in [
            *mismatches[:20],
            *unannounced[:20],
            *unfinished[:20],
            *shown_problems[:20],
            *t.problems[:20],
        ]:
            print(f"    {text}")
        integrity = str(found.get("integrity"))
        failed = (
            bool(lost or lobby_lost or mismatches or unfinished or unannounced or undone or t.problems)
            or bool(shown_problems)
            or doubles.total > 0
            or not (integrity == "ok" or integrity.startswith(("ok (", "not checked")))
            or self.kills < self.args.kills
            or finished == 0
        )
        print("FAIL" if failed else "PASS: nothing acknowledged was lost, nothing due was done twice")
        return 1 if failed else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the short form for CI (under a minute)")
    parser.add_argument(
        "--kills", type=int, help="how many times to SIGKILL a bot process (default 24; quick 5)"
    )
    parser.add_argument("--games", type=int, help="tables playing at once (default 25; quick 10)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the players' choices and the kills")
    parser.add_argument("--keep", action="store_true", help="keep the database and the bot's logs")
    parser.add_argument("--sweep", action="store_true", help="the kill-point sweeps (bench/kill_sweep.py)")
    parser.add_argument("--game", action="append", help="--sweep: the cases of this game (repeatable)")
    parser.add_argument("--path", default="", help="--sweep: the cases whose name holds this text")
    parser.add_argument(
        "--points", choices=("all", "ends", "first"), default="all", help="--sweep: which kill points"
    )
    parser.add_argument(
        "--processes",
        type=int,
        metavar="N",
        help="run the bot as N processes, shards 0..N-1 of N, over one database (default: one process, "
        "not sharded)",
    )
    parser.add_argument(
        "--db",
        default="sqlite",
        help="sqlite (a file, the default), postgresql (a throwaway server, tests/pg.py), or the "
        "postgresql:// URL of an empty database",
    )
    args = parser.parse_args(argv)
    if args.db not in ("sqlite", "postgresql") and not args.db.startswith(("postgresql://", "postgres://")):
        parser.error("--db takes sqlite, postgresql or a postgresql:// URL")
    if args.processes is not None and not 1 <= args.processes <= 16:
        parser.error("--processes takes 1 to 16")
    if args.kills is None:
        args.kills = 5 if args.quick else 24
    if args.games is None:
        args.games = 10 if args.quick else 25
    if args.seed is None:
        args.seed = random.randrange(1 << 32)
    args.uptime = (0.8, 2.0) if args.quick else (1.0, 4.0)  # seconds between a ready and the next kill
    args.jump_every = (2.0, 4.0) if args.quick else (4.0, 10.0)  # seconds between clock moves
    args.think = 0.05  # a player's pause before acting, at most (seconds)
    args.stuck_after = 60.0  # seconds a game may wait for its computer
    # The whole run, at most (seconds): a kill and the restart take a few seconds (more with several
    # processes on a small machine).
    args.timeout = 120.0 if args.quick else max(900.0, 300.0 + 20.0 * args.kills)
    return args


def sweep(args: argparse.Namespace, workdir: Path) -> int:
    from bench import kill_sweep

    names = [
        name
        for name, case in kill_sweep.CASES.items()
        if (not args.game or case.kind in args.game) and args.path in name
    ]
    if not names:
        print("no case matches --game and --path; the cases:", ", ".join(kill_sweep.CASES))
        return 2
    points = {"all": kill_sweep.every_point, "ends": kill_sweep.end_points, "first": kill_sweep.first_point}
    return asyncio.run(kill_sweep.run_sweeps(names, points[args.points], workdir))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="quetbot-crash-"))
    if args.sweep:
        status = sweep(args, workdir)
        if args.keep or status != 0:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
        return status
    print(f"seed {args.seed}; database and bot logs in {workdir}")
    status = 1
    try:
        status = asyncio.run(CrashRun(args, workdir).run())
    finally:
        if args.keep or status != 0:
            print(
                f"kept {workdir}"
                + (" (a throwaway PostgreSQL server is not kept)" if args.db == "postgresql" else "")
            )
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
