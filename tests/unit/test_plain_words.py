"""What a new player reads says things plainly: no text the bot can show (every msgid the extractor
finds, the rules text and the command descriptions included) uses the rules' jargon where a board
says it in words (issue 24: Lines By The Dots' "virgin" dots are "unused" dots, "non-virgin" ones
"used", as its boards say)."""

from __future__ import annotations

import re

from bot.i18n.extract import template

JARGON = re.compile(r"\b(?:non-)?virgin\b|\bfallback\b", re.I)


def test_no_text_a_player_reads_says_virgin_or_fallback() -> None:
    said = []
    for message in template():
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        said.extend(str(i) for i in ids if i and JARGON.search(str(i)))
    assert not said, said
