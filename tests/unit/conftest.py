"""Fixtures the unit tests share."""

from __future__ import annotations

import pytest
from babel.messages.catalog import Catalog as PoCatalog

from bot.i18n import TRANSLATED
from bot.i18n.catalogs import po_path, read_catalog


@pytest.fixture(scope="module")
def catalogs() -> dict[str, PoCatalog]:
    """Every translated catalog as read from its .po file, by language code."""
    return {code: read_catalog(po_path(code), code) for code in TRANSLATED}
