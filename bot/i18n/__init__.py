"""Every text a person reads, in their language: gettext catalogs read with Babel.

Languages: English (the source: its texts are the msgids), German ``de``, French ``fr``, Spanish
``es``, Brazilian Portuguese ``pt_BR``, Russian ``ru``. A text without a translation reads in
English, never as a key. Why gettext and Babel rather than Fluent: ``.po`` files are what
translators and their tools (Poedit, Weblate, Crowdin) know best, Babel brings CLDR's plural rules,
numbers, dates and lists, and an English msgid keeps the code readable where the text is used.

API guide (for whoever turns a part of the bot into every language)
====================================================================

Saying something
----------------
A `Lang` is one language. Everything goes through one::

    lang.t("Your hand is empty.")                            # a plain text
    lang.t("Game #{game_id} is over.", game_id=12)           # fields are str.format fields
    lang.n("{count} card", "{count} cards", n)               # plural: CLDR rules of the language;
                                                             # {count} is n in the language's digits
    lang.n("{who} holds {count} card", "{who} holds {count} cards", n, who=name)
    lang.pt("board label", "Pile")                           # same English, other meanings: a context
    lang.number(1234.5, 1)   lang.percent(0.25)              # 1,234.5 / 1.234,5 ; 25% / 25 %
    lang.duration(90 * 60)                                   # "1 hour and 30 minutes"
    lang.date(unix)   lang.datetime(unix)                    # (in a message prefer Discord's <t:unix:f>)
    lang.words(["A", "B", "C"])  lang.either([...])          # "A, B and C" / "A, B or C"

Rules for texts:
- The first argument is always a literal English string (that is how extraction finds it: an
  f-string or a variable there is not extracted, so it stays English), the whole sentence, with
  ``{named}`` fields: never glue translated pieces together, never build a plural by adding "s"
  (`bot.present.counted` is English only: use ``lang.n``). A sentence that differs by case
  gets one msgid per case.
- Where Discord allows fewer characters, give the text its context and the safety net checks the
  limit in every language: ``lang.pt("label", "Join")`` (buttons, select options: 80),
  ``lang.pt("placeholder", ...)`` (150), ``lang.pt("form title", ...)`` (45); any other text: 2,000.
- With no fields, ``t`` does not format: literal braces need no doubling. With fields, double
  them (``{{`` ``}}``).
- Markdown, emoji, mentions and Discord markup (``<t:...:R>``) stay inside the msgid; translators
  keep them. A comment ``# i18n: ...`` on the line above reaches the translators.
- A text defined before its reader is known (a module constant, a table of labels, a choice):
  mark it with ``N_("...")`` (``Np_(context, "...")``) where it is defined, and translate where it
  is read: ``lang.t(LABEL)``. A sentence built before its reader is known (an error, an outcome
  reason, a line kept for later): a `Msg` (``Msg("...", x=1)``, ``Msg.n(...)``, ``Msg.pt(...)``),
  turned into text by ``lang.say(msg)``; a field whose value is a `Msg` is translated with it.
- Errors: ``raise BadInput("{shown} is not a dot of this grid.", shown=excerpt)``: the template is
  the msgid (extracted for every class deriving from ``GameError``, wherever it is defined),
  translated for the person it is answered to (bot/table/replies.py calls ``error.in_language(lang,
  name)``); a field may be a `Msg`. An error class that builds its own sentence keeps its fields and
  gives its literal template to its base, ``super().__init__("{shown} is out of range: ...",
  shown=shown, ...)`` (extracted too); where a caller needs another wording, it passes the whole
  sentence as a `Msg` (``OutOfRange(shown, low, high, Msg("... in this game (m = {m}) ...", m=m))``),
  never a piece to glue in. An error whose sentence names players overrides ``say(self, lang,
  name)``, not ``text`` (a subclass still overriding ``text`` is shown in English). `NotYourTurn`'s
  ``to`` may be a `Msg`.
- A game's ``Outcome.reason`` stays a plain string (outcomes are JSON): make it a constant msgid
  marked with ``N_`` (``reason=N_("every dot is taken")``); `outcome_text` and the alt texts show
  it with ``lang.t(reason)``. The same for ``MINE_LABEL`` (``N_("My hand")``), read by the boards
  with ``lang.t``.
- Names of people (mentions, display names), game titles and what a person typed are fields,
  never translated.

Which language: who reads it
----------------------------
- A private (ephemeral) answer, or a reply to an interaction: the person's own, ``reader(interaction)``.
- A DM: its recipient's, ``await audiences.user(user_id)`` (their last seen client language).
- A public post in a game's channel or thread: the server's, ``await audiences.server(guild_id)``
  (``/game settings language:`` if set, else the server's Discord locale, else English).
- An image and its alt text: the language of the message carrying it.
`Audiences` (bot/i18n/audience.py) is given to each table object that speaks to one; `reader` needs
nothing. Every interaction's locales are noted before its handlers run (``QuetBot.dispatch`` calls
``Audiences.note``) and stored when they change (the ``seen`` listener); ``Audiences.choose`` is what
``/game settings language:`` sets. The table machinery already picks the right one: a board, card,
reminder or closed-DMs notice the server's; a panel, "your move" DM, DM reminder or typed-answer reply
the recipient's; every ephemeral answer and refusal the reader's. /game rules and the Rules
button call ``rules_of(game, reader(interaction))``, which translates each rules body as one msgid.

Presentation functions (cogs/<game>/present.py) and renderers (bot/render/*.py)
--------------------------------------------------------------------------------
A presenter function receives a `TableInfo`; its ``table.lang`` is the language of whoever reads
what it builds (the table machinery sets it: the server's for boards, headlines, alt texts and
images; the player's for panels, confirmations and private answers). So a presenter writes::

    def headline(news: News[View], table: TableInfo) -> str:
        lang = table.lang
        return lang.t("{who} flips digit {position}.", who=table.who(news.seat), position=p)

Renderers take the language as a keyword argument, ``render_board(view, names, lang=ENGLISH)``, and
the present module's ``render(view, table)`` passes ``lang=table.lang``. A panel (and ``confirm``,
``not_waiting_reason``) gets a table whose ``lang`` is the player's; forms opened from a command or a
button answer the person who clicked: ``reader(interaction)`` (``send_modal(interaction,
lang.pt("form title", "Your number"), ...)``). `points(n, lang)` says "3 points" in any language.
Text drawn on an image goes through the same ``lang.t``/``lang.n`` (the DejaVu fonts cover every
language here); measure translated words, they are often longer. `table.who`, `table.heading`,
`whose_move(table)`, `outcome_text(table, ...)` and `forfeit_line` already speak ``table.lang``.

Slash commands
--------------
Write the decorators in English as before (``@app_commands.command(name=..., description=...)``,
``describe``, ``choices``): `CommandTranslator` (set on the tree in bot/app.py) translates them for
every Discord locale when the tree is synced. The extractor reads them from the cogs' classes:
names with the context ``"command name"``, option names ``"option name"`` (a translated name must
be lowercase, 1-32 letters, digits, ``-`` or ``_``, and unique among its siblings), descriptions
(at most 100 characters) and choice names (at most 100) without a context.

Translations: the catalogs
--------------------------
``bot/i18n/locales/<code>/LC_MESSAGES/quetbot.po``, one per language, read at startup (nothing to
compile). After adding or changing texts in the code::

    python -m bot.i18n extract      # remakes locales/quetbot.pot, adds new msgids to every .po
                                    # (untranslated), drops unused ones; prints what each lacks

then fill in each ``msgstr`` (and every ``msgstr[i]`` of a plural: a language has as many forms
as its ``Plural-Forms`` header says, Russian 3: one, few, many) in each .po, keeping every
``{field}`` of the msgid, and no other. A fuzzy or empty translation is not used.

The safety net
--------------
``pytest -q tests/unit/test_i18n.py`` fails when a catalog lacks a msgid of the code (the template
is remade from the code in the test, so running extract is not optional), a translation drops or
adds a ``{field}``, a plural lacks a form of its catalog's ``Plural-Forms`` (the header is the
catalog's own: the bot picks forms by it, not by the installed Babel's table; the test checks it
agrees with CLDR's categories for the counts the bot says), or a translated command name,
description or choice breaks Discord's limits. ``tests/unit/test_i18n_sentences.py`` checks that
every sentence reads wholly in every language: no text is built where the extractor cannot read it
(an f-string given to ``t``, ``Msg`` or an error), every error class is known (one that builds its
own sentence is raised there with sample fields), every msgid is translated (not left as the
English, but for a reviewed list of words a language spells the same) and formats with sample
fields, and nothing read holds three English words in a row of its English sentence.
"""

from __future__ import annotations

from bot.i18n.lang import (
    DISCORD_OF,
    ENGLISH,
    LANGUAGES,
    N_,
    SOURCE,
    TRANSLATED,
    Lang,
    Msg,
    Np_,
    code_of_discord,
    discord_locales,
    from_discord,
    language,
)

__all__ = [
    "DISCORD_OF",
    "ENGLISH",
    "LANGUAGES",
    "N_",
    "SOURCE",
    "TRANSLATED",
    "Lang",
    "Msg",
    "Np_",
    "code_of_discord",
    "discord_locales",
    "from_discord",
    "language",
]
