"""What test users do: slash commands, autocomplete, clicks, selects, modal submits, DMs.

Each action builds the INTERACTION_CREATE (or MESSAGE_CREATE) payload the way Discord does and
sends it to the bot over the gateway. The Discord client's own rules apply first: a user cannot
run a command that is not synced or not available here, leave out a required option, pick a value
outside the choices, click a button that is not on the message (or is disabled, or is on someone
else's ephemeral message), or submit a modal twice. Breaking them raises `EmulatorError`.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from .models import (
    DEFAULT_EVERYONE,
    Attachment,
    Channel,
    ChannelType,
    EmulatorError,
    InteractionRecord,
    InteractionType,
    MessageRecord,
    Perm,
    Role,
    UploadedFile,
    User,
)
from .payloads import (
    attachment_payload,
    channel_payload,
    member_payload,
    message_payload,
    role_payload,
    user_payload,
)
from .validation import SELECT_TYPES
from .world import ChannelRef, UserRef, World

Options = Mapping[str, Any] | None  # a slash command's options, by name

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
SUBCOMMAND, GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11


class UserActions(World):
    # ---- commands -------------------------------------------------------------------------------

    def synced_commands(self, guild: Any = None) -> list[dict[str, Any]]:
        """The commands the bot synced: global ones, or a guild's with `guild`."""
        return list(self.commands.get(guild.id if guild is not None else None, []))

    def find_command(self, name: str, channel: ChannelRef) -> dict[str, Any]:
        """The top-level command a user in `channel` would get for `name` (guild ones first)."""
        ch = self.channel(channel)
        scopes: list[int | None] = [ch.guild.id, None] if ch.guild is not None else [None]
        for scope in scopes:
            for command in self.commands.get(scope, []):
                if command["name"] == name and command.get("type", 1) == 1:
                    return command
        known = sorted({c["name"] for s in scopes for c in self.commands.get(s, [])})
        raise EmulatorError(f"no slash command /{name} is synced for {ch!r}; synced: {known}")

    def _check_available(self, command: dict[str, Any], user: User, channel: Channel) -> None:
        contexts = command.get("contexts")
        if channel.guild is None:
            if (contexts is not None and 1 not in contexts) or (
                contexts is None and command.get("dm_permission") is False
            ):
                raise EmulatorError(f"/{command['name']} is not available in DMs")
            return
        if contexts is not None and 0 not in contexts:
            raise EmulatorError(f"/{command['name']} is not available in servers")
        required = command.get("default_member_permissions")
        if required is not None:
            need = int(required)
            have = channel.guild.permissions_of(user.id)
            if (need == 0 and not have & Perm.ADMINISTRATOR) or have & need != need:
                raise EmulatorError(f"{user.name} lacks the permissions /{command['name']} requires")

    def _command_data(
        self,
        user: User,
        channel: Channel,
        path: str,
        given: Mapping[str, Any],
        focused: str | None,
        *,
        checked: bool = True,
    ) -> dict[str, Any]:
        parts = path.split()
        if not parts:
            raise EmulatorError("empty command name")
        top = self.find_command(parts[0], channel)
        self._check_available(top, user, channel)
        node = top
        chain: list[dict[str, Any]] = []
        for part in parts[1:]:
            sub = next(
                (
                    o
                    for o in node.get("options") or []
                    if o["type"] in (SUBCOMMAND, GROUP) and o["name"] == part
                ),
                None,
            )
            if sub is None:
                names = [o["name"] for o in node.get("options") or [] if o["type"] in (SUBCOMMAND, GROUP)]
                raise EmulatorError(f"/{path}: no subcommand {part!r} (there are {names})")
            chain.append(sub)
            node = sub
        definitions = list(node.get("options") or [])
        if any(d["type"] in (SUBCOMMAND, GROUP) for d in definitions):
            names = [d["name"] for d in definitions]
            raise EmulatorError(f"/{path} is a group: name one of its subcommands {names}")
        resolved: dict[str, dict[str, Any]] = {}
        if checked:
            options = self._options(path, definitions, given, channel, user, focused, resolved)
        else:
            # Raw values, but a person named by the User object is resolved, as Discord resolves any
            # real snowflake a client sends for a user option.
            by_name = {d["name"]: d for d in definitions}
            options = []
            for k, v in given.items():
                definition = by_name.get(k, {"type": STRING, "name": k})
                if isinstance(v, User) and definition["type"] in (USER, MENTIONABLE):
                    v = self._option_value(path, definition, v, channel, user, resolved)
                options.append({"type": definition["type"], "name": k, "value": v})
        for sub in reversed(chain):
            options = [{"type": sub["type"], "name": sub["name"], "options": options}]
        data: dict[str, Any] = {"id": top["id"], "name": top["name"], "type": 1, "options": options}
        if top.get("guild_id"):
            data["guild_id"] = top["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    def _options(
        self,
        path: str,
        definitions: list[dict[str, Any]],
        given: Mapping[str, Any],
        channel: Channel,
        user: User,
        focused: str | None,
        resolved: dict[str, dict[str, Any]],
    ) -> list[dict[str, Any]]:
        by_name = {d["name"]: d for d in definitions}
        for key in given:
            if key not in by_name:
                raise EmulatorError(f"/{path} has no option {key!r}; options are {list(by_name)}")
        if focused is not None and focused not in by_name:
            raise EmulatorError(f"/{path} has no option {focused!r} to autocomplete")
        out: list[dict[str, Any]] = []
        for definition in definitions:
            name = definition["name"]
            if name == focused:
                out.append(
                    {"type": definition["type"], "name": name, "value": given.get(name, ""), "focused": True}
                )
                continue
            if name not in given:
                if definition.get("required") and focused is None:
                    raise EmulatorError(f"/{path}: the required option {name!r} is missing")
                continue
            value = self._option_value(path, definition, given[name], channel, user, resolved)
            out.append({"type": definition["type"], "name": name, "value": value})
        return out

    def _option_value(
        self,
        path: str,
        definition: dict[str, Any],
        value: Any,
        channel: Channel,
        user: User,
        resolved: dict[str, dict[str, Any]],
    ) -> Any:
        otype, name = definition["type"], definition["name"]
        where = f"/{path} {name}"
        if otype == STRING:
            if not isinstance(value, str):
                raise EmulatorError(f"{where}: expected a string, got {value!r}")
            low, high = definition.get("min_length", 0), definition.get("max_length", 6000)
            if not low <= len(value) <= high:
                raise EmulatorError(f"{where}: length must be {low}..{high}")
        elif otype in (INTEGER, NUMBER):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or (otype == INTEGER and not isinstance(value, int))
            ):
                raise EmulatorError(f"{where}: expected a number, got {value!r}")
            low, high = definition.get("min_value"), definition.get("max_value")
            if (low is not None and value < low) or (high is not None and value > high):
                raise EmulatorError(f"{where}: {value} is outside {low}..{high}")
        elif otype == BOOLEAN:
            if not isinstance(value, bool):
                raise EmulatorError(f"{where}: expected a bool, got {value!r}")
        elif otype in (USER, MENTIONABLE) and isinstance(value, User | int) and not isinstance(value, bool):
            target = self.user(value)
            resolved.setdefault("users", {})[str(target.id)] = user_payload(target)
            member = channel.guild.members.get(target.id) if channel.guild is not None else None
            if member is not None and channel.guild is not None:
                resolved.setdefault("members", {})[str(target.id)] = member_payload(
                    channel.guild, member, with_user=False, permissions=True
                )
            return str(target.id)
        elif otype in (ROLE, MENTIONABLE) and isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = role_payload(value)
            return str(value.id)
        elif otype == CHANNEL:
            chosen = self.channel(value)
            allowed = definition.get("channel_types")
            if allowed and int(chosen.type) not in allowed:
                raise EmulatorError(f"{where}: channel type {chosen.type.name} is not allowed")
            resolved.setdefault("channels", {})[str(chosen.id)] = channel_payload(
                chosen, permissions_for=user.id
            )
            return str(chosen.id)
        elif otype == ATTACHMENT:
            attachment = self._as_attachment(value)
            resolved.setdefault("attachments", {})[str(attachment.id)] = attachment_payload(
                self, channel, attachment
            )
            return str(attachment.id)
        else:
            raise EmulatorError(f"{where}: cannot pass {value!r} for option type {otype}")
        choices = definition.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise EmulatorError(f"{where}: {value!r} is not one of {[c['value'] for c in choices]}")
        return value

    def _as_attachment(self, value: Any) -> Attachment:
        if isinstance(value, Attachment):
            attachment = value
        elif isinstance(value, tuple) and len(value) == 2:
            filename, data = value
            attachment = Attachment(id=self.ids.next(), filename=str(filename), data=bytes(data))
        else:
            raise EmulatorError(f"pass an attachment as (filename, bytes), not {value!r}")
        self.files[attachment.id] = attachment
        return attachment

    # ---- interactions ---------------------------------------------------------------------------

    def _can_see(self, user: User, channel: Channel) -> None:
        if channel.is_dm:
            if channel.recipient is not user:
                raise EmulatorError(f"{user.name} is not in {channel!r}")
            return
        assert channel.guild is not None
        if user.id not in channel.guild.members:
            raise EmulatorError(f"{user.name} is not a member of {channel.guild!r}")
        if not channel.guild.permissions_of(user.id) & Perm.VIEW_CHANNEL:
            raise EmulatorError(f"{user.name} cannot see {channel!r}")
        if channel.deleted:
            raise EmulatorError(f"{channel!r} was deleted")
        if (
            channel.type is ChannelType.PRIVATE_THREAD
            and user.id not in channel.members
            and not channel.guild.permissions_of(user.id) & Perm.MANAGE_THREADS
        ):
            raise EmulatorError(f"{user.name} is not in the private thread {channel!r}")

    def _start_interaction(
        self,
        itype: InteractionType,
        user: User,
        channel: Channel,
        data: dict[str, Any],
        *,
        message: MessageRecord | None = None,
        command: str | None = None,
        custom_id: str | None = None,
    ) -> InteractionRecord:
        self._can_see(user, channel)
        iid = self.ids.next()
        token = f"emu.{iid}.{secrets.token_urlsafe(32)}"
        guild = channel.guild
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": int(itype),
            "data": data,
            "token": token,
            "version": 1,
            "channel_id": str(channel.id),
            "channel": channel_payload(channel, permissions_for=user.id if guild else None),
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if guild is not None:
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
                guild_locale=guild.preferred_locale,
                member=member_payload(guild, guild.members[user.id], permissions=True),
                app_permissions=str(guild.permissions_of(self.bot_user.id)),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=user_payload(user),
                app_permissions=str(int(DEFAULT_EVERYONE)),
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        if message is not None:
            payload["message"] = message_payload(self, message)
        now = asyncio.get_running_loop().time()
        record = InteractionRecord(
            id=iid,
            token=token,
            type=itype,
            user=user,
            channel=channel,
            payload=payload,
            dispatched_at=now,
            deadline=now + self.interaction_deadline,
            expires=now + self.followup_window,
            command=command,
            custom_id=custom_id,
            source_message=message,
        )
        self.interactions[iid] = record
        self.interactions_by_token[token] = record
        record.sessions = self.gateway.dispatch("INTERACTION_CREATE", payload)
        if not record.sessions:
            raise EmulatorError("no bot is connected to the gateway to receive the interaction")
        self._notify()
        return record

    async def slash(
        self, user: UserRef, channel: ChannelRef, command: str, options: Options = None, /, **kwargs: Any
    ) -> InteractionRecord:
        """Run `/command` ("game status", "a b c" for groups) with options as a dict or keywords.

        USER options take a `User`, CHANNEL a `Channel`, ROLE a `Role`, ATTACHMENT a
        (filename, bytes) pair; they are sent with their `resolved` data.
        """
        return self._run_command(user, channel, command, {**(options or {}), **kwargs}, checked=True)

    async def forged_slash(
        self, user: UserRef, channel: ChannelRef, command: str, options: Options = None, /, **kwargs: Any
    ) -> InteractionRecord:
        """Run `/command` as a modified or outdated client could: the command and its subcommands
        must be synced, but the options go as given, unchecked (a required one may be missing, a
        string longer than its max_length, a number out of range, a name unknown). Values are sent
        raw, without `resolved` data, except a `User` given for a user option: Discord resolves a
        real person's id whatever the client."""
        return self._run_command(user, channel, command, {**(options or {}), **kwargs}, checked=False)

    def _run_command(
        self, user: UserRef, channel: ChannelRef, command: str, given: Mapping[str, Any], *, checked: bool
    ) -> InteractionRecord:
        who, where = self.user(user), self.channel(channel)
        data = self._command_data(who, where, command, given, focused=None, checked=checked)
        return self._start_interaction(
            InteractionType.APPLICATION_COMMAND, who, where, data, command=" ".join(command.split())
        )

    async def autocomplete(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        """Type into option `focused` (its partial value among the options); the bot's choices. Takes
        what `start_autocomplete` takes: ``(user, channel, command, options=None, /, *, focused,
        **options)``."""
        record = await self.start_autocomplete(*args, **kwargs)
        return (await record.response()).choices

    async def start_autocomplete(
        self,
        user: UserRef,
        channel: ChannelRef,
        command: str,
        options: Options = None,
        /,
        *,
        focused: str,
        **kwargs: Any,
    ) -> InteractionRecord:
        who, where = self.user(user), self.channel(channel)
        given = {**(options or {}), **kwargs}
        data = self._command_data(who, where, command, given, focused=focused)
        return self._start_interaction(
            InteractionType.AUTOCOMPLETE, who, where, data, command=" ".join(command.split())
        )

    def _visible_message(self, user: User, message: MessageRecord | int) -> MessageRecord:
        msg = message if isinstance(message, MessageRecord) else self.message(message)
        if msg.deleted:
            raise EmulatorError(f"{msg!r} was deleted")
        if msg.visible_to is not None and msg.visible_to != user.id:
            raise EmulatorError(f"{user.name} cannot see {msg!r}: it is ephemeral for someone else")
        self._can_see(user, msg.channel)
        return msg

    def _component(
        self, msg: MessageRecord, custom_id: str, types: frozenset[int] | set[int]
    ) -> dict[str, Any]:
        component = msg.component(custom_id)
        if component is None or component.get("type") not in types:
            raise EmulatorError(f"no such component {custom_id!r} on {msg!r}; custom ids: {msg.custom_ids}")
        if component.get("disabled"):
            raise EmulatorError(f"component {custom_id!r} on {msg!r} is disabled")
        return component

    async def click(self, user: UserRef, message: MessageRecord | int, custom_id: str) -> InteractionRecord:
        """Click the button `custom_id` on `message` (any message the user can see)."""
        who = self.user(user)
        msg = self._visible_message(who, message)
        component = self._component(msg, custom_id, {2})
        if component.get("style") in (5, 6):
            raise EmulatorError(f"button {custom_id!r} is a link/premium button: it sends no interaction")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
        if "id" in component:
            data["id"] = component["id"]
        return self._start_interaction(
            InteractionType.MESSAGE_COMPONENT, who, msg.channel, data, message=msg, custom_id=custom_id
        )

    async def select(
        self, user: UserRef, message: MessageRecord | int, custom_id: str, values: Sequence[Any]
    ) -> InteractionRecord:
        """Pick `values` in the select menu `custom_id` (option values; users/roles/channels for
        the entity selects)."""
        who = self.user(user)
        msg = self._visible_message(who, message)
        component = self._component(msg, custom_id, SELECT_TYPES)
        low, high = component.get("min_values", 1), component.get("max_values", 1)
        if not low <= len(values) <= high:
            raise EmulatorError(f"select {custom_id!r} takes {low}..{high} values, got {len(values)}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] == 3:
            allowed = [o["value"] for o in component.get("options") or []]
            for value in values:
                if value not in allowed:
                    raise EmulatorError(f"select {custom_id!r} has no option {value!r}; options: {allowed}")
            data["values"] = [str(v) for v in values]
        else:
            resolved: dict[str, dict[str, Any]] = {}
            data["values"] = [self._entity_value(v, msg.channel, who, resolved) for v in values]
            data["resolved"] = resolved
        if "id" in component:
            data["id"] = component["id"]
        return self._start_interaction(
            InteractionType.MESSAGE_COMPONENT, who, msg.channel, data, message=msg, custom_id=custom_id
        )

    async def forged_component(
        self, user: UserRef, message: MessageRecord | int, data: Mapping[str, Any]
    ) -> InteractionRecord:
        """A component interaction on ``message`` carrying ``data`` as given (a modified client's:
        values of any type, fields missing), unchecked against the message's components."""
        who = self.user(user)
        msg = self._visible_message(who, message)
        custom_id = data.get("custom_id")
        return self._start_interaction(
            InteractionType.MESSAGE_COMPONENT,
            who,
            msg.channel,
            dict(data),
            message=msg,
            custom_id=custom_id if isinstance(custom_id, str) else None,
        )

    def _entity_value(
        self, value: Any, channel: Channel, user: User, resolved: dict[str, dict[str, Any]]
    ) -> str:
        if isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = role_payload(value)
            return str(value.id)
        if isinstance(value, Channel):
            resolved.setdefault("channels", {})[str(value.id)] = channel_payload(
                value, permissions_for=user.id
            )
            return str(value.id)
        target = self.user(value)
        resolved.setdefault("users", {})[str(target.id)] = user_payload(target)
        if channel.guild is not None and target.id in channel.guild.members:
            resolved.setdefault("members", {})[str(target.id)] = member_payload(
                channel.guild, channel.guild.members[target.id], with_user=False, permissions=True
            )
        return str(target.id)

    async def submit_modal(
        self,
        user: UserRef,
        source: InteractionRecord | ChannelRef,
        custom_id: str | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> InteractionRecord:
        """Fill in and submit a modal.

        `source` is the interaction the bot answered with the modal (its fields are checked: unknown
        ids, required ones left empty, lengths), or a channel to submit a modal blind (then
        `custom_id` is required and each value becomes one text input row).
        """
        who = self.user(user)
        values = dict(values or {})
        if isinstance(source, InteractionRecord):
            modal = source.modal
            if modal is None:
                raise EmulatorError(f"interaction {source.describe()} did not open a modal")
            if source.user is not who:
                raise EmulatorError(f"the modal was shown to {source.user.name}, not {who.name}")
            if source.modal_used:
                raise EmulatorError("that modal was already submitted")
            if custom_id is not None and custom_id != modal.get("custom_id"):
                raise EmulatorError(f"the open modal is {modal.get('custom_id')!r}, not {custom_id!r}")
            custom_id = str(modal["custom_id"])
            components = self._filled_modal(modal, values)
            channel, message = source.channel, source.source_message
            source.modal_used = True
        else:
            if custom_id is None:
                raise EmulatorError("a blind modal submit needs its custom_id")
            channel, message = self.channel(source), None
            components = [
                {"type": 1, "components": [{"type": 4, "custom_id": k, "value": str(v)}]}
                for k, v in values.items()
            ]
        data = {"custom_id": custom_id, "components": components}
        return self._start_interaction(
            InteractionType.MODAL_SUBMIT, who, channel, data, message=message, custom_id=custom_id
        )

    @staticmethod
    def _filled_modal(modal: dict[str, Any], values: dict[str, Any]) -> list[dict[str, Any]]:
        known: set[str] = set()

        def fill(component: dict[str, Any]) -> dict[str, Any]:
            cid = component.get("custom_id")
            out: dict[str, Any] = {"type": component["type"]}
            if "id" in component:
                out["id"] = component["id"]
            if cid is None:
                return out
            known.add(cid)
            out["custom_id"] = cid
            if component["type"] == 4:
                value = str(values.get(cid, component.get("value") or ""))
                if component.get("required", True) and not value:
                    raise EmulatorError(f"modal field {cid!r} is required")
                low, high = component.get("min_length", 0), component.get("max_length", 4000)
                if value and not low <= len(value) <= high:
                    raise EmulatorError(f"modal field {cid!r} must be {low}..{high} characters")
                out["value"] = value
            else:
                out["values"] = [str(v) for v in values.get(cid, [])]
            return out

        rows: list[dict[str, Any]] = []
        for top in modal.get("components") or []:
            if top.get("type") == 1:
                rows.append({"type": 1, "components": [fill(c) for c in top.get("components") or []]})
            elif top.get("type") == 18 and isinstance(top.get("component"), dict):
                row: dict[str, Any] = {"type": 18, "component": fill(top["component"])}
                if "id" in top:
                    row["id"] = top["id"]
                rows.append(row)
        unknown = set(values) - known
        if unknown:
            raise EmulatorError(f"the modal has no fields {sorted(unknown)}; it has {sorted(known)}")
        return rows

    # ---- plain messages -------------------------------------------------------------------------

    async def send_dm(
        self, user: UserRef, content: str, *, files: Sequence[tuple[str, bytes]] = ()
    ) -> MessageRecord:
        """The user writes to the bot in DMs (MESSAGE_CREATE without guild_id)."""
        who = self.user(user)
        return self._user_message(who, self.open_dm(who), content, files)

    async def send_message(
        self, user: UserRef, channel: ChannelRef, content: str, *, files: Sequence[tuple[str, bytes]] = ()
    ) -> MessageRecord:
        """The user writes in a guild channel (the bot sees the content only with MESSAGE_CONTENT,
        or when mentioned)."""
        who, where = self.user(user), self.channel(channel)
        self._can_see(who, where)
        if where.is_thread:
            assert where.guild is not None
            perms = where.guild.permissions_of(who.id)
            if not perms & Perm.SEND_MESSAGES_IN_THREADS:
                raise EmulatorError(f"{who.name} may not send messages in threads")
            if where.locked and not perms & Perm.MANAGE_THREADS:
                raise EmulatorError(f"{where!r} is locked")
            if where.archived:  # a user's message unarchives an unlocked thread
                self.edit_thread(where, archived=False)
            self.add_thread_member(where, who)  # posting in a thread joins it
        return self._user_message(who, where, content, files)

    async def start_thread(
        self, user: UserRef, message: MessageRecord | int, name: str, *, auto_archive_duration: int = 1440
    ) -> Channel:
        """The user starts a public thread from a message (the bot gets THREAD_CREATE)."""
        who = self.user(user)
        msg = self._visible_message(who, message)
        if msg.thread is not None:
            raise EmulatorError(f"{msg!r} already has a thread")
        where = msg.channel
        if where.guild is None or where.is_thread:
            raise EmulatorError(f"threads cannot be started in {where!r}")
        if not where.guild.permissions_of(who.id) & Perm.CREATE_PUBLIC_THREADS:
            raise EmulatorError(f"{who.name} may not create public threads in {where!r}")
        return self.add_thread(
            where, name, owner=who, message=msg, auto_archive_duration=auto_archive_duration
        )

    def _user_message(
        self, user: User, channel: Channel, content: str, files: Sequence[tuple[str, bytes]]
    ) -> MessageRecord:
        uploads = [UploadedFile(f"files[{i}]", name, data, None) for i, (name, data) in enumerate(files)]
        return self.create_message(channel, user, {"content": content}, uploads)
