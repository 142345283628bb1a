"""REST API v10 routes: what discord.py calls for a bot with slash commands, views, modals and DMs.

Each handler takes a `Call` and returns a `Reply`, or raises `ApiError` with Discord's status, JSON
error code and message. The server (server.py) does the HTTP plumbing around them: parsing,
recording, auth, injected faults, OpenAPI checks, rate-limit headers.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .models import (
    AUTO_ARCHIVE_DURATIONS,
    EPHEMERAL,
    LOADING,
    CallbackRecord,
    CallbackType,
    Channel,
    ChannelType,
    InteractionRecord,
    InteractionType,
    MessageRecord,
    Perm,
    PublicPayload,
    RequestRecord,
    UploadedFile,
)
from .payloads import (
    application_payload,
    bot_self_payload,
    channel_payload,
    guild_payload,
    member_payload,
    message_payload,
    role_payload,
    thread_member_payload,
    user_payload,
)
from .validation import (
    Problem,
    check_choices,
    check_commands,
    check_message,
    check_modal,
    form_errors,
    is_empty_message,
)

if TYPE_CHECKING:
    from .world import World


class ApiError(Exception):
    def __init__(self, status: int, code: int, message: str, problems: list[Problem] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.problems = problems or []
        self.interaction: InteractionRecord | None = None
        self.injected = False  # a failure the test asked for, not a fault of the bot's request

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.problems:
            data["errors"] = form_errors(self.problems)
        return data


def invalid_form(problems: list[Problem]) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", problems)


UNKNOWN_CHANNEL = (404, 10003, "Unknown Channel")
UNKNOWN_MESSAGE = (404, 10008, "Unknown Message")
UNKNOWN_WEBHOOK = (404, 10015, "Unknown Webhook")
UNKNOWN_INTERACTION = (404, 10062, "Unknown interaction")
ALREADY_ACKNOWLEDGED = (400, 40060, "Interaction has already been acknowledged.")
MISSING_PERMISSIONS = (403, 50013, "Missing Permissions")
CANNOT_DM = (403, 50007, "Cannot send messages to this user")
EMPTY_MESSAGE = (400, 50006, "Cannot send an empty message")
NOT_AUTHOR = (403, 50005, "Cannot edit a message authored by another user")
WRONG_CHANNEL_TYPE = (400, 50024, "Cannot execute action on this channel type")
THREAD_ARCHIVED = (400, 50083, "Thread is archived")
THREAD_EXISTS = (400, 160004, "A thread has already been created for this message")
THREAD_LOCKED = (400, 160005, "Thread is locked")
UNKNOWN_MEMBER = (404, 10007, "Unknown Member")
TOO_LARGE = (413, 40005, "Request entity too large")
# What a bot may upload in one message to a server without boosts (10 MiB since 2024; 8 MiB before).
UPLOAD_MAX = 10 * 1024 * 1024


@dataclass
class Call:
    record: RequestRecord
    params: dict[str, str]
    body: Any
    files: list[UploadedFile] = field(default_factory=list)

    @property
    def json(self) -> dict[str, Any]:
        return self.body if isinstance(self.body, dict) else {}

    def query(self, name: str, default: str | None = None) -> str | None:
        return self.record.query.get(name, default)

    def int_param(self, name: str) -> int:
        raw = self.params[name]
        if not raw.isdigit():
            raise ApiError(400, 50035, "Invalid Form Body", [Problem(name, "Value is not snowflake.")])
        return int(raw)


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    # A callback was recorded for this interaction: the server wakes its waiters once the traps
    # armed on the answer have run.
    answered: InteractionRecord | None = None


Handler = Callable[[Call], Awaitable[Reply]]


def check_uploads(call: Call) -> None:
    """The files of a message: Discord refuses a request whose files exceed the upload limit."""
    if sum(len(f.data) for f in call.files) > UPLOAD_MAX:
        raise ApiError(*TOO_LARGE)


@dataclass(frozen=True)
class Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    handler: Handler
    literal_parts: int


class Router:
    def __init__(self) -> None:
        self._routes: list[Route] = []

    def add(self, method: str, template: str, handler: Handler) -> None:
        regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
        literal = template.count("/") - template.count("{")
        self._routes.append(Route(method, template, re.compile(f"^{regex}$"), handler, literal))
        self._routes.sort(key=lambda r: -r.literal_parts)

    def match(self, method: str, path: str) -> tuple[Route | None, dict[str, str], bool]:
        """(route, params, path_known): path_known tells a 405 from a 404."""
        path_known = False
        for route in self._routes:
            m = route.pattern.match(path)
            if m is None:
                continue
            path_known = True
            if route.method == method:
                return route, m.groupdict(), True
        return None, {}, path_known


def _edit_leaves_empty(message: MessageRecord, body: dict[str, Any], n_files: int) -> bool:
    after = {
        key: body[key] if key in body else getattr(message, key)
        for key in ("content", "embeds", "components")
    }
    attachments = body.get("attachments", message.attachments)
    return is_empty_message(after, len(attachments or []) + n_files)


AUTHLESS_PREFIXES = ("/webhooks/", "/interactions/")


class RestApi:
    """The route table and its handlers, over a `World`."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.router = Router()
        add = self.router.add
        add("GET", "/users/@me", self.get_me)
        add("GET", "/users/{user_id}", self.get_user)
        add("POST", "/users/@me/channels", self.create_dm)
        add("GET", "/oauth2/applications/@me", self.get_application)
        add("GET", "/applications/@me", self.get_application)
        add("GET", "/gateway", self.get_gateway)
        add("GET", "/gateway/bot", self.get_gateway_bot)
        for prefix in ("/applications/{application_id}", "/applications/{application_id}/guilds/{guild_id}"):
            add("GET", f"{prefix}/commands", self.list_commands)
            add("PUT", f"{prefix}/commands", self.put_commands)
            add("POST", f"{prefix}/commands", self.upsert_command)
            add("GET", f"{prefix}/commands/{{command_id}}", self.get_command)
            add("PATCH", f"{prefix}/commands/{{command_id}}", self.edit_command)
            add("DELETE", f"{prefix}/commands/{{command_id}}", self.delete_command)
        add("POST", "/interactions/{interaction_id}/{interaction_token}/callback", self.callback)
        hook = "/webhooks/{webhook_id}/{webhook_token}"
        add("POST", hook, self.create_followup)
        for msg in (f"{hook}/messages/@original", f"{hook}/messages/{{message_id}}"):
            add("GET", msg, self.get_webhook_message)
            add("PATCH", msg, self.edit_webhook_message)
            add("DELETE", msg, self.delete_webhook_message)
        add("GET", "/channels/{channel_id}", self.get_channel)
        add("GET", "/channels/{channel_id}/messages", self.list_messages)
        add("POST", "/channels/{channel_id}/messages", self.create_message)
        add("POST", "/channels/{channel_id}/messages/bulk-delete", self.bulk_delete)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message)
        reaction = "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me"
        add("PUT", reaction, self.add_reaction)
        add("DELETE", reaction, self.remove_reaction)
        add("POST", "/channels/{channel_id}/typing", self.typing)
        add("PATCH", "/channels/{channel_id}", self.edit_channel)
        add("DELETE", "/channels/{channel_id}", self.delete_channel)
        add("POST", "/channels/{channel_id}/threads", self.create_thread)
        add("POST", "/channels/{channel_id}/messages/{message_id}/threads", self.create_thread)
        members = "/channels/{channel_id}/thread-members"
        add("GET", members, self.list_thread_members)
        for who in ("@me", "{user_id}"):
            add("PUT", f"{members}/{who}", self.add_thread_member)
            add("DELETE", f"{members}/{who}", self.remove_thread_member)
        add("GET", f"{members}/{{user_id}}", self.get_thread_member)
        add("GET", "/guilds/{guild_id}", self.get_guild)
        add("GET", "/guilds/{guild_id}/channels", self.get_guild_channels)
        add("GET", "/guilds/{guild_id}/roles", self.get_guild_roles)
        add("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member)
        add("GET", "/guilds/{guild_id}/threads/active", self.get_active_threads)

    @staticmethod
    def needs_auth(path: str) -> bool:
        return path != "/gateway" and not path.startswith(AUTHLESS_PREFIXES)

    # ---- users, application, gateway ------------------------------------------------------------

    async def get_me(self, call: Call) -> Reply:
        return Reply(200, bot_self_payload(self.w.bot_user))

    async def get_user(self, call: Call) -> Reply:
        user = self.w.users.get(call.int_param("user_id"))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return Reply(200, user_payload(user))

    async def get_application(self, call: Call) -> Reply:
        return Reply(200, application_payload(self.w))

    async def get_gateway(self, call: Call) -> Reply:
        return Reply(200, {"url": self.w.gateway_url})

    async def get_gateway_bot(self, call: Call) -> Reply:
        """The URL, the recommended shard count (one per `guilds_per_recommended_shard` guilds), and
        the session start limit, counted down by every IDENTIFY so far."""
        w = self.w
        shards = max(1, -(-len(w.guilds) // w.guilds_per_recommended_shard))
        identifies = sum(1 for e in w.gateway.log if e.kind == "identify")
        limit = {
            "total": w.session_start_limit,
            "remaining": max(0, w.session_start_limit - identifies),
            "reset_after": 86_400_000,
            "max_concurrency": 1,
        }
        return Reply(200, {"url": w.gateway_url, "shards": shards, "session_start_limit": limit})

    async def create_dm(self, call: Call) -> Reply:
        recipient = str(call.json.get("recipient_id"))
        user = self.w.users.get(int(recipient)) if recipient.isdigit() else None
        if user is None:
            raise invalid_form([Problem("recipient_id", "Unknown user.")])
        return Reply(200, channel_payload(self.w.open_dm(user)))

    # ---- application commands -------------------------------------------------------------------

    def _scope(self, call: Call) -> int | None:
        if call.int_param("application_id") != self.w.application_id:
            raise ApiError(403, 50001, "Missing Access")
        if "guild_id" not in call.params:
            return None
        gid = call.int_param("guild_id")
        if gid not in self.w.guilds:
            raise ApiError(403, 50001, "Missing Access")
        return gid

    def _stored_command(
        self, scope: int | None, data: dict[str, Any], existing: dict[str, Any] | None
    ) -> dict[str, Any]:
        command: dict[str, Any] = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "nsfw": False,
            "contexts": None,
            "integration_types": [0],
            **data,
            "id": existing["id"] if existing else str(self.w.ids.next()),
            "application_id": str(self.w.application_id),
            "version": str(self.w.ids.next()),
        }
        if scope is not None:
            command["guild_id"] = str(scope)
        else:
            command.pop("guild_id", None)
        return command

    async def list_commands(self, call: Call) -> Reply:
        return Reply(200, self.w.commands.get(self._scope(call), []))

    async def put_commands(self, call: Call) -> Reply:
        scope = self._scope(call)
        problems = check_commands(call.body)
        if problems:
            raise invalid_form(problems)
        old = {(c["name"], c.get("type", 1)): c for c in self.w.commands.get(scope, [])}
        stored = [
            self._stored_command(scope, data, old.get((data["name"], data.get("type", 1))))
            for data in call.body
        ]
        self.w.commands[scope] = stored
        return Reply(200, stored)

    async def upsert_command(self, call: Call) -> Reply:
        scope = self._scope(call)
        problems = check_commands([call.json])
        if problems:
            raise invalid_form(problems)
        commands = self.w.commands.setdefault(scope, [])
        key = (call.json.get("name"), call.json.get("type", 1))
        old = next((c for c in commands if (c["name"], c.get("type", 1)) == key), None)
        stored = self._stored_command(scope, call.json, old)
        if old is not None:
            commands[commands.index(old)] = stored
            return Reply(200, stored)
        commands.append(stored)
        return Reply(201, stored)

    def _command(self, call: Call) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        commands = self.w.commands.get(self._scope(call), [])
        for command in commands:
            if command["id"] == call.params["command_id"]:
                return commands, command
        raise ApiError(404, 10063, "Unknown application command")

    async def get_command(self, call: Call) -> Reply:
        return Reply(200, self._command(call)[1])

    async def edit_command(self, call: Call) -> Reply:
        _, command = self._command(call)
        merged = {**command, **call.json}
        problems = check_commands([merged])
        if problems:
            raise invalid_form(problems)
        command.update(call.json)
        command["version"] = str(self.w.ids.next())
        return Reply(200, command)

    async def delete_command(self, call: Call) -> Reply:
        commands, command = self._command(call)
        commands.remove(command)
        return Reply(204)

    # ---- interaction callbacks ------------------------------------------------------------------

    async def callback(self, call: Call) -> Reply:
        w = self.w
        rec = w.interactions.get(call.int_param("interaction_id"))
        if rec is None or rec.token != call.params["interaction_token"]:
            raise ApiError(*UNKNOWN_INTERACTION)
        if rec.callback is None and not rec.expired and w.take_expiry(rec) is not None:
            self._expire(rec)
            call.record.injected = True
            error = ApiError(*UNKNOWN_INTERACTION)
            error.injected = True
            raise error
        try:
            return self._apply_callback(rec, call)
        except ApiError as exc:
            exc.interaction = rec  # the server records the violation on it too
            raise

    def _expire(self, rec: InteractionRecord) -> None:
        """Discord forgot the interaction: its callback and its webhook are unknown from now on."""
        rec.expired = True
        rec._answered.set()  # waiters learn at once that no answer will come
        self.w._notify()

    def _apply_callback(self, rec: InteractionRecord, call: Call) -> Reply:
        w = self.w
        now = asyncio.get_running_loop().time()
        if rec.callback is not None:
            raise ApiError(*ALREADY_ACKNOWLEDGED)
        if rec.expired:
            raise ApiError(*UNKNOWN_INTERACTION)
        if now > rec.deadline:
            self._expire(rec)
            raise ApiError(*UNKNOWN_INTERACTION)
        body = call.json
        raw_type = body.get("type")
        try:
            ctype = CallbackType(int(raw_type))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise invalid_form([Problem("type", f"Value {raw_type!r} is not a valid enum value.")]) from None
        data = body.get("data") or {}
        allowed = {
            InteractionType.APPLICATION_COMMAND: {4, 5, 9},
            InteractionType.MESSAGE_COMPONENT: {4, 5, 6, 7, 9},
            InteractionType.AUTOCOMPLETE: {8},
            InteractionType.MODAL_SUBMIT: {4, 5} | ({6, 7} if rec.source_message is not None else set()),
        }[rec.type]
        if ctype not in allowed:
            raise invalid_form(
                [
                    Problem(
                        "type",
                        f"Callback type {ctype.value} is invalid for a {rec.type.name} interaction.",
                    )
                ]
            )
        if ctype in (CallbackType.CHANNEL_MESSAGE, CallbackType.UPDATE_MESSAGE):
            check_uploads(call)
            problems = check_message(data, n_files=len(call.files))
            if problems:
                raise invalid_form([Problem(f"data.{p.path}", p.message) for p in problems])
            if ctype is CallbackType.CHANNEL_MESSAGE and is_empty_message(data, len(call.files)):
                raise ApiError(*EMPTY_MESSAGE)
        elif ctype is CallbackType.MODAL:
            problems = check_modal(data)
            if problems:
                raise invalid_form(problems)
        elif ctype is CallbackType.AUTOCOMPLETE_RESULT:
            problems = check_choices(data)
            if problems:
                raise invalid_form(problems)

        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        message: MessageRecord | None = None
        if ctype is CallbackType.CHANNEL_MESSAGE:
            message = w.create_message(rec.channel, w.bot_user, data, call.files, interaction=rec)
            rec.original, rec.original_created = message, True
        elif ctype is CallbackType.DEFERRED_CHANNEL_MESSAGE:
            flags = LOADING | (EPHEMERAL if ephemeral else 0)
            message = w.create_message(rec.channel, w.bot_user, {}, interaction=rec, flags=flags)
            rec.original, rec.original_created = message, True
        elif ctype in (CallbackType.DEFERRED_UPDATE_MESSAGE, CallbackType.UPDATE_MESSAGE):
            message = rec.source_message
            rec.original = message
            if ctype is CallbackType.UPDATE_MESSAGE and message is not None:
                w.edit_message(message, data, call.files)
            if message is not None:
                ephemeral = message.ephemeral
        latency = asyncio.get_running_loop().time() - rec.dispatched_at
        rec.callback = CallbackRecord(ctype, data, ephemeral, message, latency)
        w._notify()

        if call.query("with_response") not in ("1", "true", "True"):
            return Reply(204, answered=rec)
        interaction: dict[str, Any] = {
            "id": str(rec.id),
            "type": int(rec.type),
            "activity_instance_id": None,
            "response_message_id": str(message.id) if message is not None else None,
            "response_message_loading": ctype is CallbackType.DEFERRED_CHANNEL_MESSAGE,
            "response_message_ephemeral": ephemeral,
        }
        resource: dict[str, Any] = {"type": int(ctype)}
        if message is not None and ctype in (4, 5, 7):
            resource["message"] = message_payload(w, message)
        return Reply(200, {"interaction": interaction, "resource": resource}, answered=rec)

    # ---- interaction webhooks (follow-ups, @original) -------------------------------------------

    def _webhook_interaction(self, call: Call) -> InteractionRecord:
        if call.int_param("webhook_id") != self.w.application_id:
            raise ApiError(*UNKNOWN_WEBHOOK)
        rec = self.w.interactions_by_token.get(call.params["webhook_token"])
        # An interaction never acknowledged (expired, or not answered yet) has no webhook.
        if rec is None or rec.expired or rec.callback is None:
            raise ApiError(*UNKNOWN_WEBHOOK)
        if asyncio.get_running_loop().time() > rec.expires:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return rec

    def _webhook_message(self, call: Call, rec: InteractionRecord) -> MessageRecord:
        mid = call.params.get("message_id")
        if mid is None:  # @original
            if rec.original is None or rec.original.deleted:
                raise ApiError(*UNKNOWN_MESSAGE)
            return rec.original
        for message in [rec.original, *rec.followups]:
            if message is not None and str(message.id) == mid and not message.deleted:
                return message
        raise ApiError(*UNKNOWN_MESSAGE)

    def _check_body(self, call: Call, *, editing: MessageRecord | None = None) -> None:
        check_uploads(call)
        problems = check_message(call.json, n_files=len(call.files), creating=editing is None)
        if problems:
            raise invalid_form(problems)
        if editing is None:
            if is_empty_message(call.json, len(call.files)):
                raise ApiError(*EMPTY_MESSAGE)
        elif not editing.loading and _edit_leaves_empty(editing, call.json, len(call.files)):
            raise ApiError(*EMPTY_MESSAGE)

    async def create_followup(self, call: Call) -> Reply:
        rec = self._webhook_interaction(call)
        assert rec.callback is not None
        self._check_body(call)
        original = rec.original
        if (
            original is not None
            and original.loading
            and rec.callback.type is CallbackType.DEFERRED_CHANNEL_MESSAGE
        ):
            # The first follow-up after a "thinking" defer replaces the thinking message.
            self.w.edit_message(original, {k: v for k, v in call.json.items() if k != "flags"}, call.files)
            message = original
        else:
            message = self.w.create_message(
                rec.channel, self.w.bot_user, call.json, call.files, interaction=rec
            )
        if message not in rec.followups and message is not rec.original:
            rec.followups.append(message)
        if call.query("wait") in ("true", "True", "1"):
            return Reply(200, message_payload(self.w, message))
        return Reply(204)

    async def get_webhook_message(self, call: Call) -> Reply:
        rec = self._webhook_interaction(call)
        return Reply(200, message_payload(self.w, self._webhook_message(call, rec)))

    async def edit_webhook_message(self, call: Call) -> Reply:
        rec = self._webhook_interaction(call)
        message = self._webhook_message(call, rec)
        self._check_body(call, editing=message)
        self.w.edit_message(message, call.json, call.files)
        return Reply(200, message_payload(self.w, message))

    async def delete_webhook_message(self, call: Call) -> Reply:
        rec = self._webhook_interaction(call)
        self.w.delete_message(self._webhook_message(call, rec))
        return Reply(204)

    # ---- channels and messages ------------------------------------------------------------------

    def _channel(self, call: Call) -> Channel:
        channel = self.w.channels.get(call.int_param("channel_id"))
        if channel is None:
            raise ApiError(*UNKNOWN_CHANNEL)
        if channel.guild is not None and not self._bot_can(channel, Perm.VIEW_CHANNEL):
            raise ApiError(403, 50001, "Missing Access")
        return channel

    def _bot_can(self, channel: Channel, perm: int) -> bool:
        if channel.guild is None:
            return True
        return bool(channel.guild.permissions_of(self.w.bot_user.id) & perm)

    def _message(self, call: Call, channel: Channel) -> MessageRecord:
        message = self.w.find_message(channel, call.int_param("message_id"))
        if message is None or message.ephemeral:
            raise ApiError(*UNKNOWN_MESSAGE)
        return message

    async def get_channel(self, call: Call) -> Reply:
        return Reply(200, channel_payload(self._channel(call)))

    async def list_messages(self, call: Call) -> Reply:
        channel = self._channel(call)
        limit = max(1, min(100, int(call.query("limit") or 50)))
        messages = sorted(self.w.channel_messages(channel), key=lambda m: m.id, reverse=True)
        before, after, around = (call.query(k) for k in ("before", "after", "around"))
        if before:
            messages = [m for m in messages if m.id < int(before)]
        elif after:
            messages = sorted((m for m in messages if m.id > int(after)), key=lambda m: m.id)[:limit]
            messages.reverse()
        elif around:
            pivot = int(around)
            older = [m for m in messages if m.id <= pivot][: (limit + 1) // 2]
            newer = [m for m in messages if m.id > pivot][-(limit // 2) :] if limit > 1 else []
            messages = newer + older
        return Reply(200, [message_payload(self.w, m) for m in messages[:limit]])

    async def create_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        if channel.is_dm and channel.recipient is not None and channel.recipient.id in self.w.closed_dms:
            raise ApiError(*CANNOT_DM)
        send_perm = Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
        if not self._bot_can(channel, send_perm):
            raise ApiError(*MISSING_PERMISSIONS)
        self._not_archived(channel)
        if call.files and not self._bot_can(channel, Perm.ATTACH_FILES):
            raise ApiError(*MISSING_PERMISSIONS)
        self._check_body(call)
        reference = call.json.get("message_reference")
        if isinstance(reference, dict) and reference.get("message_id"):
            target = self.w.find_message(channel, int(reference["message_id"]))
            if target is None and reference.get("fail_if_not_exists", True):
                raise invalid_form([Problem("message_reference", "Unknown message")])
        nonce = call.json.get("nonce")
        if call.json.get("enforce_nonce") is True and nonce is not None:
            # "If another message was created by the same author with the same nonce, that message
            # will be returned and no new message will be created."
            existing = self.w.nonce_message(channel, self.w.bot_user, nonce)
            if existing is not None:
                return Reply(200, message_payload(self.w, existing, with_nonce=True))
        if channel.is_thread:
            self.w.add_thread_member(channel, self.w.bot_user)  # posting in a thread joins it
        message = self.w.create_message(channel, self.w.bot_user, call.json, call.files)
        return Reply(200, message_payload(self.w, message, with_nonce=True))

    async def get_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        return Reply(200, message_payload(self.w, self._message(call, channel)))

    async def edit_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        message = self._message(call, channel)
        if message.author.id != self.w.bot_user.id:
            raise ApiError(*NOT_AUTHOR)
        self._not_archived(channel)
        self._check_body(call, editing=message)
        self.w.edit_message(message, call.json, call.files)
        return Reply(200, message_payload(self.w, message))

    async def delete_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        message = self._message(call, channel)
        if message.author.id != self.w.bot_user.id:
            if channel.is_dm:
                raise ApiError(403, 50003, "Cannot execute action on a DM channel")
            if not self._bot_can(channel, Perm.MANAGE_MESSAGES):
                raise ApiError(*MISSING_PERMISSIONS)
        self.w.delete_message(message)
        return Reply(204)

    async def bulk_delete(self, call: Call) -> Reply:
        channel = self._channel(call)
        if channel.is_dm:
            raise ApiError(403, 50003, "Cannot execute action on a DM channel")
        if not self._bot_can(channel, Perm.MANAGE_MESSAGES):
            raise ApiError(*MISSING_PERMISSIONS)
        ids = call.json.get("messages") or []
        if not 2 <= len(ids) <= 100:
            raise invalid_form([Problem("messages", "Must be between 2 and 100 in length.")])
        for raw in ids:
            message = self.w.find_message(channel, int(raw))
            if message is not None:
                self.w.delete_message(message)
        return Reply(204)

    async def add_reaction(self, call: Call) -> Reply:
        message = self._message(call, self._channel(call))
        message.reactions.add(call.params["emoji"])
        return Reply(204)

    async def remove_reaction(self, call: Call) -> Reply:
        message = self._message(call, self._channel(call))
        message.reactions.discard(call.params["emoji"])
        return Reply(204)

    async def typing(self, call: Call) -> Reply:
        self._channel(call)
        return Reply(204)

    def _not_archived(self, channel: Channel) -> None:
        """An archived thread takes no messages (nor edits, nor new members) until unarchived."""
        if channel.is_thread and channel.archived:
            raise ApiError(*THREAD_ARCHIVED)

    def _thread(self, call: Call) -> Channel:
        channel = self._channel(call)
        if not channel.is_thread:
            raise ApiError(*WRONG_CHANNEL_TYPE)
        return channel

    async def create_thread(self, call: Call) -> Reply:
        parent = self._channel(call)
        if parent.guild is None or parent.is_thread:
            raise ApiError(*WRONG_CHANNEL_TYPE)
        problems: list[Problem] = []
        name = call.json.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            problems.append(Problem("name", "Must be between 1 and 100 in length."))
        duration = call.json.get("auto_archive_duration", 1440)
        if duration not in AUTO_ARCHIVE_DURATIONS:
            problems.append(
                Problem("auto_archive_duration", f"Value must be one of {AUTO_ARCHIVE_DURATIONS}.")
            )
        if problems:
            raise invalid_form(problems)
        from_message = "message_id" in call.params
        private = not from_message and call.json.get("type", 12) == ChannelType.PRIVATE_THREAD
        perm = Perm.CREATE_PRIVATE_THREADS if private else Perm.CREATE_PUBLIC_THREADS
        if not self._bot_can(parent, perm):
            raise ApiError(*MISSING_PERMISSIONS)
        starter = self._message(call, parent) if from_message else None
        if starter is not None and starter.thread is not None:
            raise ApiError(*THREAD_EXISTS)
        thread = self.w.add_thread(
            parent,
            name,
            private=private,
            owner=self.w.bot_user,
            message=starter,
            auto_archive_duration=duration,
        )
        if not private:
            self.w.public_extras.append(PublicPayload("thread", parent.id, None, {"name": name}, ()))
        if not private and starter is None:
            # Discord announces a thread started without a message in its parent channel.
            notice = self.w.create_message(parent, self.w.bot_user, {"content": name}, dispatch=False)
            notice.type = 18  # THREAD_CREATED
            self.w._dispatch_message("MESSAGE_CREATE", notice)
        return Reply(
            201, {**channel_payload(thread), "member": thread_member_payload(thread, self.w.bot_user.id)}
        )

    async def edit_channel(self, call: Call) -> Reply:
        channel = self._channel(call)
        body = call.json
        if not channel.is_thread:
            if channel.guild is None:
                raise ApiError(*WRONG_CHANNEL_TYPE)
            if not self._bot_can(channel, Perm.MANAGE_CHANNELS):
                raise ApiError(*MISSING_PERMISSIONS)
            if isinstance(body.get("name"), str):
                channel.name = body["name"]
            return Reply(200, channel_payload(channel))
        manager = self._bot_can(channel, Perm.MANAGE_THREADS)
        owner = channel.owner_id == self.w.bot_user.id
        if "locked" in body and not manager:
            raise ApiError(*MISSING_PERMISSIONS)
        if not (manager or owner):
            raise ApiError(*MISSING_PERMISSIONS)
        if channel.locked and channel.archived and not manager:
            raise ApiError(*THREAD_LOCKED)
        if channel.locked and "name" in body and not manager:
            raise ApiError(*THREAD_LOCKED)  # a locked thread's title is the moderators' (even its owner's)
        name = body.get("name")
        if name is not None and (not isinstance(name, str) or not 1 <= len(name) <= 100):
            raise invalid_form([Problem("name", "Must be between 1 and 100 in length.")])
        duration = body.get("auto_archive_duration")
        if duration is not None and duration not in AUTO_ARCHIVE_DURATIONS:
            raise invalid_form(
                [Problem("auto_archive_duration", f"Value must be one of {AUTO_ARCHIVE_DURATIONS}.")]
            )
        if channel.archived and body.get("archived") is not False and set(body) - {"archived", "locked"}:
            raise ApiError(*THREAD_ARCHIVED)  # only unarchiving (or locking) touches an archived thread
        self.w.edit_thread(
            channel,
            name=name,
            archived=body.get("archived"),
            locked=body.get("locked"),
            auto_archive_duration=duration,
        )
        if name is not None and channel.type is ChannelType.PUBLIC_THREAD:
            assert channel.parent is not None
            self.w.public_extras.append(PublicPayload("thread", channel.parent.id, None, {"name": name}, ()))
        return Reply(200, channel_payload(channel))

    async def delete_channel(self, call: Call) -> Reply:
        channel = self._thread(call)
        if not self._bot_can(channel, Perm.MANAGE_THREADS):
            raise ApiError(*MISSING_PERMISSIONS)
        payload = channel_payload(channel)
        self.w.delete_thread(channel)
        return Reply(200, payload)

    def _thread_user(self, call: Call, thread: Channel) -> int:
        if "user_id" not in call.params:
            return self.w.bot_user.id
        uid = call.int_param("user_id")
        assert thread.guild is not None
        if uid not in thread.guild.members:
            raise ApiError(*UNKNOWN_MEMBER)
        return uid

    async def list_thread_members(self, call: Call) -> Reply:
        thread = self._thread(call)
        return Reply(200, [thread_member_payload(thread, uid) for uid in thread.members])

    async def get_thread_member(self, call: Call) -> Reply:
        thread = self._thread(call)
        uid = self._thread_user(call, thread)
        if uid not in thread.members:
            raise ApiError(*UNKNOWN_MEMBER)
        return Reply(200, thread_member_payload(thread, uid))

    async def add_thread_member(self, call: Call) -> Reply:
        thread = self._thread(call)
        uid = self._thread_user(call, thread)
        self._not_archived(thread)
        if uid != self.w.bot_user.id and not self._bot_can(thread, Perm.SEND_MESSAGES_IN_THREADS):
            raise ApiError(*MISSING_PERMISSIONS)
        self.w.add_thread_member(thread, uid)
        return Reply(204)

    async def remove_thread_member(self, call: Call) -> Reply:
        thread = self._thread(call)
        uid = self._thread_user(call, thread)
        self._not_archived(thread)
        if uid != self.w.bot_user.id and not self._bot_can(thread, Perm.MANAGE_THREADS):
            if not (thread.type is ChannelType.PRIVATE_THREAD and thread.owner_id == self.w.bot_user.id):
                raise ApiError(*MISSING_PERMISSIONS)
        self.w.remove_thread_member(thread, uid)  # removing a non-member changes nothing
        return Reply(204)

    # ---- guilds ---------------------------------------------------------------------------------

    def _guild(self, call: Call) -> Any:
        guild = self.w.guilds.get(call.int_param("guild_id"))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def get_guild(self, call: Call) -> Reply:
        return Reply(200, guild_payload(self._guild(call)))

    async def get_guild_channels(self, call: Call) -> Reply:
        guild = self._guild(call)
        return Reply(200, [channel_payload(c) for c in guild.channels if not c.is_thread])

    async def get_guild_roles(self, call: Call) -> Reply:
        return Reply(200, [role_payload(r) for r in self._guild(call).roles])

    async def get_active_threads(self, call: Call) -> Reply:
        """The guild's threads that are not archived, and the bot's own memberships among them."""
        guild = self._guild(call)
        me = self.w.bot_user.id
        threads = [c for c in guild.channels if c.is_thread and not c.archived and not c.deleted]
        return Reply(
            200,
            {
                "threads": [channel_payload(t) for t in threads],
                "members": [thread_member_payload(t, me) for t in threads if me in t.members],
                "has_more": False,
            },
        )

    async def get_member(self, call: Call) -> Reply:
        guild = self._guild(call)
        member = guild.members.get(call.int_param("user_id"))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return Reply(200, member_payload(guild, member))
