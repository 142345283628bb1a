"""JSON shapes of Discord objects (API v10), built from the emulator's records.

Only what discord.py reads and what a test might look at; field names and types follow Discord's
documentation so that discord.py parses them exactly as it parses the real thing.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from .models import (
    Attachment,
    Channel,
    ChannelType,
    Guild,
    InteractionRecord,
    Member,
    MessageRecord,
    Role,
    User,
)

if TYPE_CHECKING:
    from .world import World


def iso(ts: float) -> str:
    return datetime.datetime.fromtimestamp(ts, datetime.UTC).isoformat()


def user_payload(user: User) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(user.id),
        "username": user.name,
        "global_name": user.global_name,
        "discriminator": "0",
        "avatar": None,
        "public_flags": 0,
        "flags": 0,
        "banner": None,
        "accent_color": None,
        "avatar_decoration_data": None,
        "primary_guild": None,
        "collectibles": None,
    }
    if user.bot:
        data["bot"] = True
    return data


def bot_self_payload(user: User) -> dict[str, Any]:
    return {**user_payload(user), "verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"}


def role_payload(role: Role) -> dict[str, Any]:
    return {
        "id": str(role.id),
        "name": role.name,
        "description": None,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": role.position,
        "permissions": str(role.permissions),
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def member_payload(
    guild: Guild, member: Member, *, with_user: bool = True, permissions: bool = False
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "nick": member.nick,
        "avatar": None,
        "banner": None,
        "roles": [str(r.id) for r in member.roles],
        "joined_at": iso(member.joined_at),
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "communication_disabled_until": None,
        "unusual_dm_activity_until": None,
    }
    if with_user:
        data["user"] = user_payload(member.user)
    if permissions:
        data["permissions"] = str(guild.permissions_of(member.user.id))
    return data


def channel_payload(channel: Channel, *, permissions_for: int | None = None) -> dict[str, Any]:
    """A channel object; with `permissions_for` (a user id) it carries that user's permissions,
    as in interaction payloads."""
    if channel.type is ChannelType.DM:
        assert channel.recipient is not None
        return {
            "id": str(channel.id),
            "type": 1,
            "last_message_id": None,
            "flags": 0,
            "recipients": [user_payload(channel.recipient)],
        }
    assert channel.guild is not None
    data: dict[str, Any] = {
        "id": str(channel.id),
        "type": int(channel.type),
        "guild_id": str(channel.guild.id),
        "name": channel.name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "flags": 0,
        "nsfw": False,
    }
    if channel.is_thread:
        assert channel.parent is not None
        data.update(
            parent_id=str(channel.parent.id),
            owner_id=str(channel.owner_id or 0),
            message_count=channel.message_count,
            member_count=min(50, len(channel.members)),
            total_message_sent=channel.message_count,
            thread_metadata={
                "archived": channel.archived,
                "auto_archive_duration": channel.auto_archive_duration,
                "archive_timestamp": iso(channel.archived_at or channel.created_at),
                "locked": channel.locked,
                "create_timestamp": iso(channel.created_at),
                "invitable": channel.type is ChannelType.PRIVATE_THREAD,
            },
        )
    else:
        data.update(
            position=channel.position,
            permission_overwrites=[],
            parent_id=None,
            topic=None,
            default_auto_archive_duration=1440,
        )
    if permissions_for is not None:
        data["permissions"] = str(channel.guild.permissions_of(permissions_for))
    return data


def thread_member_payload(thread: Channel, user_id: int) -> dict[str, Any]:
    """A thread member object (as in THREAD_MEMBERS_UPDATE and GET /thread-members)."""
    assert thread.guild is not None
    return {
        "id": str(thread.id),
        "user_id": str(user_id),
        "join_timestamp": iso(thread.members[user_id]),
        "flags": 0,
        "guild_id": str(thread.guild.id),
    }


def guild_create_payload(world: World, guild: Guild, *, all_members: bool) -> dict[str, Any]:
    """GUILD_CREATE: the whole guild. Without the GUILD_MEMBERS intent only the bot's own member."""
    members = [m for m in guild.members.values() if all_members or m.user.id == world.bot_user.id]
    return {
        **guild_payload(guild),
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "safety_alerts_channel_id": None,
        "application_id": None,
        "joined_at": iso(guild.created_at),
        "large": False,
        "unavailable": False,
        "lazy": True,
        "member_count": len(guild.members),
        "max_members": 500000,
        "voice_states": [],
        "members": [member_payload(guild, m) for m in members],
        "channels": [channel_payload(c) for c in guild.channels if not c.is_thread],
        "threads": [
            channel_payload(c) for c in guild.channels if c.is_thread and not c.archived and not c.deleted
        ],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


def guild_payload(guild: Guild) -> dict[str, Any]:
    """GET /guilds/{id}: the guild without its members and channels (GUILD_CREATE adds them)."""
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(guild.owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "preferred_locale": guild.preferred_locale,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "vanity_url_code": None,
        "features": [],
        "roles": [role_payload(r) for r in guild.roles],
        "emojis": [],
        "stickers": [],
    }


def attachment_payload(world: World, channel: Channel, attachment: Attachment) -> dict[str, Any]:
    url = world.attachment_url(channel, attachment)
    data: dict[str, Any] = {
        "id": str(attachment.id),
        "filename": attachment.filename,
        "size": attachment.size,
        "url": url,
        "proxy_url": url,
    }
    if attachment.content_type:
        data["content_type"] = attachment.content_type
    if attachment.description:
        data["description"] = attachment.description
    return data


def interaction_metadata(interaction: InteractionRecord) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(interaction.id),
        "type": int(interaction.type),
        "user": user_payload(interaction.user),
        "authorizing_integration_owners": interaction.payload.get("authorizing_integration_owners", {}),
    }
    if interaction.command is not None:
        data["name"] = interaction.command
        data["command_type"] = 1
    if interaction.source_message is not None:
        data["interacted_message_id"] = str(interaction.source_message.id)
    return data


def message_payload(world: World, message: MessageRecord, *, with_nonce: bool = False) -> dict[str, Any]:
    """A message object; `with_nonce` adds the nonce it was created with (Discord echoes it in the
    create response and in MESSAGE_CREATE only)."""
    channel = message.channel
    data: dict[str, Any] = {
        "id": str(message.id),
        "channel_id": str(channel.id),
        "type": message.type,
        "author": user_payload(message.author),
        "content": message.content,
        "embeds": message.embeds,
        "components": message.components,
        "attachments": [attachment_payload(world, channel, a) for a in message.attachments],
        "flags": message.flags,
        "timestamp": iso(message.created_at),
        "edited_timestamp": iso(message.edited_at) if message.edited_at else None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "pinned": False,
        "reactions": [
            {"emoji": {"id": None, "name": r}, "count": 1, "me": True} for r in sorted(message.reactions)
        ],
    }
    if channel.guild is not None:
        data["guild_id"] = str(channel.guild.id)
        member = channel.guild.members.get(message.author.id)
        if member is not None:
            data["member"] = member_payload(channel.guild, member, with_user=False)
    if message.webhook_id is not None:
        data["webhook_id"] = str(message.webhook_id)
        data["application_id"] = str(world.application_id)
    if message.interaction is not None:
        data["interaction_metadata"] = interaction_metadata(message.interaction)
    if message.reference_id is not None:
        data["message_reference"] = {
            "type": 0,
            "message_id": str(message.reference_id),
            "channel_id": str(channel.id),
        }
    if message.thread is not None:
        data["thread"] = channel_payload(message.thread)
    if with_nonce and message.nonce is not None:
        data["nonce"] = message.nonce
    return data


def application_payload(world: World) -> dict[str, Any]:
    return {
        "id": str(world.application_id),
        "name": world.bot_user.name,
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "hook": True,
        "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "flags": 0,
        "owner": user_payload(world.owner_user),
        "team": None,
        "bot": user_payload(world.bot_user),
        "redirect_uris": [],
        "interactions_endpoint_url": None,
        "approximate_guild_count": len(world.guilds),
        "install_params": None,
        "integration_types_config": {"0": {}},
        "tags": [],
    }
