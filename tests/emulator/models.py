"""Records of the emulated world: who exists, what was said, and what the bot asked for.

Everything here is plain data that tests read. The server mutates these objects in place (an edit
changes a `MessageRecord` and pushes the previous state onto its `history`), so a reference taken
early in a test always shows the current state.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum, IntFlag
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .gateway import GatewaySession

DISCORD_EPOCH_MS = 1_420_070_400_000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_EMBEDS = 1 << 2
COMPONENTS_V2 = 1 << 15
HAS_THREAD = 1 << 5  # a message flag: a thread was started from this message
AUTO_ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)  # minutes, the only values Discord accepts


class EmulatorError(AssertionError):
    """A test asked for something a real user could not do, or the bot never answered."""


class InteractionFailed(EmulatorError):
    """What the user would see as "This interaction failed": no valid callback in time."""


class Snowflakes:
    """Discord-shaped ids: milliseconds since the Discord epoch in the high bits, strictly increasing."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next id a guild on shard `shard_id` of `shard_count` could have (Discord's formula,
        `(guild_id >> 22) % shard_count`): the next id, moved on by a millisecond or a few."""
        if not 0 <= shard_id < shard_count:
            raise EmulatorError(f"there is no shard {shard_id} of {shard_count}")
        candidate = self.next()
        while (candidate >> 22) % shard_count != shard_id:
            candidate = ((candidate >> 22) + 1) << 22
        self._last = candidate
        return candidate


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard a guild's events go to when a bot runs `shard_count` shards (Discord's formula)."""
    return (guild_id >> 22) % shard_count


class Perm(IntFlag):
    """The permission bits the emulator reasons about (Discord's values)."""

    CREATE_INSTANT_INVITE = 1 << 0
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CHANGE_NICKNAME = 1 << 26
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38


ALL_PERMISSIONS = (1 << 51) - 1
DEFAULT_EVERYONE = (
    Perm.CREATE_INSTANT_INVITE
    | Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.CHANGE_NICKNAME
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.CREATE_PUBLIC_THREADS
    | Perm.SEND_MESSAGES_IN_THREADS
)
DEFAULT_BOT = DEFAULT_EVERYONE | Perm.MANAGE_MESSAGES | Perm.MANAGE_THREADS | Perm.CREATE_PRIVATE_THREADS


class Intent(IntFlag):
    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    GUILD_MESSAGES = 1 << 9
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15


PRIVILEGED_INTENTS = Intent.GUILD_MEMBERS | Intent.GUILD_PRESENCES | Intent.MESSAGE_CONTENT


class ChannelType(IntEnum):
    TEXT = 0
    DM = 1
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12


class InteractionType(IntEnum):
    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(IntEnum):
    PONG = 1
    CHANNEL_MESSAGE = 4
    DEFERRED_CHANNEL_MESSAGE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    AUTOCOMPLETE_RESULT = 8
    MODAL = 9


# ---- the world ----------------------------------------------------------------------------------


@dataclass(eq=False)
class User:
    id: int
    name: str
    bot: bool = False
    global_name: str | None = None
    # The language of the user's Discord client, sent as every interaction's ``locale``.
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __repr__(self) -> str:
        return f"User({self.name!r}, id={self.id})"


@dataclass(eq=False)
class Role:
    id: int
    name: str
    permissions: int
    position: int = 0

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"


@dataclass(eq=False)
class Member:
    user: User
    roles: list[Role]
    joined_at: float = field(default_factory=time.time)
    nick: str | None = None
    permissions_override: int | None = None


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    roles: list[Role] = field(default_factory=list)
    members: dict[int, Member] = field(default_factory=dict)
    channels: list[Channel] = field(default_factory=list)
    created_at: float = field(default_factory=time.time)
    # The server's preferred locale (Community servers set it): every interaction's ``guild_locale``.
    preferred_locale: str = "en-US"

    @property
    def everyone(self) -> Role:
        return self.roles[0]

    def permissions_of(self, user_id: int) -> int:
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        if member is None:
            return 0
        if member.permissions_override is not None:
            return member.permissions_override
        value = self.everyone.permissions
        for role in member.roles:
            value |= role.permissions
        if value & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return value

    def __repr__(self) -> str:
        return f"Guild({self.name!r}, id={self.id})"


@dataclass(eq=False)
class Channel:
    """A guild text channel, a thread (which has a `parent`), or a DM channel (which has a `recipient`)."""

    id: int
    name: str
    type: ChannelType
    guild: Guild | None = None
    parent: Channel | None = None
    recipient: User | None = None
    owner_id: int | None = None
    position: int = 0
    created_at: float = field(default_factory=time.time)
    # Threads only: their state (`thread_metadata`), who has joined (user id -> when), counters.
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    archived_at: float | None = None
    members: dict[int, float] = field(default_factory=dict)
    message_count: int = 0
    deleted: bool = False

    @property
    def is_dm(self) -> bool:
        return self.type is ChannelType.DM

    @property
    def is_thread(self) -> bool:
        return self.type in (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD)

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def __repr__(self) -> str:
        return f"Channel({self.name!r}, id={self.id}, type={self.type.name})"


# ---- messages -----------------------------------------------------------------------------------


@dataclass(eq=False)
class Attachment:
    """A file as stored: the bytes the bot uploaded (or a user attached)."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass(frozen=True)
class MessageVersion:
    """One state of a message, as a viewer saw it between two edits."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    attachments: list[Attachment]
    flags: int
    at: float


def walk_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every component in a message's tree: rows, their children, sections' accessories, labels."""
    for component in components:
        yield component
        children = component.get("components")
        if isinstance(children, list):
            yield from walk_components(children)
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, dict):
                yield from walk_components([child])


def embed_text(embed: dict[str, Any]) -> str:
    parts: list[str] = []
    for key in ("title", "description"):
        if embed.get(key):
            parts.append(str(embed[key]))
    for fld in embed.get("fields") or []:
        parts.append(f"{fld.get('name', '')}: {fld.get('value', '')}")
    for key in ("footer", "author"):
        sub = embed.get(key) or {}
        text = sub.get("text") or sub.get("name")
        if text:
            parts.append(str(text))
    return "\n".join(parts)


@dataclass(eq=False)
class MessageRecord:
    """A message as Discord stores it, plus the history of its edits.

    `visible_to` is the only user who can see it (ephemeral interaction messages), else None.
    `seq` is the global creation order.
    """

    id: int
    channel: Channel
    author: User
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    seq: int = 0
    type: int = 0
    interaction: InteractionRecord | None = None
    visible_to: int | None = None
    webhook_id: int | None = None
    reference_id: int | None = None
    created_at: float = field(default_factory=time.time)
    edited_at: float | None = None
    history: list[MessageVersion] = field(default_factory=list)
    deleted: bool = False
    reactions: set[str] = field(default_factory=set)
    thread: Channel | None = None
    nonce: int | str | None = None  # as the bot sent it; Discord echoes it in the created message
    # The users its mentions notified when it was created (`allowed_mentions` applied; edits notify
    # nobody). A DM notifies its recipient whatever it says: not counted here.
    pinged: frozenset[int] = frozenset()

    @property
    def channel_id(self) -> int:
        return self.channel.id

    @property
    def guild(self) -> Guild | None:
        return self.channel.guild

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response still showing "thinking…"."""
        return bool(self.flags & LOADING)

    @property
    def text(self) -> str:
        """Content and every embed's visible text, one block: handy for `in` assertions."""
        parts = [self.content] if self.content else []
        parts.extend(embed_text(e) for e in self.embeds)
        return "\n".join(p for p in parts if p)

    def snapshot(self) -> MessageVersion:
        return MessageVersion(
            content=self.content,
            embeds=list(self.embeds),
            components=list(self.components),
            attachments=list(self.attachments),
            flags=self.flags,
            at=self.edited_at or self.created_at,
        )

    @property
    def versions(self) -> list[MessageVersion]:
        """Every state the message has had, oldest first, the current one last."""
        return [*self.history, self.snapshot()]

    def all_components(self) -> list[dict[str, Any]]:
        return list(walk_components(self.components))

    def component(self, custom_id: str) -> dict[str, Any] | None:
        for comp in walk_components(self.components):
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in walk_components(self.components) if "custom_id" in c]

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in walk_components(self.components) if c.get("type") == 2]

    def button(self, label: str) -> dict[str, Any]:
        """The button whose label is `label` (raises if there is none or several)."""
        found = [b for b in self.buttons() if b.get("label") == label]
        if len(found) != 1:
            labels = [b.get("label") for b in self.buttons()]
            raise EmulatorError(f"expected one button labelled {label!r}, buttons are {labels}")
        return found[0]

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        return f"Message(id={self.id}, channel={self.channel.name!r}{flags}, content={self.content[:60]!r})"


# ---- what the bot asked for ---------------------------------------------------------------------


@dataclass(eq=False)
class UploadedFile:
    field: str
    filename: str
    data: bytes
    content_type: str | None


@dataclass(eq=False)
class RequestRecord:
    """One HTTP request the bot made (every attempt, including injected failures)."""

    seq: int
    method: str
    path: str
    route: str | None
    query: dict[str, str]
    json: Any
    files: list[UploadedFile]
    headers: dict[str, str]
    started: float
    status: int = 0
    response: Any = None
    finished: float | None = None
    injected: bool = False
    # A hook ran after this request was applied and before its response was sent (`Trap`): with a
    # crash as the hook, the bot never learnt the outcome.
    trapped: bool = False

    @property
    def key(self) -> str:
        """`METHOD /route/{template}` (or the raw path when no route matched)."""
        return f"{self.method} {self.route or self.path}"

    def __repr__(self) -> str:
        return f"Request({self.method} {self.path} -> {self.status})"


@dataclass(eq=False)
class Violation:
    """A request Discord would reject: the emulator answered it with a 4xx."""

    request: RequestRecord
    status: int
    code: int
    message: str
    errors: list[str]

    def __str__(self) -> str:
        detail = "; ".join(self.errors)
        return f"{self.request.method} {self.request.path}: {self.code} {self.message} {detail}".strip()


@dataclass(eq=False)
class SchemaViolation:
    """A request body that does not match Discord's OpenAPI description."""

    request: RequestRecord
    operation: str
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.operation} at {self.location or '<body>'}: {self.message}"


@dataclass(frozen=True)
class PublicPayload:
    """Something the bot showed in a shared channel (one version of a message, or a thread name)."""

    kind: str
    channel_id: int
    message_id: int | None
    body: dict[str, Any]
    attachments: tuple[tuple[str, bytes], ...]


@dataclass(eq=False)
class CallbackRecord:
    """The bot's answer to an interaction (POST /interactions/{id}/{token}/callback)."""

    type: CallbackType
    data: dict[str, Any]
    ephemeral: bool
    message: MessageRecord | None
    latency: float

    @property
    def choices(self) -> list[dict[str, Any]]:
        return list(self.data.get("choices") or [])


@dataclass(eq=False)
class InteractionRecord:
    """One interaction a test user started, and everything the bot did about it."""

    id: int
    token: str
    type: InteractionType
    user: User
    channel: Channel
    payload: dict[str, Any]
    dispatched_at: float
    deadline: float
    expires: float
    command: str | None = None
    custom_id: str | None = None
    source_message: MessageRecord | None = None
    callback: CallbackRecord | None = None
    original: MessageRecord | None = None
    original_created: bool = False
    followups: list[MessageRecord] = field(default_factory=list)
    rejected: list[Violation] = field(default_factory=list)
    modal_used: bool = False
    # Discord forgot the interaction (its callback was refused with 10062 "Unknown interaction"):
    # its webhook endpoints answer 10015 "Unknown Webhook".
    expired: bool = False
    # The gateway sessions INTERACTION_CREATE went to (the shard of its guild; shard 0 without one).
    sessions: list[GatewaySession] = field(default_factory=list)
    # Set once the callback is recorded and any hook armed on it (`after_answer`) has run.
    _answered: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def guild(self) -> Guild | None:
        return self.channel.guild

    @property
    def acknowledged(self) -> bool:
        return self.callback is not None

    async def response(self, timeout: float = 5.0) -> CallbackRecord:  # noqa: ASYNC109
        """The callback, once the bot sends it (and a hook armed on it has run); `InteractionFailed`
        past the 3 s deadline, or at once when the interaction expired."""
        if self._answered.is_set() and self.callback is not None:
            return self.callback
        loop = asyncio.get_running_loop()
        if self.callback is not None:  # recorded; a hook armed on it is still running
            wait = timeout
        else:
            wait = min(timeout, max(0.0, self.deadline - loop.time()) + 0.05)
        try:
            await asyncio.wait_for(self._answered.wait(), wait)
        except TimeoutError:
            pass
        if self.callback is None:
            why = "; ".join(str(v) for v in self.rejected) or "no callback"
            if self.expired:
                why = f"it expired: Discord answered the callback 10062 Unknown interaction; {why}"
            raise InteractionFailed(f"interaction {self.describe()} was not answered in time ({why})")
        return self.callback

    def describe(self) -> str:
        what = self.command or self.custom_id or self.type.name
        return f"{what!r} by {self.user.name}"

    @property
    def messages(self) -> list[MessageRecord]:
        """Messages this interaction created: its response (if it made one) and its follow-ups."""
        out = [self.original] if self.original is not None and self.original_created else []
        out.extend(m for m in self.followups if m is not self.original)
        return out

    @property
    def modal(self) -> dict[str, Any] | None:
        if self.callback is not None and self.callback.type is CallbackType.MODAL:
            return self.callback.data
        return None

    @property
    def choices(self) -> list[dict[str, Any]]:
        return self.callback.choices if self.callback is not None else []

    def texts(self) -> list[str]:
        return [m.text for m in self.messages if not m.deleted]

    def ephemeral_texts(self) -> list[str]:
        """What only this user saw: the text of this interaction's ephemeral messages."""
        shown = list(self.messages)
        if self.original is not None and self.original not in shown and self.original.ephemeral:
            shown.insert(0, self.original)
        return [m.text for m in shown if m.ephemeral and not m.deleted]

    def public_texts(self) -> list[str]:
        return [m.text for m in self.messages if not m.ephemeral and not m.deleted]
