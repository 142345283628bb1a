"""Check request bodies against Discord's OpenAPI description, when the file is there.

The description lives beside the checkout (`../shared/discord-openapi.json` from the repository
root) and is absent elsewhere: then nothing is checked. The spec is parsed once per process and a
compiled validator is kept per operation, so a check costs one `iter_errors` call.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SPEC = REPO_ROOT.parent / "shared" / "discord-openapi.json"
_BASE_URI = "urn:discord-openapi"


@dataclass(frozen=True)
class SchemaProblem:
    operation: str
    location: str
    message: str


@dataclass(frozen=True)
class _Operation:
    template: str
    pattern: re.Pattern[str]
    literal_parts: int


class OpenApiChecker:
    """Validates JSON bodies by method and concrete path (e.g. POST /channels/123/messages)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        self._spec = spec
        self._validator_cls = Draft202012Validator
        resource = Resource.from_contents(spec, default_specification=DRAFT202012)
        self._registry: Any = Registry().with_resource(_BASE_URI, resource)
        ops: list[_Operation] = []
        for template in spec.get("paths", {}):
            regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            literal = template.count("/") - template.count("{")
            ops.append(_Operation(template, re.compile(f"^{regex}$"), literal))
        # Literal segments win over parameters: /users/@me before /users/{user_id}.
        self._operations = sorted(ops, key=lambda o: -o.literal_parts)
        self._validators: dict[tuple[str, str], Any] = {}

    def template_for(self, path: str) -> str | None:
        for op in self._operations:
            if op.pattern.match(path):
                return op.template
        return None

    def _validator(self, method: str, template: str) -> Any:
        key = (method, template)
        if key not in self._validators:
            operation = self._spec["paths"][template].get(method.lower())
            validator = None
            content = (operation or {}).get("requestBody", {}).get("content", {})
            if "application/json" in content:
                pointer = "/".join(
                    part.replace("~", "~0").replace("/", "~1")
                    for part in ("paths", template, method.lower(), "requestBody", "content")
                )
                ref = f"{_BASE_URI}#/{pointer}/application~1json/schema"
                validator = self._validator_cls({"$ref": ref}, registry=self._registry)
            self._validators[key] = (validator, (operation or {}).get("operationId", template))
        return self._validators[key]

    def check(self, method: str, path: str, body: Any) -> list[SchemaProblem]:
        template = self.template_for(path)
        if template is None:
            return []
        validator, operation = self._validator(method, template)
        if validator is None:
            return []
        from jsonschema.exceptions import best_match

        errors = list(validator.iter_errors(_known_gaps(body)))
        if not errors:
            return []
        best = best_match(errors)
        location = ".".join(str(p) for p in best.absolute_path) if best is not None else ""
        message = best.message if best is not None else errors[0].message
        if len(message) > 500:
            message = message[:500] + "…"
        return [SchemaProblem(operation=str(operation), location=location, message=message)]


SNOWFLAKE_MIN = 1 << 32  # an integer this large in a request body is an id (a snowflake)


def _known_gaps(body: Any) -> Any:
    """Smooth over where the spec is stricter than the live API in ways discord.py relies on.

    - discord.py names a new upload in `attachments` by its integer index (`{"id": 0}`); Discord
      accepts that, the spec types every attachment id as a snowflake string.
    - Discord takes a snowflake as a JSON integer as well as a string; discord.py sends some as
      integers (`allowed_mentions.users`, `create_dm`'s `recipient_id`), the spec types them as
      strings. Any integer of an id's size is checked as the string Discord reads it as.
    """
    if isinstance(body, list):
        return [_known_gaps(item) for item in body]
    if isinstance(body, int) and not isinstance(body, bool) and body >= SNOWFLAKE_MIN:
        return str(body)
    if not isinstance(body, dict):
        return body
    fixed = {key: _known_gaps(value) for key, value in body.items()}
    if isinstance(fixed.get("attachments"), list):
        fixed["attachments"] = [
            {**a, "id": str(a["id"])} if isinstance(a, dict) and isinstance(a.get("id"), int) else a
            for a in fixed["attachments"]
        ]
    return fixed


@functools.cache
def load_checker(spec_path: Path = DEFAULT_SPEC) -> OpenApiChecker | None:
    """The shared checker, or None when the spec file (or jsonschema) is not available."""
    if not spec_path.is_file():
        return None
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        return None
    with spec_path.open(encoding="utf-8") as fh:
        return OpenApiChecker(json.load(fh))
