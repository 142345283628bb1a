"""A loopback Discord (REST API v10 + gateway) for end-to-end tests of discord.py bots.

The tour (`DiscordEmulator`, built up in world.py, actions.py and server.py):

- The world: `add_scene()` (a guild, #games, #lounge, a thread, alice, bob, carol, dave, mod),
  `add_guild`, `add_text_channel`, `add_thread`, `add_user`, `grant`, `set_bot_permissions`,
  `close_dms(user)`.
- Users act: `slash(user, channel, "group sub", **options)`, `autocomplete(...)`, `click(user,
  message, custom_id)`, `select(...)`, `submit_modal(...)`, `send_dm(user, text)`. The Discord
  client's own rules apply (EmulatorError); `forged_slash(...)` sends options unchecked, as a
  modified or outdated client could. Each interaction is an `InteractionRecord`:
  `await rec.response()`, `rec.texts()`, `rec.ephemeral_texts()`, `rec.modal`, `rec.choices`.
- What the bot did: `channel_messages`, `dm_messages`, `private_messages`, `message(id)` (a
  `MessageRecord`, edits in `versions`, its `nonce`), `requests` / `requests_matching(pattern)`,
  `violations` (4xx Discord would answer), `schema_violations` (against the OpenAPI description),
  `all_public_payloads()`.
- Threads: the bot starts them (POST .../messages/{id}/threads: the thread's id is the message's;
  403 / 50013 without Create Public Threads, 400 / 160004 when the message has one) and edits,
  deletes and joins them; an archived thread refuses its posts and edits (400 / 50083), but an edit
  that unarchives it may rename it in the same request; renaming needs Manage Threads or being the
  thread's creator, and a locked thread's name Manage Threads (400 / 160005). Test side:
  `threads_of(channel)`, `thread_messages(thread, since=)`, `thread_members(thread)`,
  `message_mark()` with `channel_messages(channel, since=mark)` (what came after the mark),
  `edit_thread(thread, archived=/locked=/name=)` (as Discord's auto-archive does), `delete_thread`,
  `add_thread_member` / `remove_thread_member`, and `start_thread(user, message, name)`. A user's
  message in a thread joins them and unarchives it (unless locked).
- Waiting: `wait_until(condition)`, `wait_for_message(channel, predicate)`, `wait_idle()`.
- Shards, as Discord: IDENTIFY's `shard: [k, N]` (4010 if invalid; 4011 past
  `max_guilds_per_session`), a guild's events to the sessions of shard `(guild_id >> 22) % N`, events
  without a guild (DMs, DM interactions) to shard 0; `add_guild(..., shard=(k, N))` and
  `add_scene(..., shard=(k, N))` make a guild on a given shard; `rec.sessions` (the sessions an
  interaction went to), `gateway.live_sessions` (each with `shard` and `got(event, guild_id)`),
  `gateway.sessions_of_shard(k, N)`; GET /gateway/bot recommends a shard per
  `guilds_per_recommended_shard` guilds.
- Faults: `fail_next(pattern, status=429 or 5xx, times=...)`, `drop_gateway()`;
  `expire_next_interaction(match or user=/command=/custom_id=)`: the callback answers 404 / 10062
  "Unknown interaction" and the interaction's webhook 404 / 10015 "Unknown Webhook".
- Moments: `after_answer(match, hook)` runs `await hook()` once the bot's callback to a matching
  interaction is applied and recorded, before the bot gets the response; `after_request(pattern,
  hook, after=match)` does so for the first request of a kind (after a matching interaction);
  `crash_after_next_answer(harness, match or user=/command=/custom_id=)` and
  `crash_after_next_request(harness, pattern, after=match)` arm `harness.crash`.
  Each returns a `Trap` (`await trap.wait()`, `trap.fired_on`, `trap.request`).
- Messages created with `nonce` and `enforce_nonce: true` dedupe within `nonce_window` (5 minutes):
  the same author's message with that nonce in that channel is returned, nothing is created.

`harness.BotHarness(emulator, factory)` runs a bot in-process: `start()`, `stop()`, `restart()`, and
`crash()` (as SIGKILL would: no shutdown logic of the bot runs, nothing more reaches its database),
after which `start()` starts a fresh bot on the same database. Several harnesses may run at once on
one emulator (several processes of one bot, e.g. one shard each over one database: pass
`shard_count=`/`shards=` to `project_bot_factory`); `harness.sessions` are its bot's gateway sessions.
"""

from .models import EmulatorError, InteractionFailed
from .server import DiscordEmulator
from .traps import Expiry, Trap, interaction_filter

__all__ = ["DiscordEmulator", "EmulatorError", "Expiry", "InteractionFailed", "Trap", "interaction_filter"]
