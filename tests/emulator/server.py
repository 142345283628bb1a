"""`DiscordEmulator`: the HTTP and gateway server on 127.0.0.1, and its plumbing.

Every REST request goes through `_handle`: parse (JSON or multipart with `payload_json` and
`files[n]`), record, check auth, apply injected faults, check against the OpenAPI description,
run the route, and answer with JSON and rate-limit headers that never make discord.py wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import socket
import time
import traceback
from collections.abc import Iterator
from typing import Any

from aiohttp import BodyPartReader, hdrs, web

from .actions import UserActions
from .models import EmulatorError, RequestRecord, SchemaViolation, UploadedFile, Violation
from .openapi import OpenApiChecker, load_checker
from .rest import ApiError, Call, RestApi, Router
from .traps import Trap

API_PREFIX = "/api/v10"


class DiscordEmulator(UserActions):
    """A loopback Discord for one test (see the package docstring for the tour)."""

    def __init__(self, *, validate_schema: bool = True, **options: Any) -> None:
        super().__init__(**options)
        self.rest = RestApi(self)
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._schema: OpenApiChecker | None = load_checker() if validate_schema else None
        self._saved_patch: tuple[str, Any] | None = None
        self.internal_errors: list[str] = []
        self._hooks: set[asyncio.Task[None]] = set()

    @property
    def router(self) -> Router:
        return self.rest.router

    @property
    def schema_checked(self) -> bool:
        """Whether request bodies are checked against Discord's OpenAPI description."""
        return self._schema is not None

    # ---- lifecycle ------------------------------------------------------------------------------

    async def start(self, port: int = 0) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._serve_file)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self.port = sock.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        await web.SockSite(self._runner, sock).start()

    async def stop(self) -> None:
        self.uninstall()
        for task in list(self._hooks):  # a hook still running when the test ends
            task.cancel()
        await asyncio.gather(*self._hooks, return_exceptions=True)
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> DiscordEmulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ---- pointing discord.py here ---------------------------------------------------------------

    def install(self) -> None:
        """Point discord.py (this process) at the emulator: REST base and gateway URL."""
        import discord.gateway
        import discord.http
        import yarl

        if self._saved_patch is None:
            self._saved_patch = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)

    def uninstall(self) -> None:
        if self._saved_patch is None:
            return
        import discord.gateway
        import discord.http

        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved_patch
        self._saved_patch = None

    @contextlib.contextmanager
    def patch_discord(self) -> Iterator[DiscordEmulator]:
        self.install()
        try:
            yield self
        finally:
            self.uninstall()

    @staticmethod
    def prepare_client(client: Any, ready_timeout: float = 0.05) -> None:
        """Make a discord.py client fire on_ready `ready_timeout` s after the last GUILD_CREATE
        instead of 2 s (discord.py waits `guild_ready_timeout` for more guilds), and an
        AutoShardedClient identify its shards one right after the other instead of 5 s apart
        (Discord's pace for `max_concurrency` 1; the emulator does not limit IDENTIFYs)."""
        import discord

        client._connection.guild_ready_timeout = ready_timeout
        if isinstance(client, discord.AutoShardedClient):

            async def at_once(shard_id: int | None, *, initial: bool = False) -> None:
                return None

            client.before_identify_hook = at_once

    # ---- gateway helpers ------------------------------------------------------------------------

    async def drop_gateway(self, code: int = 4000) -> None:
        """Cut the bot's websocket with a resumable close code; it reconnects and RESUMEs, and
        what was dispatched meanwhile is replayed."""
        if not await self.gateway.drop(code):
            raise EmulatorError("no gateway connection to drop")

    async def wait_connected(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        await self.wait_until(lambda: self.gateway.connected, timeout, "a gateway connection")

    # ---- HTTP -----------------------------------------------------------------------------------

    async def _serve_file(self, request: web.Request) -> web.StreamResponse:
        attachment = self.files.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        return web.Response(
            body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
        )

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile]]:
        files: list[UploadedFile] = []
        if request.content_type.startswith("multipart/"):
            body: Any = None
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    continue
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                elif part.filename is not None:
                    data = bytes(await part.read(decode=False))
                    files.append(
                        UploadedFile(
                            part.name or "", part.filename, data, part.headers.get(hdrs.CONTENT_TYPE)
                        )
                    )
            return body, files
        raw = await request.read()
        if not raw:
            return None, files
        if request.content_type == "application/json":
            return json.loads(raw), files
        return raw.decode("utf-8", "replace"), files

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        loop_time = asyncio.get_running_loop().time
        method = request.method
        full_path = request.path
        api_path = full_path[len(API_PREFIX) :] if full_path.startswith(API_PREFIX + "/") else full_path
        route, params, path_known = self.router.match(method, api_path)
        record = RequestRecord(
            seq=len(self.requests) + 1,
            method=method,
            path=api_path,
            route=route.template if route is not None else None,
            query=dict(request.query),
            json=None,
            files=[],
            headers=dict(request.headers),
            started=loop_time(),
        )
        self.requests.append(record)
        self._in_flight += 1
        try:
            try:
                record.json, record.files = await self._read_body(request)
            except ValueError:
                raise ApiError(400, 50109, "The request body contains invalid JSON.") from None
            except ConnectionError:
                # The client went away while sending (a process killed mid-upload): Discord never
                # got the request, and nobody is left to answer. Not applied, not the emulator's fault.
                return self._finish(record, 499, None)
            if route is None or not full_path.startswith(API_PREFIX + "/"):
                if path_known:
                    raise ApiError(405, 0, "405: Method Not Allowed")
                raise ApiError(404, 0, "404: Not Found")
            if self.rest.needs_auth(api_path):
                auth = request.headers.get(hdrs.AUTHORIZATION, "")
                if not auth.startswith("Bot ") or not self.token_ok(auth[4:]):
                    raise ApiError(401, 0, "401: Unauthorized")
            fault = self.take_fault(record)
            if fault is not None:
                record.injected = True
                return self._finish(record, *self._fault_reply(fault))
            self._check_schema(record)
            reply = await route.handler(Call(record, params, record.json, record.files))
            if reply.status < 400:
                trap = self.take_trap(record, reply.answered)
                if trap is not None:
                    await self._spring(trap, record)
            if reply.answered is not None:
                reply.answered._answered.set()
            return self._finish(record, reply.status, reply.body)
        except ApiError as exc:
            if route is not None and 400 <= exc.status < 500 and not exc.injected:
                violation = Violation(
                    record, exc.status, exc.code, exc.message, [str(p) for p in exc.problems]
                )
                self.violations.append(violation)
                if exc.interaction is not None:
                    exc.interaction.rejected.append(violation)
            return self._finish(record, exc.status, exc.body())
        except Exception:
            # An emulator bug: answer 400 (a 5xx would make discord.py retry for seconds) and keep
            # the traceback for the test to report.
            self.internal_errors.append(f"{record.method} {record.path}\n{traceback.format_exc()}")
            return self._finish(record, 400, {"message": "Emulator internal error", "code": 0})
        finally:
            self._in_flight -= 1
            record.finished = loop_time()
            self._notify()

    async def _spring(self, trap: Trap, record: RequestRecord) -> None:
        """Run a trap's hook before the response goes back. In a task of its own (shielded): a
        hook that crashes the bot closes the connection this request came on, and must not be
        cancelled with it."""
        record.trapped = True
        task = asyncio.create_task(trap.run(), name="emulator-trap-hook")
        self._hooks.add(task)

        def done(task: asyncio.Task[None]) -> None:
            self._hooks.discard(task)
            if trap.error is not None:
                error = "".join(traceback.format_exception(trap.error))
                self.internal_errors.append(f"the hook armed on {trap.describe()} failed:\n{error}")

        task.add_done_callback(done)
        await asyncio.shield(task)

    def _check_schema(self, record: RequestRecord) -> None:
        if self._schema is None or record.json is None or record.method in ("GET", "DELETE"):
            return
        for problem in self._schema.check(record.method, record.path, record.json):
            self.schema_violations.append(
                SchemaViolation(record, problem.operation, problem.location, problem.message)
            )

    @staticmethod
    def _fault_reply(fault: Any) -> tuple[int, dict[str, Any], dict[str, str]]:
        if fault.status == 429:
            body = {
                "message": "You are being rate limited.",
                "retry_after": fault.retry_after,
                "global": fault.is_global,
                "code": 0,
            }
            headers = {
                "Via": "1.1 google",
                "Retry-After": str(max(1, round(fault.retry_after))),
                "X-RateLimit-Scope": "global" if fault.is_global else "user",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": f"{fault.retry_after:.3f}",
            }
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            return 429, body, headers
        return fault.status, {"message": f"{fault.status}: Internal Server Error", "code": 0}, {}

    def _finish(
        self, record: RequestRecord, status: int, body: Any, extra: dict[str, str] | None = None
    ) -> web.Response:
        record.status = status
        record.response = body
        bucket = hashlib.sha1((record.route or record.path).encode()).hexdigest()[:16]
        headers = {
            "X-RateLimit-Limit": "50",
            "X-RateLimit-Remaining": "49",
            "X-RateLimit-Reset": f"{time.time() + 1:.3f}",
            "X-RateLimit-Reset-After": "1.000",
            "X-RateLimit-Bucket": bucket,
        }
        headers.update(extra or {})
        if status == 204 or body is None:
            return web.Response(status=status, headers=headers)
        return web.Response(
            status=status, body=json.dumps(body).encode(), content_type="application/json", headers=headers
        )
