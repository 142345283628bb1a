"""The lock files: every dependency pyproject.toml names is pinned to one exact version its range
allows, with hashes, and the test lock pins the bot's own dependencies at the same versions (so the
tests run the bot on exactly what `pip install -r requirements.lock` gives a host)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


def pins(name: str) -> dict[str, str]:
    """The lock file's exact versions by canonical name; every pin carries at least one hash."""
    text = (ROOT / name).read_text()
    found: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", text):
        match = PIN.match(block)
        if match is None:
            continue
        assert "--hash=sha256:" in block, f"{name}: {match.group(1)} has no hash"
        found[canonicalize_name(match.group(1))] = match.group(2)
    return found


def declared(extra: str | None = None) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = project["dependencies"] + (project["optional-dependencies"][extra] if extra else [])
    return [Requirement(r) for r in names]


def test_the_bot_lock_pins_every_dependency_within_its_range() -> None:
    locked = pins("requirements.lock")
    for requirement in declared():
        version = locked.get(canonicalize_name(requirement.name))
        assert version is not None, f"{requirement.name} is not in requirements.lock"
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)


def test_the_test_lock_pins_the_tools_and_the_same_bot_dependencies() -> None:
    bot, test = pins("requirements.lock"), pins("requirements-test.lock")
    for requirement in declared("test"):
        version = test.get(canonicalize_name(requirement.name))
        assert version is not None, f"{requirement.name} is not in requirements-test.lock"
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)
    differing = {name: (v, test.get(name)) for name, v in bot.items() if test.get(name) != v}
    assert not differing, f"the two lock files disagree: {differing}"
