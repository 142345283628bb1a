"""What `pip install .` (not editable: the README's run command, the Dockerfile) puts in place: every
package of bot/ and cogs/, and the data files the bot reads at run time."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def pyproject() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_is_listed() -> None:
    listed = set(pyproject()["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("bot", "cogs")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found - listed == set(), "add them to [tool.setuptools] packages in pyproject.toml"


def test_the_data_files_the_bot_reads_are_package_data() -> None:
    data = pyproject()["tool"]["setuptools"]["package-data"]
    assert "*.bin" in data["cogs.procession"]  # the opening table of Procession's computer player
    assert (ROOT / "cogs/procession/procession9.bin").is_file()
    assert any("locales" in pattern for pattern in data["bot.i18n"])
