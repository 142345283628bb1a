"""Moments a test arms on what the bot does, and interactions Discord forgets.

A `Trap` runs a test's coroutine (typically `BotHarness.crash`) once, right after Discord applied one
of the bot's requests and recorded it, and before the HTTP response goes back: with a crash as the
hook, the bot never learns that its answer was delivered, which is what a process killed at that
moment looks like from Discord's side. An `Expiry` makes Discord forget an interaction before the
bot's callback arrives (as when the bot answers after its 3 seconds): the callback is refused with
404 / 10062 "Unknown interaction", and the interaction's webhook with 404 / 10015 "Unknown Webhook".

Interactions are matched by an `InteractionMatch`: a record, a predicate over records (see
`interaction_filter`), or None for any.
"""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from .models import EmulatorError, InteractionRecord, InteractionType, RequestRecord, User

InteractionPredicate = Callable[[InteractionRecord], bool]
InteractionMatch = InteractionRecord | InteractionPredicate | None
Hook = Callable[[], Awaitable[object]]

CALLBACK_ROUTE = "/interactions/{interaction_id}/{interaction_token}/callback"


def interaction_filter(
    *,
    user: User | None = None,
    command: str | None = None,
    custom_id: str | None = None,
    kind: InteractionType | None = None,
) -> InteractionPredicate:
    """A predicate over interactions: by whom, which slash command ("procession flip"), which
    component or form (fnmatch pattern over the custom_id, e.g. "q:*:flip:*"), which type."""

    def test(rec: InteractionRecord) -> bool:
        if user is not None and rec.user is not user:
            return False
        if command is not None and rec.command != " ".join(command.split()):
            return False
        if custom_id is not None and (
            rec.custom_id is None or not fnmatch.fnmatchcase(rec.custom_id, custom_id)
        ):
            return False
        return kind is None or rec.type is kind

    return test


def matches(match: InteractionMatch, rec: InteractionRecord) -> bool:
    if match is None:
        return True
    if isinstance(match, InteractionRecord):
        return match is rec
    return bool(match(rec))


@dataclass(eq=False)
class Trap:
    """A hook armed on the next request of a kind; it fires once.

    `answer=True`: the request is the bot's callback (POST /interactions/{id}/{token}/callback) to an
    interaction matching `interaction`. Otherwise the request matches `pattern` (fnmatch over the
    path or route, with or without the method, as in `fail_next`) and, when `interaction` is given,
    started after a matching interaction was dispatched (one dispatched after arming, for a
    predicate). Only requests Discord accepted (status below 400) fire a trap; with `skip`, the first
    `skip` of the matching ones are let through (the trap fires on the next).
    """

    pattern: str
    hook: Hook
    interaction: InteractionMatch
    answer: bool
    armed_at: float
    skip: int = 0  # matching requests still to let through before it fires
    request: RequestRecord | None = None  # the request it fired on
    fired_on: InteractionRecord | None = None  # the interaction answered (or followed)
    error: BaseException | None = None
    _done: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def fired(self) -> bool:
        return self.request is not None

    @property
    def done(self) -> bool:
        """The hook has run (to its end, or to an error)."""
        return self._done.is_set()

    def matches_request(self, record: RequestRecord) -> bool:
        if self.answer:
            return record.route == CALLBACK_ROUTE and record.method == "POST"
        candidates = [record.path, f"{record.method} {record.path}"]
        if record.route is not None:
            candidates += [record.route, f"{record.method} {record.route}"]
        return any(fnmatch.fnmatchcase(c, self.pattern) for c in candidates)

    async def run(self) -> None:
        try:
            await self.hook()
        except BaseException as exc:  # reported by the emulator (internal_errors) and by wait()
            self.error = exc
        finally:
            self._done.set()

    async def wait(self, timeout: float = 15.0) -> None:  # noqa: ASYNC109
        """Until the trap has fired and its hook has run; re-raises the hook's error."""
        try:
            await asyncio.wait_for(self._done.wait(), timeout)
        except TimeoutError:
            state = "fired, its hook still running" if self.fired else "not fired"
            raise EmulatorError(f"the trap on {self.describe()} is {state} after {timeout}s") from None
        if self.error is not None:
            raise EmulatorError(f"the hook of the trap on {self.describe()} failed") from self.error

    def describe(self) -> str:
        return "the answer to an interaction" if self.answer else repr(self.pattern)


@dataclass(eq=False)
class Expiry:
    """The next callback to an interaction matching `interaction` finds it expired."""

    interaction: InteractionMatch
    expired: InteractionRecord | None = None
