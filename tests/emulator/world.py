"""The emulator's state: guilds, channels, users, messages, synced commands, and what was recorded.

`World` is the base of `DiscordEmulator`: building the world (`add_guild`, `add_user`, ...), the
message store with Discord's create/edit/delete semantics, the queries tests make, fault
injection settings, and waiting for the bot (`wait_idle`, `wait_for_message`).
"""

from __future__ import annotations

import asyncio
import fnmatch
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .gateway import GatewayHub
from .models import (
    DEFAULT_BOT,
    DEFAULT_EVERYONE,
    EPHEMERAL,
    HAS_THREAD,
    LOADING,
    SUPPRESS_EMBEDS,
    Attachment,
    Channel,
    ChannelType,
    EmulatorError,
    Guild,
    Intent,
    InteractionRecord,
    Member,
    MessageRecord,
    Perm,
    PublicPayload,
    RequestRecord,
    Role,
    SchemaViolation,
    Snowflakes,
    UploadedFile,
    User,
    Violation,
)
from .payloads import channel_payload, guild_create_payload, message_payload, thread_member_payload
from .traps import Expiry, Hook, InteractionMatch, Trap, interaction_filter, matches
from .validation import check_locale

USER_MENTION = re.compile(r"<@!?(\d+)>")


def pinged_by(body: Mapping[str, Any]) -> frozenset[int]:
    """The users a new message's mentions notify, as Discord decides: the users its content
    mentions, narrowed by ``allowed_mentions`` when the request has one (``parse: ["users"]``: all
    of them; else only those listed in ``users``)."""
    named = {int(uid) for uid in USER_MENTION.findall(str(body.get("content") or ""))}
    allowed = body.get("allowed_mentions")
    if not isinstance(allowed, dict) or "users" in (allowed.get("parse") or []):
        return frozenset(named)
    listed = {int(uid) for uid in allowed.get("users") or [] if str(uid).isdigit()}
    return frozenset(named & listed)


@dataclass
class Fault:
    """An injected failure for the next `times` requests matching `pattern`."""

    pattern: str
    status: int
    times: int
    retry_after: float
    is_global: bool

    def matches(self, record: RequestRecord) -> bool:
        candidates = [record.path, f"{record.method} {record.path}"]
        if record.route is not None:
            candidates += [record.route, f"{record.method} {record.route}"]
        return any(fnmatch.fnmatchcase(c, self.pattern) for c in candidates)


CALLBACK_PATTERN = "POST /interactions/*/callback"
ChannelRef = Channel | int
UserRef = User | int

T = TypeVar("T")


def _look_up(table: Mapping[int, T], key: int, what: str) -> T:
    """``table[key]``, or EmulatorError("no <what> <key>")."""
    try:
        return table[int(key)]
    except KeyError:
        raise EmulatorError(f"no {what} {key}") from None


@dataclass(frozen=True)
class Scene:
    """A ready-made world: one guild, two channels, a thread, four players and a moderator."""

    guild: Guild
    channel: Channel
    other_channel: Channel
    thread: Channel
    alice: User
    bob: User
    carol: User
    dave: User
    mod: User

    @property
    def players(self) -> tuple[User, User, User, User]:
        return (self.alice, self.bob, self.carol, self.dave)


class World:
    def __init__(
        self,
        *,
        token: str | None = None,
        interaction_deadline: float = 3.0,
        followup_window: float = 15 * 60.0,
        nonce_window: float = 5 * 60.0,
        privileged_intents: int = 0,
        bot_name: str = "Quet Test Bot",
        max_guilds_per_session: int = 2500,
        guilds_per_recommended_shard: int = 1000,
        session_start_limit: int = 1000,
    ) -> None:
        self.ids = Snowflakes()
        self.token = token
        self.interaction_deadline = interaction_deadline
        self.followup_window = followup_window
        # How long a message's nonce dedupes an `enforce_nonce` create (Discord: "the past few
        # minutes"), in seconds of the event loop's clock.
        self.nonce_window = nonce_window
        self.privileged_intents = privileged_intents
        # Sharding: a session may hold at most this many guilds (else IDENTIFY is closed with 4011,
        # "Sharding required"); GET /gateway/bot recommends a shard per this many guilds; and the
        # IDENTIFYs allowed a day (its `session_start_limit`, counted down, not enforced).
        self.max_guilds_per_session = max_guilds_per_session
        self.guilds_per_recommended_shard = guilds_per_recommended_shard
        self.session_start_limit = session_start_limit
        self.application_id = self.ids.next()
        self.bot_user = User(id=self.application_id, name=bot_name, bot=True)
        self.owner_user = User(id=self.ids.next(), name="server-owner")
        self.users: dict[int, User] = {u.id: u for u in (self.bot_user, self.owner_user)}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, MessageRecord] = {}
        self.files: dict[int, Attachment] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self.interactions_by_token: dict[str, InteractionRecord] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.requests: list[RequestRecord] = []
        self.violations: list[Violation] = []
        self.schema_violations: list[SchemaViolation] = []
        self.public_extras: list[PublicPayload] = []
        self.faults: list[Fault] = []
        self.traps: list[Trap] = []
        self.expiries: list[Expiry] = []
        # (channel id, author id, nonce) -> the message created with it, and when (loop time).
        self._nonces: dict[tuple[int, int, str], tuple[MessageRecord, float]] = {}
        self.closed_dms: set[int] = set()
        self.base_url = "http://127.0.0.1:0"
        self.gateway = GatewayHub(self)
        self._message_seq = 0
        self._in_flight = 0
        self._last_activity = 0.0
        # More ways to be busy (the harness adds "an event handler of the bot is still running").
        self.busy_checks: list[Callable[[], str | None]] = []
        self._changed = asyncio.Event()

    # ---- addresses (set by the server once it listens) ------------------------------------------

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return self.base_url.replace("http://", "ws://", 1) + "/gateway"

    def attachment_url(self, channel: Channel, attachment: Attachment) -> str:
        return f"{self.base_url}/attachments/{channel.id}/{attachment.id}/{attachment.filename}"

    def token_ok(self, token: Any) -> bool:
        if not isinstance(token, str) or not token:
            return False
        return self.token is None or token == self.token

    # ---- building the world ---------------------------------------------------------------------

    def add_guild(
        self, name: str = "Test Server", *, shard: tuple[int, int] | None = None, locale: str = "en-US"
    ) -> Guild:
        """A guild with @everyone (Discord's default permissions), its owner, and the bot; with
        `shard` (shard_id, num_shards), one whose id puts it on that shard; `locale`: its preferred
        locale (each interaction's ``guild_locale``)."""
        check_locale(locale)
        gid = self.ids.next() if shard is None else self.ids.next_on_shard(*shard)
        guild = Guild(id=gid, name=name, owner_id=self.owner_user.id, preferred_locale=locale)
        guild.roles.append(Role(id=gid, name="@everyone", permissions=int(DEFAULT_EVERYONE)))
        bot_role = Role(id=self.ids.next(), name=self.bot_user.name, permissions=int(DEFAULT_BOT), position=1)
        guild.roles.append(bot_role)
        guild.members[self.owner_user.id] = Member(self.owner_user, [])
        guild.members[self.bot_user.id] = Member(self.bot_user, [bot_role])
        self.guilds[gid] = guild
        for session in self.gateway.live_sessions:
            if session.receives(gid):
                payload = guild_create_payload(
                    self, guild, all_members=bool(session.intents & Intent.GUILD_MEMBERS)
                )
                self.gateway._send_dispatch(session, "GUILD_CREATE", payload, gid)
        return guild

    def add_scene(
        self, guild_name: str = "Quet Test Server", *, shard: tuple[int, int] | None = None
    ) -> Scene:
        """Build the usual test world (see `Scene`); `mod` has Manage Messages. With `shard`
        (shard_id, num_shards), the guild's id puts it on that shard."""
        guild = self.add_guild(guild_name, shard=shard)
        channel = self.add_text_channel(guild, "games")
        other = self.add_text_channel(guild, "lounge")
        thread = self.add_thread(channel, "side game")
        alice, bob, carol, dave = (
            self.add_user(n, guilds=[guild]) for n in ("alice", "bob", "carol", "dave")
        )
        mod = self.add_user("mod", guilds=[guild], manage_messages=True)
        return Scene(guild, channel, other, thread, alice, bob, carol, dave, mod)

    def add_text_channel(self, guild: Guild, name: str) -> Channel:
        channel = Channel(
            id=self.ids.next(),
            name=name,
            type=ChannelType.TEXT,
            guild=guild,
            position=len(guild.channels),
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self.gateway.dispatch("CHANNEL_CREATE", channel_payload(channel), intent=Intent.GUILDS)
        return channel

    def add_thread(
        self,
        channel: Channel,
        name: str,
        *,
        private: bool = False,
        owner: User | None = None,
        message: MessageRecord | None = None,
        auto_archive_duration: int = 1440,
    ) -> Channel:
        """A thread in `channel`, started by `owner` (default: the server owner), who joins it.

        With `message` (a message in `channel`) the thread is started from it, as Discord does:
        the thread's id is the message's, and the message gains `thread` and the HAS_THREAD flag
        (MESSAGE_UPDATE). The bot gets THREAD_CREATE with `newly_created` (and its own thread
        member when it started the thread)."""
        assert channel.guild is not None and not channel.is_thread, "threads live in guild text channels"
        starter = owner or self.owner_user
        thread = Channel(
            id=message.id if message is not None else self.ids.next(),
            name=name,
            type=ChannelType.PRIVATE_THREAD if private else ChannelType.PUBLIC_THREAD,
            guild=channel.guild,
            parent=channel,
            owner_id=starter.id,
            auto_archive_duration=auto_archive_duration,
        )
        thread.members[starter.id] = time.time()
        channel.guild.channels.append(thread)
        self.channels[thread.id] = thread
        payload = {**channel_payload(thread), "newly_created": True}
        if starter.id == self.bot_user.id:
            payload["member"] = thread_member_payload(thread, starter.id)
        self.gateway.dispatch("THREAD_CREATE", payload, intent=Intent.GUILDS)
        if message is not None:
            message.thread = thread
            message.flags |= HAS_THREAD
            self._dispatch_message("MESSAGE_UPDATE", message)
        self._notify()
        return thread

    def edit_thread(
        self,
        thread: ChannelRef,
        *,
        name: str | None = None,
        archived: bool | None = None,
        locked: bool | None = None,
        auto_archive_duration: int | None = None,
    ) -> Channel:
        """Change a thread as Discord does (THREAD_UPDATE): e.g. `archived=True` is what Discord
        does on its own after `auto_archive_duration` minutes without activity."""
        ch = self.channel(thread)
        assert ch.is_thread, f"{ch!r} is not a thread"
        if name is not None:
            ch.name = name
        if archived is not None and archived != ch.archived:
            ch.archived = archived
            ch.archived_at = time.time()
        if locked is not None:
            ch.locked = locked
        if auto_archive_duration is not None:
            ch.auto_archive_duration = auto_archive_duration
        self.gateway.dispatch("THREAD_UPDATE", channel_payload(ch), intent=Intent.GUILDS)
        self._notify()
        return ch

    def delete_thread(self, thread: ChannelRef) -> None:
        """The thread and its messages are gone (THREAD_DELETE); its starter message loses it."""
        ch = self.channel(thread)
        assert ch.is_thread and ch.guild is not None and ch.parent is not None
        ch.deleted = True
        self.channels.pop(ch.id, None)
        if ch in ch.guild.channels:
            ch.guild.channels.remove(ch)
        for message in self.messages.values():
            if message.thread is ch:
                message.thread = None
                message.flags &= ~HAS_THREAD
            if message.channel is ch:
                message.deleted = True
        data = {
            "id": str(ch.id),
            "guild_id": str(ch.guild.id),
            "parent_id": str(ch.parent.id),
            "type": int(ch.type),
        }
        self.gateway.dispatch("THREAD_DELETE", data, intent=Intent.GUILDS)
        self._notify()

    def add_thread_member(self, thread: ChannelRef, user: UserRef) -> bool:
        """`user` joins the thread (THREAD_MEMBERS_UPDATE); False if they already had."""
        ch, who = self.channel(thread), self.user(user)
        if who.id in ch.members:
            return False
        ch.members[who.id] = time.time()
        self._members_update(ch, who.id, {"added_members": [thread_member_payload(ch, who.id)]})
        return True

    def remove_thread_member(self, thread: ChannelRef, user: UserRef) -> bool:
        """`user` leaves the thread (THREAD_MEMBERS_UPDATE); False if they were not in it."""
        ch, who = self.channel(thread), self.user(user)
        if ch.members.pop(who.id, None) is None:
            return False
        self._members_update(ch, who.id, {"removed_member_ids": [str(who.id)]})
        return True

    def _members_update(self, thread: Channel, user_id: int, change: dict[str, Any]) -> None:
        """THREAD_MEMBERS_UPDATE goes to sessions with GUILD_MEMBERS; without that privileged
        intent, only when the bot itself was added or removed (Discord's rule)."""
        assert thread.guild is not None
        data = {
            "id": str(thread.id),
            "guild_id": str(thread.guild.id),
            "member_count": min(50, len(thread.members)),
            **change,
        }
        for session in self.gateway.live_sessions:
            if not session.intents & Intent.GUILDS or not session.receives(thread.guild.id):
                continue
            if user_id == self.bot_user.id or session.intents & Intent.GUILD_MEMBERS:
                self.gateway._send_dispatch(session, "THREAD_MEMBERS_UPDATE", data, thread.guild.id)
        self._notify()

    def add_user(
        self,
        name: str,
        *,
        guilds: Iterable[Guild] | None = None,
        manage_messages: bool = False,
        permissions: int = 0,
        locale: str = "en-US",
    ) -> User:
        """A human user, member of `guilds` (default: every guild so far), whose Discord client
        speaks `locale` (each of their interactions' ``locale``).

        `manage_messages=True` or extra `permissions` bits give the member a role with them.
        """
        check_locale(locale)
        user = User(id=self.ids.next(), name=name, global_name=name.title(), locale=locale)
        self.users[user.id] = user
        extra = permissions | (Perm.MANAGE_MESSAGES if manage_messages else 0)
        for guild in list(self.guilds.values()) if guilds is None else guilds:
            guild.members[user.id] = Member(user, [])
            if extra:
                self.grant(guild, user, int(extra))
        return user

    def set_locale(self, who: User | Guild, locale: str) -> None:
        """Change a user's client language, or a server's preferred locale (their next interactions
        carry it)."""
        check_locale(locale)
        if isinstance(who, Guild):
            who.preferred_locale = locale
        else:
            who.locale = locale

    def commands_of(self, guild: Guild | None = None) -> list[dict[str, Any]]:
        """The application commands the bot synced (globally, or to ``guild``), as stored: with the
        name and description localisations it sent."""
        return self.commands.get(None if guild is None else guild.id, [])

    def add_role(self, guild: Guild, name: str, permissions: int) -> Role:
        role = Role(id=self.ids.next(), name=name, permissions=permissions, position=len(guild.roles))
        guild.roles.append(role)
        return role

    def give_role(self, guild: Guild, user: User, role: Role) -> None:
        member = guild.members.get(user.id)
        if member is None:
            member = guild.members[user.id] = Member(user, [])
        if role not in member.roles:
            member.roles.append(role)

    def grant(self, guild: Guild, user: User, permissions: int) -> Role:
        """Give a member extra permissions (through a role of their own)."""
        role = self.add_role(guild, f"{user.name}-perms", int(permissions))
        self.give_role(guild, user, role)
        return role

    def set_bot_permissions(self, guild: Guild, permissions: int) -> None:
        """Replace the bot's permissions in a guild (to test a bot that lacks some)."""
        guild.members[self.bot_user.id].permissions_override = int(permissions)

    def permissions(self, guild: Guild | None, user: UserRef) -> int:
        if guild is None:
            return 0
        return guild.permissions_of(self.user(user).id)

    def user(self, ref: UserRef) -> User:
        return ref if isinstance(ref, User) else _look_up(self.users, ref, "user")

    def channel(self, ref: ChannelRef) -> Channel:
        return ref if isinstance(ref, Channel) else _look_up(self.channels, ref, "channel")

    def dm_channel(self, user: UserRef) -> Channel | None:
        uid = self.user(user).id
        for channel in self.channels.values():
            if channel.is_dm and channel.recipient is not None and channel.recipient.id == uid:
                return channel
        return None

    def open_dm(self, user: UserRef) -> Channel:
        """The DM channel between the bot and `user`, created if needed."""
        existing = self.dm_channel(user)
        if existing is not None:
            return existing
        target = self.user(user)
        channel = Channel(id=self.ids.next(), name=f"dm-{target.name}", type=ChannelType.DM, recipient=target)
        self.channels[channel.id] = channel
        return channel

    def close_dms(self, user: UserRef) -> None:
        """The user blocks DMs from the bot: sending there fails with 403 / 50007."""
        self.closed_dms.add(self.user(user).id)

    def open_dms(self, user: UserRef) -> None:
        self.closed_dms.discard(self.user(user).id)

    def fail_next(
        self,
        pattern: str,
        *,
        status: int = 429,
        times: int = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
    ) -> None:
        """Fail the next `times` requests matching `pattern` with `status` (429 or 5xx).

        `pattern` is an fnmatch pattern over the path or route template, with or without the
        method: "POST /channels/*/messages", "/interactions/*", "PATCH /webhooks/{webhook_id}*".
        """
        self.faults.append(Fault(pattern, status, times, retry_after, is_global))

    def take_fault(self, record: RequestRecord) -> Fault | None:
        for fault in self.faults:
            if fault.times > 0 and fault.matches(record):
                fault.times -= 1
                if fault.times == 0:
                    self.faults.remove(fault)
                return fault
        return None

    # ---- moments armed on the bot's requests, and forgotten interactions ----------------------------

    def after_answer(self, match: InteractionMatch, hook: Hook) -> Trap:
        """Run `hook()` once, when the bot's callback to the first interaction matching `match` (a
        record, a predicate such as `interaction_filter(user=...)`, or None for any) has been
        applied and recorded, before the HTTP response goes back to the bot. `rec.response()`
        returns only after the hook has run. With `harness.crash` as the hook, the bot dies without
        learning that its answer was delivered."""
        trap = Trap(CALLBACK_PATTERN, hook, match, answer=True, armed_at=self._now())
        self.traps.append(trap)
        return trap

    def after_request(
        self, pattern: str, hook: Hook, *, after: InteractionMatch = None, nth: int = 1
    ) -> Trap:
        """Run `hook()` once, when the first request matching `pattern` ("POST /channels/*/messages",
        as in `fail_next`; "*" for any) has been applied, before its response goes back to the bot
        (with `nth`, the nth such request: "right after the bot's 3rd request from now"). With
        `after`, only a request started after a matching interaction was dispatched counts (for a
        predicate: an interaction dispatched after arming): "the first channel message the bot
        creates after interaction X". `await trap.wait()` waits for the hook to have run."""
        if nth < 1:
            raise EmulatorError("nth counts from 1")
        trap = Trap(pattern, hook, after, answer=False, armed_at=self._now(), skip=nth - 1)
        self.traps.append(trap)
        return trap

    def crash_after_next_answer(
        self,
        harness: Any,
        match: InteractionMatch = None,
        *,
        user: User | None = None,
        command: str | None = None,
        custom_id: str | None = None,
    ) -> Trap:
        """`after_answer` with `harness.crash` (a `BotHarness`) as the hook, for the next interaction
        matching `match` or the keywords (see `interaction_filter`)."""
        return self.after_answer(self._interaction_match(match, user, command, custom_id), harness.crash)

    def crash_after_next_request(self, harness: Any, pattern: str, *, after: InteractionMatch = None) -> Trap:
        """`after_request` with `harness.crash` as the hook: e.g. the bot dies right after Discord
        created the first channel message since interaction X, without learning it did."""
        return self.after_request(pattern, harness.crash, after=after)

    def expire_next_interaction(
        self,
        match: InteractionMatch = None,
        *,
        user: User | None = None,
        command: str | None = None,
        custom_id: str | None = None,
    ) -> Expiry:
        """The bot's next callback to an interaction matching `match` (or the keywords) finds it
        expired, as when it comes too late: 404 with code 10062 "Unknown interaction", and from
        then on the interaction's follow-ups and @original answer 404 / 10015 "Unknown Webhook".
        Injected: not counted as a violation of the bot's."""
        expiry = Expiry(self._interaction_match(match, user, command, custom_id))
        self.expiries.append(expiry)
        return expiry

    @staticmethod
    def _interaction_match(
        match: InteractionMatch, user: User | None, command: str | None, custom_id: str | None
    ) -> InteractionMatch:
        if user is None and command is None and custom_id is None:
            return match
        if match is not None:
            raise EmulatorError("give either an interaction match or keywords, not both")
        return interaction_filter(user=user, command=command, custom_id=custom_id)

    def take_trap(self, record: RequestRecord, answered: InteractionRecord | None) -> Trap | None:
        """The armed trap this applied request fires (removed from the armed ones), if any."""
        for trap in self.traps:
            if not trap.matches_request(record):
                continue
            if trap.answer:
                if answered is None or not matches(trap.interaction, answered):
                    continue
                trap.fired_on = answered
            elif trap.interaction is not None:
                since = self._dispatched_before(trap, record.started)
                if since is None:
                    continue
                trap.fired_on = since
            if trap.skip:
                trap.skip -= 1
                continue
            trap.request = record
            self.traps.remove(trap)
            return trap
        return None

    def _dispatched_before(self, trap: Trap, started: float) -> InteractionRecord | None:
        match = trap.interaction
        if isinstance(match, InteractionRecord):
            return match if match.dispatched_at <= started else None
        for rec in self.interactions.values():
            if trap.armed_at <= rec.dispatched_at <= started and matches(match, rec):
                return rec
        return None

    def take_expiry(self, rec: InteractionRecord) -> Expiry | None:
        for expiry in self.expiries:
            if matches(expiry.interaction, rec):
                expiry.expired = rec
                self.expiries.remove(expiry)
                return expiry
        return None

    def _now(self) -> float:
        return asyncio.get_running_loop().time() if self._loop_running() else 0.0

    # ---- the message store ----------------------------------------------------------------------

    def _new_attachments(
        self, meta: list[dict[str, Any]] | None, files: list[UploadedFile]
    ) -> dict[int, Attachment]:
        """Uploaded files by their index in the request (`files[n]` -> n), named per `attachments`."""
        by_index: dict[int, Attachment] = {}
        described = {str(m.get("id")): m for m in meta or [] if isinstance(m, dict)}
        for upload in files:
            index = int(upload.field[6:-1]) if upload.field.startswith("files[") else len(by_index)
            info = described.get(str(index), {})
            by_index[index] = Attachment(
                id=self.ids.next(),
                filename=str(info.get("filename") or upload.filename),
                data=upload.data,
                content_type=upload.content_type,
                description=info.get("description"),
            )
            self.files[by_index[index].id] = by_index[index]
        return by_index

    def create_message(
        self,
        channel: Channel,
        author: User,
        body: dict[str, Any],
        files: list[UploadedFile] | None = None,
        *,
        interaction: InteractionRecord | None = None,
        flags: int | None = None,
        dispatch: bool = True,
    ) -> MessageRecord:
        uploads = self._new_attachments(body.get("attachments"), files or [])
        self._message_seq += 1
        flag_value = int(body.get("flags") or 0) if flags is None else flags
        if interaction is None:
            flag_value &= ~(EPHEMERAL | LOADING)
        ephemeral = bool(flag_value & EPHEMERAL) and interaction is not None
        message = MessageRecord(
            id=self.ids.next(),
            channel=channel,
            author=author,
            content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            attachments=[uploads[k] for k in sorted(uploads)],
            flags=flag_value,
            seq=self._message_seq,
            interaction=interaction,
            visible_to=interaction.user.id if ephemeral and interaction else None,
            webhook_id=self.application_id if interaction is not None else None,
        )
        if interaction is not None and interaction.command is not None:
            message.type = 20
        if not message.ephemeral:
            message.pinged = pinged_by(body)
        nonce = body.get("nonce")
        if isinstance(nonce, int | str) and not isinstance(nonce, bool) and interaction is None:
            message.nonce = nonce
            self._nonces[(channel.id, author.id, str(nonce))] = (message, self._now())
        reference = body.get("message_reference")
        if isinstance(reference, dict) and reference.get("message_id"):
            message.reference_id = int(reference["message_id"])
            message.type = 19
        self.messages[message.id] = message
        if channel.is_thread and not message.ephemeral:
            channel.message_count += 1
        if dispatch and not message.ephemeral:
            self._dispatch_message("MESSAGE_CREATE", message)
        self._notify()
        return message

    def edit_message(
        self, message: MessageRecord, body: dict[str, Any], files: list[UploadedFile] | None = None
    ) -> None:
        """Apply a PATCH like Discord: present fields replace, `attachments` lists what remains."""
        message.history.append(message.snapshot())
        if "content" in body:
            message.content = str(body["content"] or "")
        if "embeds" in body:
            message.embeds = list(body["embeds"] or [])
        if "components" in body:
            message.components = list(body["components"] or [])
        if "flags" in body and body["flags"] is not None:
            keep = message.flags & ~SUPPRESS_EMBEDS
            message.flags = keep | (int(body["flags"]) & SUPPRESS_EMBEDS) | (int(body["flags"]) & (1 << 15))
        uploads = self._new_attachments(body.get("attachments"), files or [])
        if isinstance(body.get("attachments"), list):
            kept: list[Attachment] = []
            current = {str(a.id): a for a in message.attachments}
            for meta in body["attachments"]:
                key = str(meta.get("id"))
                if key in current:
                    kept.append(current[key])
                elif key.isdigit() and int(key) in uploads:
                    kept.append(uploads.pop(int(key)))
            message.attachments = kept + [uploads[k] for k in sorted(uploads)]
        elif body.get("attachments", ...) is None:
            message.attachments = [uploads[k] for k in sorted(uploads)]
        else:
            message.attachments = message.attachments + [uploads[k] for k in sorted(uploads)]
        message.flags &= ~LOADING
        message.edited_at = time.time()
        if not message.ephemeral:
            self._dispatch_message("MESSAGE_UPDATE", message)
        self._notify()

    def delete_message(self, message: MessageRecord) -> None:
        message.deleted = True
        if not message.ephemeral:
            data: dict[str, Any] = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if message.guild is not None:
                data["guild_id"] = str(message.guild.id)
            self.gateway.dispatch("MESSAGE_DELETE", data, intent=self._message_intent(message.channel))
        self._notify()

    @staticmethod
    def _message_intent(channel: Channel) -> int:
        return int(Intent.DIRECT_MESSAGES if channel.is_dm else Intent.GUILD_MESSAGES)

    def _dispatch_message(self, event: str, message: MessageRecord) -> None:
        payload = message_payload(self, message, with_nonce=event == "MESSAGE_CREATE")
        guild_message = message.channel.guild is not None
        mentions_bot = f"<@{self.bot_user.id}>" in message.content
        strip = guild_message and message.author.id != self.bot_user.id and not mentions_bot
        self.gateway.dispatch(
            event, payload, intent=self._message_intent(message.channel), content_intent=strip
        )

    def nonce_message(self, channel: Channel, author: User, nonce: int | str) -> MessageRecord | None:
        """The message `author` created in `channel` with `nonce` within the nonce window, if any
        (what an `enforce_nonce` create returns instead of creating another)."""
        found = self._nonces.get((channel.id, author.id, str(nonce)))
        if found is None:
            return None
        message, at = found
        if self._now() - at > self.nonce_window or message.deleted:
            return None
        return message

    def find_message(self, channel: Channel, message_id: int) -> MessageRecord | None:
        message = self.messages.get(message_id)
        if message is None or message.deleted or message.channel is not channel:
            return None
        return message

    # ---- queries --------------------------------------------------------------------------------

    def message(self, message_id: int) -> MessageRecord:
        return _look_up(self.messages, message_id, "message")

    def channel_messages(
        self, channel: ChannelRef, *, include_deleted: bool = False, since: int = 0
    ) -> list[MessageRecord]:
        """What everyone in the channel sees, oldest first (no ephemeral messages); with `since` (a
        `message_mark()`), only the messages created after that mark. A thread's messages are not
        its parent channel's."""
        ch = self.channel(channel)
        return [
            m
            for m in self.messages.values()
            if m.channel is ch and m.seq > since and not m.ephemeral and (include_deleted or not m.deleted)
        ]

    def message_mark(self) -> int:
        """A mark in the order of creation: `channel_messages(ch, since=mark)` counts what came after."""
        return self._message_seq

    def threads_of(self, channel: ChannelRef) -> list[Channel]:
        """The threads of a text channel (archived ones too, not deleted ones), oldest first."""
        ch = self.channel(channel)
        assert ch.guild is not None
        return [c for c in ch.guild.channels if c.is_thread and c.parent is ch and not c.deleted]

    def thread_messages(self, thread: ChannelRef, *, since: int = 0) -> list[MessageRecord]:
        """Everything posted in the thread, oldest first (`channel_messages` of a thread)."""
        ch = self.channel(thread)
        if not ch.is_thread:
            raise EmulatorError(f"{ch!r} is not a thread")
        return self.channel_messages(ch, since=since)

    def thread_members(self, thread: ChannelRef) -> list[User]:
        """Who has joined the thread, in order of joining."""
        ch = self.channel(thread)
        return [self.users[uid] for uid in ch.members]

    def last_message(self, channel: ChannelRef) -> MessageRecord:
        messages = self.channel_messages(channel)
        if not messages:
            raise EmulatorError(f"no message in {self.channel(channel)!r}")
        return messages[-1]

    def dm_messages(self, user: UserRef, *, include_deleted: bool = False) -> list[MessageRecord]:
        """What the bot sent to the user's DM channel (not the user's own messages)."""
        channel = self.dm_channel(user)
        if channel is None:
            return []
        return [
            m
            for m in self.channel_messages(channel, include_deleted=include_deleted)
            if m.author.id == self.bot_user.id
        ]

    def private_messages(self, user: UserRef, *, include_deleted: bool = False) -> list[MessageRecord]:
        """Ephemeral messages shown to this user only, oldest first."""
        uid = self.user(user).id
        return [
            m for m in self.messages.values() if m.visible_to == uid and (include_deleted or not m.deleted)
        ]

    def all_public_payloads(self) -> list[PublicPayload]:
        """Everything the bot showed where someone other than the addressee could see it.

        Every version of every non-ephemeral message it sent to a guild channel or thread (edits
        included, deleted messages too: they were visible until deleted), and thread names.
        """
        out: list[PublicPayload] = list(self.public_extras)
        for message in self.messages.values():
            if message.author.id != self.bot_user.id or message.ephemeral or message.channel.is_dm:
                continue
            for version in message.versions:
                out.append(
                    PublicPayload(
                        kind="message",
                        channel_id=message.channel.id,
                        message_id=message.id,
                        body={
                            "content": version.content,
                            "embeds": version.embeds,
                            "components": version.components,
                        },
                        attachments=tuple((a.filename, a.data) for a in version.attachments),
                    )
                )
        return out

    @property
    def unknown_requests(self) -> list[RequestRecord]:
        """Requests to routes the emulator does not know (answered 404)."""
        return [r for r in self.requests if r.route is None]

    def requests_matching(self, pattern: str) -> list[RequestRecord]:
        probe = Fault(pattern, 0, 0, 0.0, False)
        return [r for r in self.requests if probe.matches(r)]

    # ---- waiting --------------------------------------------------------------------------------

    def _notify(self) -> None:
        self._last_activity = asyncio.get_running_loop().time() if self._loop_running() else 0.0
        self._changed.set()
        self._changed = asyncio.Event()

    @staticmethod
    def _loop_running() -> bool:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    async def wait_until(
        self,
        condition: Callable[[], Any],
        timeout: float = 5.0,  # noqa: ASYNC109
        what: str = "",
    ) -> Any:
        """Wait until `condition()` returns something truthy (re-checked on every change)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            changed = self._changed
            result = condition()
            if result:
                return result
            remaining = end - loop.time()
            if remaining <= 0:
                raise EmulatorError(f"timed out after {timeout}s waiting for {what or condition}")
            try:
                await asyncio.wait_for(changed.wait(), min(remaining, 0.05))
            except TimeoutError:
                pass

    async def wait_for_message(
        self,
        channel: ChannelRef,
        predicate: Callable[[MessageRecord], bool] | None = None,
        timeout: float = 5.0,  # noqa: ASYNC109
        *,
        include_existing: bool = True,
    ) -> MessageRecord:
        """The first (oldest) message in the channel matching `predicate`, waiting for it if needed.

        Ephemeral messages are not channel messages; use `private_messages` for those.
        """
        ch = self.channel(channel)
        floor = self._message_seq if not include_existing else 0

        def find() -> MessageRecord | None:
            for m in self.channel_messages(ch):
                if m.seq > floor and (predicate is None or predicate(m)):
                    return m
            return None

        result: MessageRecord = await self.wait_until(find, timeout, f"a message in {ch!r}")
        return result

    def _busy(self) -> str | None:
        loop = asyncio.get_running_loop()
        if self._in_flight:
            return f"{self._in_flight} request(s) in flight"
        for check in self.busy_checks:
            busy = check()
            if busy is not None:
                return busy
        now = loop.time()
        for rec in self.interactions.values():
            if rec.callback is None and not rec.expired and now <= rec.deadline:
                return f"interaction {rec.describe()} not answered yet"
            if rec.original is not None and rec.original.loading and now <= rec.expires:
                return f"interaction {rec.describe()} still thinking"
        return None

    async def wait_idle(self, quiet: float = 0.05, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until the bot looks done: no request in flight, no interaction left unanswered or
        still "thinking", and no activity for `quiet` seconds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            busy = self._busy()
            idle_for = loop.time() - self._last_activity
            if busy is None and idle_for >= quiet:
                return
            if loop.time() > end:
                raise EmulatorError(f"the bot did not become idle within {timeout}s: {busy or 'active'}")
            await asyncio.sleep(max(0.005, quiet - idle_for) if busy is None else 0.01)
