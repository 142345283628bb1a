"""A game package's ``SPEC``, loaded on first use.

A package's ``__init__`` runs whenever one of its modules is imported, the pure ones too (its rules,
its computer player); its ``SPEC`` brings in the cog and so discord. So the package does not import
its ``spec`` module: ``__getattr__ = lazy_spec(__name__)`` imports it when ``SPEC`` is first asked
for (PEP 562), and ``tests/unit/test_purity.py`` checks that the pure parts load no discord.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_spec(package: str) -> Callable[[str], object]:
    """The module ``__getattr__`` of the game package ``package``: ``SPEC`` is its ``spec`` module's."""

    def __getattr__(name: str) -> object:
        if name == "SPEC":
            return importlib.import_module(f"{package}.spec").SPEC
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
