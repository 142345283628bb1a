"""The gateway: a websocket speaking Discord's JSON protocol (v10, text frames, no compression).

HELLO, IDENTIFY -> READY + one GUILD_CREATE per guild, heartbeats ACKed, RESUME -> replay of the
missed dispatches + RESUMED. A `GatewaySession` outlives its websocket: while the bot is away (a
dropped connection) dispatches are buffered and replayed when it resumes. A client closing with
1000/1001 ends its session, as on Discord.

Sharding, as Discord does it: an IDENTIFY may carry `shard: [shard_id, num_shards]` (4010 "Invalid
shard" unless 0 <= shard_id < num_shards); the session then gets only the guilds with
`(guild_id >> 22) % num_shards == shard_id` (READY's list, GUILD_CREATE and every event of those
guilds), and events without a guild (DMs, DM interactions) go to the sessions of shard 0 only. A
session without `shard` is shard 0 of 1: everything. A session that would hold more guilds than
`World.max_guilds_per_session` (Discord: 2,500) is closed with 4011 "Sharding required". Any number
of sessions may be live at once, with the same or different `num_shards` (Discord allows both:
`num_shards` only routes events, which is how a bot hands its traffic to a new set of shards); each
gets what its own `[shard_id, num_shards]` selects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from aiohttp import WSMsgType, web

from .models import PRIVILEGED_INTENTS, Intent, shard_of
from .payloads import bot_self_payload, guild_create_payload, member_payload

if TYPE_CHECKING:
    from .world import World

HEARTBEAT_INTERVAL_MS = 41_250
REPLAY_BUFFER = 5_000


class _Close:
    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = reason


@dataclass(eq=False)
class GatewaySession:
    id: str
    intents: int
    # [shard_id, num_shards] from IDENTIFY; None: not sharded (shard 0 of 1, every guild)
    shard: tuple[int, int] | None = None
    seq: int = 0
    buffer: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=REPLAY_BUFFER))
    connection: _Connection | None = None
    alive: bool = True
    # How many of each event it was sent, by (event, guild id or None): what tests ask a shard got.
    received: Counter[tuple[str, int | None]] = field(default_factory=Counter)

    @property
    def shard_key(self) -> tuple[int, int]:
        return self.shard if self.shard is not None else (0, 1)

    def receives(self, guild_id: int | None) -> bool:
        """Whether this session is sent the events of guild `guild_id` (None: events without a
        guild, which only shard 0 gets)."""
        shard_id, count = self.shard_key
        if guild_id is None:
            return shard_id == 0
        return shard_of(guild_id, count) == shard_id

    def got(self, event: str, guild_id: int | None = None) -> int:
        """How many `event` dispatches of that guild (None: without a guild) this session was sent."""
        return self.received[(event, guild_id)]


@dataclass(frozen=True)
class GatewayLogEntry:
    """What happened on the gateway: `connect`, `identify`, `resume`, `invalid_session`, `close`, `drop`."""

    kind: str
    session_id: str | None
    detail: str = ""


class _Connection:
    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str | _Close] = asyncio.Queue()
        self.session: GatewaySession | None = None
        self.dropped = False

    def send(self, op: int, d: Any, *, t: str | None = None, s: int | None = None) -> None:
        self.queue.put_nowait(json.dumps({"op": op, "d": d, "s": s, "t": t}))

    async def writer(self) -> None:
        while True:
            item = await self.queue.get()
            try:
                if isinstance(item, _Close):
                    await self.ws.close(code=item.code, message=item.reason.encode())
                    return
                await self.ws.send_str(item)
            except (ConnectionError, RuntimeError):
                return


class GatewayHub:
    """All gateway sessions and connections of one emulator."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.sessions: dict[str, GatewaySession] = {}
        self.log: list[GatewayLogEntry] = []
        self._connections: set[_Connection] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- dispatching ----------------------------------------------------------------------------

    @property
    def live_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions.values() if s.alive]

    @property
    def connected(self) -> bool:
        return any(s.alive and s.connection is not None for s in self.sessions.values())

    def dispatch(
        self,
        event: str,
        data: dict[str, Any],
        *,
        intent: int | None = None,
        content_intent: bool = False,
    ) -> list[GatewaySession]:
        """Send an event to every live session that asked for `intent` and whose shard holds the
        event's guild (`guild_id` in the payload; `id` for GUILD_CREATE; none: shard 0); returns the
        sessions that got it.

        With `content_intent`, sessions without MESSAGE_CONTENT get the message stripped of its
        content, embeds, attachments and components, as Discord does.
        """
        guild_id = event_guild(event, data)
        sent: list[GatewaySession] = []
        for session in self.live_sessions:
            if intent is not None and not session.intents & intent:
                continue
            if not session.receives(guild_id):
                continue
            payload = data
            if content_intent and not session.intents & Intent.MESSAGE_CONTENT:
                payload = {**data, "content": "", "embeds": [], "attachments": [], "components": []}
            self._send_dispatch(session, event, payload, guild_id)
            sent.append(session)
        return sent

    def sessions_of_shard(self, shard_id: int, shard_count: int) -> list[GatewaySession]:
        """The live sessions identified as shard `shard_id` of `shard_count`."""
        return [s for s in self.live_sessions if s.shard == (shard_id, shard_count)]

    def _send_dispatch(
        self, session: GatewaySession, event: str, data: Any, guild_id: int | None = None
    ) -> None:
        session.received[(event, guild_id)] += 1
        session.seq += 1
        frame = json.dumps({"op": 0, "t": event, "s": session.seq, "d": data})
        session.buffer.append((session.seq, frame))
        if session.connection is not None:
            session.connection.queue.put_nowait(frame)

    # ---- the websocket --------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        conn = _Connection(ws)
        self._connections.add(conn)
        self.log.append(GatewayLogEntry("connect", None, request.path_qs))
        writer = asyncio.create_task(conn.writer())
        conn.send(10, {"heartbeat_interval": HEARTBEAT_INTERVAL_MS, "_trace": ["emulator"]})
        try:
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    try:
                        frame = json.loads(msg.data)
                    except ValueError:
                        conn.queue.put_nowait(_Close(4002, "Error while decoding payload."))
                        continue
                    self._on_frame(conn, frame)
                elif msg.type is WSMsgType.BINARY:
                    conn.queue.put_nowait(_Close(4002, "Binary frames are not accepted here."))
        finally:
            self._connections.discard(conn)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
            session = conn.session
            if session is not None and session.connection is conn:
                session.connection = None
                if not conn.dropped and ws.close_code in (1000, 1001):
                    session.alive = False
            self.log.append(GatewayLogEntry("close", session.id if session else None, str(ws.close_code)))
            self.world._notify()
        return ws

    def _on_frame(self, conn: _Connection, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        d = frame.get("d")
        if op == 1:
            conn.send(11, None)
        elif op == 2:
            self._identify(conn, d or {})
        elif op == 6:
            self._resume(conn, d or {})
        elif op == 8:
            self._request_members(conn, d or {})
        elif op in (3, 4):
            pass  # presence and voice state updates: accepted, nothing to do
        else:
            conn.queue.put_nowait(_Close(4001, f"Unknown opcode {op}."))

    def _identify(self, conn: _Connection, d: dict[str, Any]) -> None:
        if conn.session is not None:
            conn.queue.put_nowait(_Close(4005, "Already authenticated."))
            return
        if not self.world.token_ok(d.get("token")):
            conn.queue.put_nowait(_Close(4004, "Authentication failed."))
            return
        intents = int(d.get("intents", 0))
        if intents & PRIVILEGED_INTENTS & ~self.world.privileged_intents:
            conn.queue.put_nowait(_Close(4014, "Disallowed intent(s)."))
            return
        shard = valid_shard(d.get("shard"))
        if shard is False:
            conn.queue.put_nowait(_Close(4010, "Invalid shard."))
            return
        world = self.world
        session = GatewaySession(id=secrets.token_hex(16), intents=intents, shard=shard)
        guilds = [g for g in world.guilds.values() if session.receives(g.id)]
        if len(guilds) > world.max_guilds_per_session:
            conn.queue.put_nowait(_Close(4011, "Sharding required."))
            return
        # A new IDENTIFY replaces the sessions of its shard nobody is connected to (a crashed or
        # closed client of that shard).
        for old in self.sessions.values():
            if old.connection is None and old.shard_key == session.shard_key:
                old.alive = False
        self.sessions[session.id] = session
        session.connection = conn
        conn.session = session
        detail = str(intents) if shard is None else f"{intents} shard={list(shard)}"
        self.log.append(GatewayLogEntry("identify", session.id, detail))
        ready = {
            "v": 10,
            "user": bot_self_payload(world.bot_user),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": world.gateway_url,
            "application": {"id": str(world.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "auth": {},
            "geo_ordered_rtc_regions": ["emulator"],
            "guild_join_requests": [],
            "_trace": ["emulator"],
        }
        if shard is not None:
            ready["shard"] = list(shard)
        self._send_dispatch(session, "READY", ready)
        all_members = bool(intents & Intent.GUILD_MEMBERS)
        for guild in guilds:
            payload = guild_create_payload(world, guild, all_members=all_members)
            self._send_dispatch(session, "GUILD_CREATE", payload, guild.id)
        world._notify()

    def _resume(self, conn: _Connection, d: dict[str, Any]) -> None:
        session = self.sessions.get(str(d.get("session_id")))
        if session is None or not session.alive or not self.world.token_ok(d.get("token")):
            self.log.append(GatewayLogEntry("invalid_session", d.get("session_id")))
            conn.send(9, False)
            return
        if session.connection is not None and session.connection is not conn:
            old = session.connection
            old.dropped = True
            old.queue.put_nowait(_Close(4000, "Resumed elsewhere."))
        seq = int(d.get("seq") or 0)
        session.connection = conn
        conn.session = session
        replayed = [frame for s, frame in session.buffer if s > seq]
        for frame in replayed:
            conn.queue.put_nowait(frame)
        self.log.append(GatewayLogEntry("resume", session.id, f"seq={seq} replayed={len(replayed)}"))
        self._send_dispatch(session, "RESUMED", {"_trace": ["emulator"]})
        self.world._notify()

    def _request_members(self, conn: _Connection, d: dict[str, Any]) -> None:
        session = conn.session
        guild = self.world.guilds.get(int(d.get("guild_id") or 0))
        if session is None or guild is None or not session.receives(guild.id):
            return
        members = [member_payload(guild, m) for m in guild.members.values()]
        chunk = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "nonce": d.get("nonce"),
        }
        self._send_dispatch(session, "GUILD_MEMBERS_CHUNK", chunk, guild.id)

    # ---- faults and shutdown --------------------------------------------------------------------

    async def drop(self, code: int = 4000) -> int:
        """Close every connection abruptly with a resumable code; sessions stay resumable."""
        dropped = 0
        for conn in list(self._connections):
            conn.dropped = True
            session = conn.session
            if session is not None and session.connection is conn:
                session.connection = None
                self.log.append(GatewayLogEntry("drop", session.id, str(code)))
            conn.queue.put_nowait(_Close(code, "Dropped by the emulator."))
            dropped += 1
        return dropped

    async def close(self) -> None:
        for conn in list(self._connections):
            conn.dropped = True
            await conn.ws.close(code=1001, message=b"Emulator shutting down.")
        for session in self.sessions.values():
            session.alive = False


def event_guild(event: str, data: dict[str, Any]) -> int | None:
    """The guild an event belongs to, which decides the shard it goes to (None: shard 0)."""
    raw = data.get("id") if event == "GUILD_CREATE" else data.get("guild_id")
    return int(raw) if raw is not None else None


def valid_shard(raw: Any) -> tuple[int, int] | Literal[False] | None:
    """IDENTIFY's `shard`: None when absent, the pair when it is one Discord accepts, else False."""
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 2:
        return False
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in raw):
        return False
    shard_id, count = raw
    if not 0 <= shard_id < count:
        return False
    return (shard_id, count)
