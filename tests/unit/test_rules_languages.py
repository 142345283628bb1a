"""The rules of every game in every language: each translation keeps its worked example exact (only the
words around the numbers change), fits a Discord message, and names the slash commands as Discord
shows them to a reader of that language (the names the command tree is localised with)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bot.i18n import ENGLISH, TRANSLATED, Lang, language
from bot.i18n.commands import COMMAND_NAME, OPTION_NAME
from bot.registry import RULES_TEXT, rules_of

MESSAGE_LIMIT = 2000
NUMBER = re.compile(r"\d+")
# What an example is made of besides its words: numbers and binary lists (01_001_1), rows and
# multisets ({3,1,1}), letter strings (UUDDUSU), dots (B1→B3).
TOKEN = re.compile(r"\{[^}]*\}|[\d_]*\d[\d_]*(?:,\d+)*|\b[UDS]{3,}\b|[A-Z]\d+→[A-Z]\d+")
COMMAND = re.compile(r"`(/[^`]+)`")


def example(text: str) -> str:
    """The worked example: the last paragraph of a rules text."""
    return text.rsplit("\n", 1)[-1]


def localised(command: str, lang: Lang) -> str:
    """``/group sub option:<...>`` with each name as the command tree gives it in ``lang``."""
    words = []
    for word in command.split(" "):
        if word.startswith("/"):
            words.append("/" + lang.pt(COMMAND_NAME, word[1:]))
        elif ":" in word:
            name, rest = word.split(":", 1)
            words.append(lang.pt(OPTION_NAME, name) + ":" + rest)
        else:
            words.append(lang.pt(COMMAND_NAME, word))
    return " ".join(words)


@pytest.mark.parametrize("code", TRANSLATED)
@pytest.mark.parametrize("game", sorted(RULES_TEXT))
def test_each_translation_keeps_the_example_and_the_commands(game: str, code: str) -> None:
    lang = language(code)
    english, said = rules_of(game, ENGLISH), rules_of(game, lang)
    assert said != english, f"the rules of {game} have no {code} translation"
    assert len(said) <= MESSAGE_LIMIT
    # The worked example: the same numbers in the same order, every token of it kept as it is.
    assert NUMBER.findall(example(said)) == NUMBER.findall(example(english))
    assert Counter(TOKEN.findall(example(said))) == Counter(TOKEN.findall(example(english)))
    # The whole text: the same numbers (ranges, options), the same commands, localised.
    assert Counter(NUMBER.findall(said)) == Counter(NUMBER.findall(english))
    commands = COMMAND.findall(english)
    assert commands and [localised(c, lang) for c in commands] == COMMAND.findall(said)
    assert said.startswith(f"**{RULES_TEXT[game].title}**")  # titles are never translated


def test_english_rules_are_the_source() -> None:
    for game, text in RULES_TEXT.items():
        assert rules_of(game) == text.body
        assert [localised(c, ENGLISH) for c in COMMAND.findall(text.body)] == COMMAND.findall(text.body)
