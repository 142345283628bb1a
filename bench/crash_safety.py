"""Crash safety, measured: games of all five kinds played through the loopback Discord emulator while the
bot, a process of its own, is killed with SIGKILL again and again and restarted on the same database.

    python bench/crash_safety.py [--quick] [--kills N] [--games N] [--seed N] [--keep]

The emulator (tests/emulator) runs in this process and keeps its world (guild, channels, threads,
users, messages, synced commands) across the bot's lives; the bot runs as ``python bench/launch_bot.py``
(the real ``quetbot`` entry point pointed at the emulator). ``--games`` tables (channels and threads,
every kind in turn) play at once, each starting a new game when its game ends: the host opens the
lobby with ``/<game> new``, the others ``/game join``, the host ``/game start``, then every seat the
game waits for acts with the game's slash command (a legal move chosen at random from the state the
bot stored, read from the SQLite file read-only). At a random moment, while interactions are in flight,
the bot is killed with SIGKILL; the emulator sees its gateway close, a new process IDENTIFYs on the
same database, and play goes on. After the last kill no new game starts and every game is played to
its end; then the bot is stopped and the database checked:

- every move the bot acknowledged is in the move log (same game, seat and action; per seat in order).
  A move counts as acknowledged when the bot's answer reached the emulator and was not a refusal: the
  new board (Procession, Lines By The Dots) or the private "✅ ..." answer (the secret games);
- every lobby action it acknowledged (a lobby opened, a seat taken, a start) is in the database;
- every game is finished, and its move log, replayed from ``rules.new_game(len(seats), options, seed)``
  with ``bot.games.play``, reproduces the stored state (and the stored result);
- ``PRAGMA integrity_check`` says ok.

Interactions in flight at a kill get no answer: they are not acknowledged (a player would retry), and a
move committed just before the kill but never answered is counted apart. The script exits non-zero if
anything acknowledged was lost, a replay differs, or a game could not be finished. ``--quick`` (CI)
plays 10 tables through 5 kills in well under a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

with warnings.catch_warnings():
    # discord.player imports the stdlib's audioop, deprecated since 3.11.
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import discord  # noqa: F401

from bench.launch_bot import start_bot  # noqa: E402
from bot.games import RULES, play  # noqa: E402
from tests.emulator import DiscordEmulator, EmulatorError  # noqa: E402
from tests.emulator.models import Channel, InteractionRecord, User  # noqa: E402

TOKEN = "crash.bot.token"
KINDS = ("procession", "dots", "updown", "numbers", "divisors")
SECRET = frozenset({"updown", "numbers", "divisors"})  # moves answered privately
GAME_NUMBER = re.compile(r"game #(\d+)")
SEAT_NUMBER = re.compile(r"game #(\d+): (\d+) players are in")  # the joiner is the last of them
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def canonical(value: Any) -> Any:
    """A JSON value as the database holds it (tuples become lists)."""
    return json.loads(json.dumps(value))


# ---- the bot as a process -------------------------------------------------------------------------


class BotProcess:
    """``bench/launch_bot.py`` on the emulator and the database; started, SIGKILLed, restarted."""

    def __init__(self, emu: DiscordEmulator, db: Path, guild_id: int, log: Path) -> None:
        self.emu, self.db, self.guild_id, self.log = emu, db, guild_id, log
        self.proc: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> float:
        """Start a process; seconds until it printed BENCH-READY."""
        with self.log.open("ab") as log:
            log.write(f"\n==== bot process started at {time.strftime('%H:%M:%S')} ====\n".encode())
        self.proc, ready = await start_bot(
            "quetbot", emu=self.emu, token=TOKEN, db=self.db, guild_id=self.guild_id, log=self.log
        )
        assert self.proc.stdout is not None
        self._drain = asyncio.create_task(self._drain_stdout(self.proc.stdout))
        return ready

    @staticmethod
    async def _drain_stdout(stream: asyncio.StreamReader) -> None:
        while await stream.readline():
            pass

    async def kill(self) -> None:
        """SIGKILL, this process only (by its pid), and reap it."""
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


# ---- reading the database (read-only) ---------------------------------------------------------------


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


class Reader:
    """Reads the bot's SQLite file, read-only: what the players know of each game.

    Each read opens its own connection and closes it before returning (no await in between), so no
    connection of ours is open when the bot is killed and restarted: the new process finds the
    database exactly as a crash leaves it and runs SQLite's own recovery of the WAL.
    """

    def __init__(self, db: Path) -> None:
        self.db = db

    def _game(self, where: str, args: tuple[Any, ...]) -> GameInfo | None:
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10, isolation_level=None)
        try:
            conn.execute("BEGIN")  # one snapshot for the game and its seats
            row = conn.execute(
                f"SELECT id, kind, status, host_id, options, seed, state, place_id FROM games WHERE {where}",
                args,
            ).fetchone()
            if row is None:
                return None
            seats = [
                int(r[0])
                for r in conn.execute(
                    "SELECT user_id FROM seats WHERE game_id = ? ORDER BY position", (row[0],)
                )
            ]
        finally:
            conn.close()
        return GameInfo(
            id=int(row[0]),
            kind=str(row[1]),
            status=str(row[2]),
            host_id=int(row[3]),
            options=json.loads(row[4]),
            seed=int(row[5]),
            state=None if row[6] is None else json.loads(row[6]),
            seats=seats,
            place_id=int(row[7] or 0),
        )

    def live_game(self, channel_id: int) -> GameInfo | None:
        return self._game("channel_id = ? AND status IN ('lobby', 'active')", (channel_id,))

    def game(self, game_id: int) -> GameInfo | None:
        return self._game("id = ?", (game_id,))


# ---- what was acknowledged ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Ack:
    """A move the bot acknowledged."""

    game_id: int
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True)
class LobbyAck:
    """A lobby action the bot acknowledged: ``new`` (game id), ``join`` (game id, seat), ``start``."""

    verb: str
    game_id: int
    user_id: int
    seat: int | None = None


@dataclass
class Tally:
    acks: list[Ack] = field(default_factory=list)
    lobby_acks: list[LobbyAck] = field(default_factory=list)
    interactions: int = 0
    unanswered: int = 0  # no callback: in flight at a kill
    late: int = 0  # no callback within Discord's 3 s with the same bot process up
    latencies: list[float] = field(default_factory=list)  # seconds to the answer
    refusals: Counter[str] = field(default_factory=Counter)  # answered, but not a success
    games_started: Counter[str] = field(default_factory=Counter)
    games_finished: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


class Stuck(Exception):
    """A table made no progress for too long with the bot up."""


# ---- the run ---------------------------------------------------------------------------------------


class CrashRun:
    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.workdir = workdir
        self.db = workdir / "quetbot.sqlite3"
        self.log = workdir / "bot.log"
        self.emu = DiscordEmulator(validate_schema=False, token=TOKEN)
        self.tally = Tally()
        self.bot_up = asyncio.Event()
        self.epoch = 0  # which bot process the interactions went to
        self.pending: dict[int, tuple[int, InteractionRecord]] = {}  # interaction id -> (epoch, record)
        self.final = False  # after the last kill: finish the games in play, start no new one
        self.kills = 0
        self.in_flight_at_kills: list[int] = []
        self.gateway_closes_seen = 0
        self.kills_leaving_wal = 0
        self.ready_times: list[float] = []
        self.reader: Reader | None = None
        self.bot: BotProcess | None = None

    # ---- the world ------------------------------------------------------------------------------

    def build_world(self) -> tuple[list[Channel], list[User]]:
        emu = self.emu
        guild = emu.add_guild("Crash Test Server")
        self.guild = guild
        channels: list[Channel] = []
        parents: list[Channel] = []
        for i in range(self.args.games):
            if i % 2 == 1 and parents:
                channels.append(emu.add_thread(parents[-1], f"table-{i + 1}"))
            else:
                parent = emu.add_text_channel(guild, f"table-{i + 1}")
                parents.append(parent)
                channels.append(parent)
        n_users = max(8, self.args.games)
        users = [emu.add_user(f"player{i + 1}", guilds=[guild]) for i in range(n_users)]
        return channels, users

    # ---- the bot's lives ------------------------------------------------------------------------

    async def start_bot(self) -> None:
        assert self.bot is not None
        ready = await self.bot.start()
        self.ready_times.append(ready)
        self.epoch += 1
        if self.reader is None:
            self.reader = Reader(self.db)
        self.bot_up.set()

    def in_flight(self) -> int:
        return sum(1 for epoch, rec in self.pending.values() if epoch == self.epoch and rec.callback is None)

    async def kill_bot(self) -> None:
        assert self.bot is not None
        self.bot_up.clear()
        self.in_flight_at_kills.append(self.in_flight())
        await self.bot.kill()
        self.kills += 1
        wal = self.db.with_name(self.db.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            self.kills_leaving_wal += 1  # the next process recovers it
        # The emulator must see the gateway close before the next process connects.
        try:
            await self.emu.wait_until(lambda: not self.emu.gateway.connected, 10.0, "the gateway to close")
            self.gateway_closes_seen += 1
        except EmulatorError as exc:
            self.tally.problems.append(f"kill {self.kills}: {exc}")
        # Keep the emulator's memory flat: the request log holds every uploaded board.
        self.emu.requests.clear()

    async def killer(self) -> None:
        lo, hi = self.args.uptime
        for _ in range(self.args.kills):
            await asyncio.sleep(self.rng.uniform(lo, hi))
            # A random moment, but one with interactions in flight (there almost always are).
            with contextlib.suppress(EmulatorError):
                await self.emu.wait_until(lambda: self.in_flight() > 0, 2.0, "an interaction in flight")
            await asyncio.sleep(self.rng.uniform(0, 0.03))
            await self.kill_bot()
            await self.start_bot()
        self.final = True

    # ---- one interaction ------------------------------------------------------------------------

    async def interact(
        self, user: User, channel: Channel, command: str, options: dict[str, Any]
    ) -> InteractionRecord | None:
        """Send a slash command once the bot is up; the record once answered, None if never answered."""
        await self.bot_up.wait()
        epoch = self.epoch
        try:
            rec = await self.emu.slash(user, channel, command, options)
        except EmulatorError as exc:
            self.tally.refusals[f"emulator: {str(exc)[:60]}"] += 1
            return None
        self.tally.interactions += 1
        self.pending[rec.id] = (epoch, rec)
        try:
            # Answered, or past the 3 s deadline; a kill leaves it unanswered (the deadline passes).
            await self.emu.wait_until(
                lambda: rec.callback is not None or self.epoch != epoch,
                self.emu.interaction_deadline + 0.5,
                "an answer",
            )
        except EmulatorError:
            pass
        finally:
            self.pending.pop(rec.id, None)
        if rec.callback is None:
            if self.epoch == epoch and self.bot_up.is_set():
                self.tally.late += 1
            else:
                self.tally.unanswered += 1
            return None
        self.tally.latencies.append(rec.callback.latency)
        return rec

    def refused(self, command: str, rec: InteractionRecord) -> None:
        content = str(rec.callback.data.get("content") or "") if rec.callback is not None else ""
        self.tally.refusals[f"/{command}: {content[:70]}"] += 1

    # ---- the players ----------------------------------------------------------------------------

    async def table(self, channel: Channel, kind: str, pool: list[User], rng: random.Random) -> None:
        by_id = {u.id: u for u in pool}
        rules = RULES[kind]
        players: list[User] = []
        game_id: int | None = None
        idle = 0
        while True:
            await self.bot_up.wait()
            await asyncio.sleep(rng.uniform(0, self.args.think))
            assert self.reader is not None
            info = self.reader.live_game(channel.id)
            if info is None:
                if game_id is not None:  # our game is over
                    done = self.reader.game(game_id)
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
                players = rng.sample(pool, self.players_for(kind, rng))
                progressed = await self.open_lobby(channel, kind, players[0], rng)
            elif info.status == "lobby":
                if game_id != info.id:
                    game_id = info.id
                    self.tally.games_started[kind] += 1
                    if not players or players[0].id != info.host_id:
                        # A lobby we did not see opening (its answer was lost to a kill).
                        players = [
                            by_id[info.host_id],
                            *rng.sample(
                                [u for u in pool if u.id != info.host_id], self.players_for(kind, rng) - 1
                            ),
                        ]
                missing = [u for u in players if u.id not in info.seats]
                if missing:
                    progressed = await self.lobby_action(channel, missing[0], "join", info.id)
                else:
                    progressed = await self.lobby_action(channel, by_id[info.host_id], "start", info.id)
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
                # The game is played in its place: its thread (started from the lobby card), or the
                # channel itself.
                place = self.emu.channels.get(info.place_id, channel)
                results = await asyncio.gather(
                    *(
                        self.move(place, kind, info, state, seat, by_id[info.seats[seat]], rng)
                        for seat in seats
                    )
                )
                progressed = any(results)
            idle = 0 if progressed else idle + 1
            if idle >= 25:
                raise Stuck(f"{kind} in {channel.name}: no progress in 25 tries (game #{game_id})")
            if not progressed:
                await asyncio.sleep(rng.uniform(0.05, 0.1))

    @staticmethod
    def players_for(kind: str, rng: random.Random) -> int:
        return 2 if kind == "numbers" else rng.randint(2, 3)

    def options_for(self, kind: str, rng: random.Random) -> dict[str, Any]:
        quick = self.args.quick
        if kind == "procession":
            return {"n": rng.randint(4, 6 if quick else 8)}
        if kind == "dots":
            return {"size": rng.randint(3, 4 if quick else 5)}
        if kind == "numbers":
            return {"m": 3 if quick else rng.randint(3, 4)}
        if kind == "divisors":
            return {"m": rng.randint(3, 5 if quick else 7)}
        return {}

    async def open_lobby(self, channel: Channel, kind: str, host: User, rng: random.Random) -> bool:
        rec = await self.interact(host, channel, f"{kind} new", self.options_for(kind, rng))
        if rec is None:
            return False
        assert rec.callback is not None
        content = str(rec.callback.data.get("content") or "")
        found = GAME_NUMBER.search(content)
        if rec.callback.ephemeral or "Lobby:" not in content or found is None:
            self.refused(f"{kind} new", rec)
            return False
        self.tally.lobby_acks.append(LobbyAck("new", int(found[1]), host.id))
        return True

    async def lobby_action(self, channel: Channel, user: User, verb: str, game_id: int) -> bool:
        rec = await self.interact(user, channel, f"game {verb}", {})
        if rec is None:
            return False
        assert rec.callback is not None
        content = str(rec.callback.data.get("content") or "")
        if verb == "join":
            found = SEAT_NUMBER.search(content)
            if found is None or int(found[1]) != game_id:
                self.refused("game join", rec)
                return False
            self.tally.lobby_acks.append(LobbyAck("join", game_id, user.id, int(found[2]) - 1))
            return True
        if f"Game #{game_id} has started" not in content:
            self.refused("game start", rec)
            return False
        self.tally.lobby_acks.append(LobbyAck("start", game_id, user.id))
        return True

    async def move(
        self,
        channel: Channel,
        kind: str,
        info: GameInfo,
        state: Any,
        seat: int,
        user: User,
        rng: random.Random,
    ) -> bool:
        """One legal move for ``seat``, chosen at random, by the game's slash command."""
        rules = RULES[kind]
        legal = [a for a in rules.legal_actions(state, seat) if a["type"] not in ("forfeit", "drop")]
        if not legal:
            self.tally.problems.append(f"game #{info.id} ({kind}): seat {seat} must act but has no move")
            return False
        choice = dict(rng.choice(legal))
        if kind == "procession":
            command, options = "procession flip", {"position": choice["position"]}
        elif kind == "dots":
            command, options = "dots line", {"to": choice["to"]}
            if choice["from"] is not None:
                options["from"] = choice["from"]
        elif kind == "updown" and choice["type"] == "predict":
            size = rng.randint(1, min(4, state.max_letters))
            choice["letters"] = "".join(rng.choice("UDS") for _ in range(size))
            command, options = "updown predict", {"letters": choice["letters"]}
        elif kind == "updown":
            label = str(choice["rank"]) if rng.random() < 0.5 else RULES["updown"].rank_label(choice["rank"])
            command, options = "updown play", {"card": label}
        elif kind == "numbers":
            command, options = "numbers pick", {"number": choice["number"]}
        else:
            command, options = "divisors pick", {"card": choice["card"]}
        rec = await self.interact(user, channel, command, options)
        if rec is None:
            return False
        assert rec.callback is not None
        content = str(rec.callback.data.get("content") or "")
        if kind in SECRET:
            ok = rec.callback.ephemeral and "✅" in content
        else:
            ok = not rec.callback.ephemeral and rec.callback.type == 4
        if not ok:
            self.refused(command, rec)
            return False
        self.tally.acks.append(Ack(info.id, seat, choice))
        return True

    # ---- the whole run --------------------------------------------------------------------------

    async def run(self) -> int:
        t0 = time.monotonic()
        emu = self.emu
        await emu.start()
        channels, users = self.build_world()
        self.bot = BotProcess(emu, self.db, self.guild.id, self.log)
        tables: list[asyncio.Task[None]] = []
        killer: asyncio.Task[None] | None = None
        try:
            await self.start_bot()
            for i, channel in enumerate(channels):
                kind = KINDS[i % len(KINDS)]
                rng = random.Random(self.rng.getrandbits(64))
                tables.append(asyncio.create_task(self.table(channel, kind, users, rng), name=channel.name))
            killer = asyncio.create_task(self.killer(), name="killer")
            waiting: set[asyncio.Task[None]] = {killer, *tables}
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
            # Let the bot finish what the last moves started (boards, DM panels) before stopping it.
            with contextlib.suppress(EmulatorError):
                await emu.wait_idle(quiet=0.2, timeout=15.0)
        except (Stuck, RuntimeError) as exc:
            self.tally.problems.append(f"run aborted: {exc}")
        finally:
            others = [*tables, *([killer] if killer is not None else [])]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)
            await self.bot.stop()
            await emu.stop()
        played = time.monotonic() - t0
        return self.report(self.verify(), played)

    # ---- checking the database ------------------------------------------------------------------

    def verify(self) -> dict[str, Any]:
        out: dict[str, Any] = {"lost": [], "lobby_lost": [], "mismatches": [], "unfinished": []}
        if not self.db.exists():
            out["integrity"] = "no database"
            return out
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            out["integrity"] = conn.execute("PRAGMA integrity_check").fetchone()[0]
            games = {
                int(r[0]): r
                for r in conn.execute("SELECT id, kind, status, options, seed, state, result FROM games")
            }
            seats: dict[int, list[int]] = defaultdict(list)
            for gid, uid in conn.execute("SELECT game_id, user_id FROM seats ORDER BY game_id, position"):
                seats[int(gid)].append(int(uid))
            moves: dict[int, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
            for gid, seat, action in conn.execute(
                "SELECT game_id, seat, action FROM moves ORDER BY game_id, seq"
            ):
                moves[int(gid)].append((int(seat), json.loads(action)))
        finally:
            conn.close()
        out["games"] = len(games)
        out["moves"] = sum(len(m) for m in moves.values())

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
        out["unanswered_commits"] = out["moves"] - matched

        for lob in self.tally.lobby_acks:
            row = games.get(lob.game_id)
            ok = row is not None
            if ok and lob.verb == "join":
                ok = lob.seat is not None and seats[lob.game_id][lob.seat : lob.seat + 1] == [lob.user_id]
            if ok and lob.verb == "start":
                ok = row is not None and row[2] != "lobby" and row[5] is not None
            if not ok:
                out["lobby_lost"].append(lob)

        # Every game is over, and its move log replays to the stored state and result.
        for gid, (_, kind, status, options, seed, state, result) in sorted(games.items()):
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
        return out

    # ---- the report -----------------------------------------------------------------------------

    def report(self, found: dict[str, Any], played: float) -> int:
        t = self.tally
        errors: Counter[str] = Counter()  # the bot's ERROR log lines, by message
        if self.log.exists():
            for raw in self.log.read_text(errors="replace").splitlines():
                text = ANSI.sub("", raw)
                if " ERROR " in text:
                    errors[text.split(" ERROR ", 1)[1].strip()[:100]] += 1
        finished = sum(t.games_finished.values())
        by_kind = ", ".join(f"{k} {t.games_finished[k]}" for k in KINDS)
        ready = self.ready_times[1:] or self.ready_times
        identifies = sum(1 for e in self.emu.gateway.log if e.kind == "identify")
        lost, lobby_lost = found["lost"], found["lobby_lost"]
        mismatches, unfinished = found["mismatches"], found["unfinished"]
        refusals = sum(t.refusals.values())

        def line(label: str, value: object) -> None:
            print(f"  {label:<34} {value}")

        print(f"Crash safety: {self.args.games} tables, bot killed with SIGKILL {self.kills} times")
        line(
            "kills (SIGKILL)",
            f"{self.kills} (interactions in flight at the kills: {sum(self.in_flight_at_kills)})",
        )
        line("gateway closes seen by the emulator", f"{self.gateway_closes_seen} of {self.kills}")
        line("kills leaving a WAL to recover", f"{self.kills_leaving_wal} of {self.kills}")
        line("bot processes (IDENTIFYs)", f"{len(self.ready_times)} ({identifies})")
        if ready:
            line(
                "start to BENCH-READY",
                f"median {statistics.median(ready):.2f} s, max {max(ready):.2f} s",
            )
        line("games played to the end", f"{finished}: {by_kind}")
        line("games in the database", found.get("games", 0))
        line("interactions sent", t.interactions)
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
        line("lobby actions acknowledged", len(t.lobby_acks))
        line("moves acknowledged", len(t.acks))
        line("moves in the log", found.get("moves", 0))
        line("  committed, never answered", found.get("unanswered_commits", 0))
        line("MOVES LOST", len(lost))
        line("LOBBY ACTIONS LOST", len(lobby_lost))
        line("REPLAY MISMATCHES", len(mismatches))
        line("UNFINISHED GAMES", len(unfinished))
        line("integrity_check", found.get("integrity"))
        line("errors in the bot's log", sum(errors.values()))
        line("duration", f"{played:.1f} s")
        for key, count in t.refusals.most_common(8):
            print(f"    refused x{count}: {key}")
        for key, count in errors.most_common(8):
            print(f"    bot log x{count}: {key}")
        for ack in lost[:20]:
            print(f"    LOST: game #{ack.game_id} seat {ack.seat} {json.dumps(ack.action)}")
        for lob in lobby_lost[:20]:
            print(f"    LOBBY ACTION LOST: {lob}")
        for text in [*mismatches[:20], *unfinished[:20], *t.problems[:20]]:
            print(f"    {text}")
        failed = (
            bool(lost or lobby_lost or mismatches or unfinished or t.problems)
            or found.get("integrity") != "ok"
            or self.kills < self.args.kills
            or finished == 0
        )
        print("FAIL" if failed else "PASS: nothing acknowledged was lost")
        return 1 if failed else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the short form for CI (under a minute)")
    parser.add_argument("--kills", type=int, help="how many times to SIGKILL the bot (default 24; quick 5)")
    parser.add_argument("--games", type=int, help="tables playing at once (default 25; quick 10)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the players' choices and the kills")
    parser.add_argument("--keep", action="store_true", help="keep the database and the bot's log")
    args = parser.parse_args(argv)
    if args.kills is None:
        args.kills = 5 if args.quick else 24
    if args.games is None:
        args.games = 10 if args.quick else 25
    if args.seed is None:
        args.seed = random.randrange(1 << 32)
    args.uptime = (0.8, 2.0) if args.quick else (1.0, 4.0)  # seconds between a ready and the next kill
    args.think = 0.05  # a player's pause before acting, at most (seconds)
    args.timeout = 120.0 if args.quick else 900.0  # the whole run, at most (seconds)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="quetbot-crash-"))
    print(f"seed {args.seed}; database and bot log in {workdir}")
    status = 1
    try:
        status = asyncio.run(CrashRun(args, workdir).run())
    finally:
        if args.keep or status != 0:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
